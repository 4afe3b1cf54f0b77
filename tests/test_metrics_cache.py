"""The score cache: bulk lookups, no stale scores, keys that follow what a metric reads."""

from __future__ import annotations

import dataclasses
import math
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from comperbench.metrics import TurnItem, get
from comperbench.metrics.base import DialogueItem, Item, Metric, MetricInputError
from comperbench.metrics.cache import ScoreCache, item_key, item_keys, metric_key
from comperbench.metrics.runner import score_items
from comperbench.schema import Utterance


class CountingBleu(Metric):
    """bleu-2 that records which responses it was asked to score."""

    family = "ngram"
    needs = frozenset({"response", "references"})
    name = "bleu-2"

    def __init__(self, smooth: str = "exp") -> None:
        self.inner, self.smooth, self.seen = get("bleu-2"), smooth, []

    def config(self) -> dict[str, Any]:
        return {**self.inner.config(), "smooth_method": self.smooth}

    def library_version(self) -> str:
        return self.inner.library_version()

    def score(self, items: Sequence[Item]) -> list[float]:
        self.seen += [i.response for i in items]  # type: ignore[union-attr]
        return self.inner.score(items)


def _items(n: int = 50) -> list[TurnItem]:
    return [
        TurnItem(
            f"d{k}",
            f"response number {k} about cats",
            context=(Utterance("A", f"context {k}"),),
            references=(f"reference {k} about cats",) if k % 10 else (),
        )
        for k in range(n)
    ]


def test_changed_response_is_the_only_item_recomputed(tmp_path: Path) -> None:
    cache, items = ScoreCache(tmp_path), _items()
    first_metric = CountingBleu()
    first = score_items(first_metric, items, cache, batch_size=7)
    assert first.computed == 50 and first.cached == 0
    assert first.nans == 5  # the items without references

    changed = list(items)
    changed[3] = dataclasses.replace(items[3], response="a completely different reply")
    again = CountingBleu()
    second = score_items(again, changed, cache)
    assert again.seen == ["a completely different reply"]
    assert (second.cached, second.computed) == (49, 1)
    assert second.scores[3] != first.scores[3]
    assert second.scores[3] == get("bleu-2").score([changed[3]])[0]
    same = [k for k in range(50) if k != 3]
    np.testing.assert_array_equal(second.scores[same], first.scores[same])


def test_changed_reference_or_config_is_never_served_stale(tmp_path: Path) -> None:
    cache, items = ScoreCache(tmp_path), _items(5)
    score_items(CountingBleu(), items, cache)
    changed = [dataclasses.replace(items[1], references=("something else entirely",))]
    metric = CountingBleu()
    assert score_items(metric, changed, cache).computed == 1
    other = CountingBleu(smooth="floor")
    assert metric_key(other) != metric_key(metric)
    assert score_items(other, items, cache).computed == 5


def test_keys_follow_the_metric_needs() -> None:
    item = _items(2)[1]
    other_context = dataclasses.replace(item, context=(Utterance("B", "elsewhere"),))
    refs = frozenset({"response", "references"})
    assert item_key(item, refs) == item_key(other_context, refs)
    with_context = frozenset({"response", "context"})
    assert item_key(item, with_context) != item_key(other_context, with_context)
    renamed = dataclasses.replace(item, item_id="another id")
    assert item_key(item, refs) == item_key(renamed, refs)


@pytest.mark.parametrize("asked", [3, 2600], ids=["lookups by key", "one pass over the file"])
def test_nan_survives_the_round_trip(tmp_path: Path, asked: int) -> None:
    cache, metric = ScoreCache(tmp_path), get("f1")
    cache.store(metric, {"a": math.nan, "b": 0.25, **{f"k{i}": 1.0 for i in range(10)}})
    found = cache.lookup(metric, ["a", "b", "missing", *(f"x{i}" for i in range(asked - 3))])
    assert math.isnan(found["a"]) and found["b"] == 0.25 and set(found) == {"a", "b"}


@pytest.mark.parametrize("asked", [1000, 2600], ids=["lookups by key", "one pass over the file"])
def test_bulk_lookup_beyond_the_sqlite_parameter_limit(tmp_path: Path, asked: int) -> None:
    cache, metric = ScoreCache(tmp_path), get("length")
    cache.store(metric, {f"k{i}": i for i in range(2500)})  # integers come back as floats
    found = cache.lookup(metric, [f"k{i}" for i in range(asked - 1, -1, -1)])
    assert found == {f"k{i}": float(i) for i in range(min(asked, 2500))}
    assert all(type(score) is float for score in found.values())


@pytest.mark.parametrize("name", ["rouge-l", "meteor", "bleu-2", "chrf", "distinct-1"])
def test_implementation_version_is_part_of_the_key(name: str) -> None:
    metric = get(name)
    before = metric_key(metric)
    assert f"implementation={metric.implementation}" in metric.cache_version()
    assert metric.cache_version().startswith(metric.library_version())
    metric.implementation = metric.implementation + 1  # type: ignore[misc]
    assert metric_key(metric) != before


@pytest.mark.parametrize(
    ("item", "field"),
    [
        (TurnItem("t1", b"hello", references=("hi",)), "response"),  # type: ignore[arg-type]
        (TurnItem("t2", "hello", references=(b"hi",)), "references"),  # type: ignore[arg-type]
        (
            TurnItem("t3", "hi", context=(Utterance("a", b"x"),), references=("h",)),  # type: ignore[arg-type]
            "context",
        ),
    ],
)
def test_non_json_values_are_located_input_errors(
    item: TurnItem, field: str, tmp_path: Path
) -> None:
    needs = frozenset({"response", "references", "context"})
    with pytest.raises(MetricInputError, match=rf"item '{item.item_id}', field '{field}'"):
        item_key(item, needs)
    if field in get("bleu-2").needs:
        with pytest.raises(MetricInputError, match=rf"item '{item.item_id}', field '{field}'"):
            score_items(get("bleu-2"), [item], ScoreCache(tmp_path))


def test_non_string_dialogue_turn_is_a_located_input_error() -> None:
    item = DialogueItem("d1", (Utterance("a", "hi"), Utterance("b", b"yo")))  # type: ignore[arg-type]
    with pytest.raises(MetricInputError, match=r"item 'd1', field 'turns' \(turn 1\)"):
        item_key(item, frozenset({"dialogue"}))


def test_item_keys_in_bulk_equal_item_key_one_by_one() -> None:
    shared = ("a reference", 'another, with "quotes" and é', "引用")
    context = (Utterance("A", "hi"), Utterance("B", "ça va"))
    items: list[Item] = [
        TurnItem(str(k), f"response {k}", context, shared if k % 2 else ("x",), ("fact",))
        for k in range(6)
    ]
    items.append(DialogueItem("d", (Utterance("A", "hello"),)))
    for needs in ({"response"}, {"response", "references"}, {"response", "context", "grounding"}):
        assert item_keys(items, needs) == [item_key(item, needs) for item in items]


def test_item_keys_in_bulk_name_the_bad_item() -> None:
    good = TurnItem("ok", "fine", references=("r",))
    bad = TurnItem("bad", "fine", references=("r", b"bytes"))  # type: ignore[arg-type]
    with pytest.raises(MetricInputError, match="item 'bad', field 'references'"):
        item_keys([good, bad], {"response", "references"})


def _rows(cache: ScoreCache, metric: Metric) -> sqlite3.Connection:
    return sqlite3.connect(cache.root / f"{metric_key(metric)}.sqlite")


def test_an_edited_score_is_not_served_and_its_item_is_scored_again(tmp_path: Path) -> None:
    cache, items = ScoreCache(tmp_path), _items(5)
    metric = CountingBleu()
    scored = score_items(metric, items, cache).scores
    with closing(_rows(cache, metric)) as connection, connection:
        connection.execute("UPDATE scores SET score = -score WHERE score > 0")
        (edited,) = connection.execute("SELECT count(*) FROM scores WHERE score < 0").fetchone()
    assert edited > 0
    with pytest.warns(UserWarning, match=f"{edited} stored score.s. failed verification"):
        again = score_items(CountingBleu(), items, cache)
    assert (again.computed, again.cached) == (edited, 5 - edited)
    np.testing.assert_array_equal(again.scores, scored)  # recomputed, not the edited values


def test_a_row_copied_from_another_metric_s_file_does_not_verify(tmp_path: Path) -> None:
    cache, f1, length = ScoreCache(tmp_path), get("f1"), get("length")
    cache.store(f1, {"a": 0.5})
    with closing(_rows(cache, f1)) as connection:
        row = connection.execute("SELECT key, score, tag FROM scores").fetchone()
    cache.store(length, {"b": 1.0})
    with closing(_rows(cache, length)) as connection, connection:
        connection.execute("INSERT INTO scores VALUES (?, ?, ?)", row)
    with pytest.warns(UserWarning, match="1 stored score"):
        assert cache.lookup(length, ["a", "b"]) == {"b": 1.0}


def test_rows_written_before_tags_are_scored_again_then_served(tmp_path: Path) -> None:
    cache, metric = ScoreCache(tmp_path), get("length")
    tmp_path.mkdir(exist_ok=True)
    with closing(_rows(cache, metric)) as connection, connection:
        connection.execute("CREATE TABLE scores (key TEXT PRIMARY KEY, score REAL) WITHOUT ROWID")
        connection.execute("INSERT INTO scores VALUES ('k', 7.0)")
    with pytest.warns(UserWarning, match="written before scores were tagged"):
        assert cache.lookup(metric, ["k"]) == {}
    cache.store(metric, {"k": 3.0, "n": math.nan})
    found = cache.lookup(metric, ["k", "n"])
    assert found["k"] == 3.0 and math.isnan(found["n"])


def _snapshots(cache: ScoreCache, metric: Metric) -> int:
    with closing(_rows(cache, metric)) as connection:
        (count,) = connection.execute("SELECT count(*) FROM snapshots").fetchone()
    return int(count)


def test_a_lookup_found_whole_is_read_again_from_one_signed_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.metrics import cache as cache_module

    cache, metric = ScoreCache(tmp_path), get("length")
    cache.store(metric, {"a": 1.0, "b": math.nan, "c": 3.0})
    assert _snapshots(cache, metric) == 0
    assert cache.lookup(metric, ["a", "x"]) == {"a": 1.0}  # not found whole: no snapshot
    assert _snapshots(cache, metric) == 0
    first = cache.lookup(metric, ["c", "a", "b", "a"])
    assert _snapshots(cache, metric) == 1

    def rows_read(*args: object) -> dict[str, float]:
        raise AssertionError("the rows were verified again")

    monkeypatch.setattr(cache_module, "_verified", rows_read)
    again = cache.lookup(metric, ["c", "a", "b", "a"])
    assert again.keys() == first.keys() == {"a", "b", "c"}
    assert again["a"] == 1.0 and again["c"] == 3.0 and math.isnan(again["b"])


def test_an_edited_snapshot_is_not_served_and_a_stored_score_drops_the_snapshots(
    tmp_path: Path,
) -> None:
    cache, metric = ScoreCache(tmp_path), get("length")
    cache.store(metric, {"a": 1.0, "b": 2.0})
    cache.lookup(metric, ["a", "b"])
    forged = np.array([5.0, 6.0]).tobytes()
    with closing(_rows(cache, metric)) as connection, connection:
        connection.execute("UPDATE snapshots SET scores = ?", (forged,))
    assert cache.lookup(metric, ["a", "b"]) == {"a": 1.0, "b": 2.0}  # the rows, verified
    cache.lookup(metric, ["a", "b"])  # the snapshot written again
    cache.store(metric, {"a": 7.0})
    assert _snapshots(cache, metric) == 0
    assert cache.lookup(metric, ["a", "b"]) == {"a": 7.0, "b": 2.0}


def test_only_the_newest_snapshots_are_kept(tmp_path: Path) -> None:
    from comperbench.metrics.cache import _Snapshot

    cache, metric = ScoreCache(tmp_path), get("length")
    keys = [f"k{n}" for n in range(_Snapshot.KEPT + 3)]
    cache.store(metric, dict.fromkeys(keys, 1.0))
    for key in keys:
        cache.lookup(metric, [key])
    assert _snapshots(cache, metric) == _Snapshot.KEPT
    with closing(_rows(cache, metric)) as connection:
        newest = _Snapshot(metric, [keys[-1]]).digest
        kept = {row[0] for row in connection.execute("SELECT keys FROM snapshots")}
    assert newest in kept and _Snapshot(metric, [keys[0]]).digest not in kept


def _never_keyed(*args: object) -> list[str]:
    raise AssertionError("the keys were computed again")


def test_a_benchmark_s_item_keys_are_kept_and_follow_its_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa

    from comperbench.metrics import cache as cache_module

    items = _items(6)
    table = pa.table(
        {
            "response": [i.response for i in items],
            "references": [list(i.references) for i in items],
        }
    )
    cache, needs = ScoreCache(tmp_path), {"response", "references"}
    first = cache.table_item_keys(table, items, needs)
    assert first == item_keys(items, needs)
    with monkeypatch.context() as patched:
        patched.setattr(cache_module, "item_keys", _never_keyed)
        assert cache.table_item_keys(table, items, needs) == first  # read back
    sliced = table.slice(1)  # other rows of the same buffers: another digest
    assert cache.table_item_keys(sliced, items[1:], needs) == first[1:]
    edited = table.set_column(0, "response", pa.array(["new", *table["response"].to_pylist()[1:]]))
    changed = [dataclasses.replace(items[0], response="new"), *items[1:]]
    assert cache.table_item_keys(edited, changed, needs) == item_keys(changed, needs)
    encoded = table.set_column(0, "response", table["response"].dictionary_encode())
    assert cache_module._columns_digest(encoded, ["response"], sorted(needs)) is None
