"""Coverage of partly referenced levels (DSTC7), dialogue-level baselines, and stored submissions
scored again after a benchmark version, protocol or scoring version change."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from comperbench.leaderboard import mirror as mirror_module
from comperbench.leaderboard import scoring, service
from comperbench.leaderboard import store as store_module
from comperbench.leaderboard.items import (
    ItemIndex,
    cached_benchmark,
    level_items,
    protocol_tag,
    references_note,
    scored_items,
)
from comperbench.leaderboard.mirror import Mirror
from comperbench.leaderboard.service import ranking, rescore, set_apart, stale_coverages
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import SubmissionMeta

RESAMPLES = 200


@pytest.fixture(autouse=True)
def no_configured_mirror(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(mirror_module.DIR_ENV, raising=False)
    monkeypatch.delenv(mirror_module.REPO_ENV, raising=False)
    mirror_module._open.cache_clear()


def _csv(ids: list[str], scores: np.ndarray) -> bytes:
    rows = "".join(f"{i},{float(s)!r}\n" for i, s in zip(ids, scores, strict=True))
    return ("item_id,score\n" + rows).encode()


def _submit(store: Store, index: ItemIndex, name: str, raw: bytes, mirror: Mirror | None = None):
    meta = SubmissionMeta(name)
    return service.submit(f"{name}.csv", raw, meta, store, index, RESAMPLES, mirror)


@pytest.fixture(scope="module")
def dstc7(data_root: Path) -> tuple[ItemIndex, list[str], np.ndarray, np.ndarray]:
    """The index, DSTC7's item ids, which have references, and scores near the human ones."""
    found = level_items("dstc7", "turn")
    human = np.nan_to_num(found.human_scores(next(iter(found.human))))
    noisy = human + np.random.default_rng(0).normal(scale=1.0, size=len(human))
    return ItemIndex(["dstc7"]), found.item_ids, found.referenced, noisy


def test_dstc7_is_correlated_on_its_items_with_references(dstc7) -> None:
    _, ids, referenced, _ = dstc7
    assert (len(ids), int(referenced.sum())) == (10_000, 9_540)
    kept = scored_items("dstc7", "turn")
    assert kept.references_only and len(kept) == 9_540 and kept.referenced.all()
    assert protocol_tag("dstc7", "turn") == protocol_tag("dstc7", "system") == "with-references"
    assert protocol_tag("usr-topical", "turn") == "ref-without:original-ground-truth"
    assert "9,540 of 10,000 items with references" in (references_note("dstc7", "system") or "")
    assert references_note("usr-topical", "turn") is None


def test_a_reference_based_submission_covers_the_items_with_references(
    dstc7, tmp_path: Path
) -> None:
    index, ids, referenced, scores = dstc7
    store = Store(tmp_path / "lb.sqlite")
    with_refs = [i for i, r in zip(ids, referenced, strict=True) if r]
    some_without = with_refs + [i for i, r in zip(ids, referenced, strict=True) if not r][:100]
    # 47 items are half a percent of 9,540: a metric may leave that many unscored
    missing_some = with_refs[:-47]
    missing_many = with_refs[48:]
    every = _submit(store, index, "every", _csv(ids, scores))
    ref_based = _submit(store, index, "refs", _csv(with_refs, scores[referenced]))
    subset = _submit(store, index, "subset", _csv(some_without, scores[: len(some_without)]))
    some = _submit(store, index, "some", _csv(missing_some, scores[referenced][:-47]))
    partial = _submit(store, index, "partial", _csv(missing_many, scores[referenced][48:]))
    assert "9540/10000 items: every item with references, ranked" in ref_based.summary()
    assert "9640/10000 items: every item with references, ranked" in subset.summary()
    assert "9493/10000 items: 47 of the 9540 items with references not scored, ranked" in (
        some.summary()
    )
    assert "9492/10000 items, partial: listed, not ranked" in partial.summary()
    assert "10000/10000 items, ranked" in every.summary()
    assert store.partial("dstc7", "turn") == [("partial", 9492, 10_000)]
    aspect = next(iter(level_items("dstc7", "turn").human))
    some_row = {r.row.metric: r.row for r in ranking(store, "dstc7", "turn", aspect, "spearman")}
    assert some_row["some"].n == 9_493  # on the items it scored, as evaluate correlates it
    for level, statistic in (("turn", "spearman"), ("system", "spa")):
        table = {r.row.metric: r.row for r in ranking(store, "dstc7", level, aspect, statistic)}
        table.pop("some", None)  # spa: a context without its score leaves it undefined
        assert sorted(table) == ["every", "refs", "subset"]
        # the same scores on the items with references: the same numbers, the same resamples
        a, b = table["every"], table["refs"]
        assert a.value == b.value and np.array_equal(a.replicates, b.replicates)
        assert a.settings.protocol == "with-references"
    turn_rows = ranking(store, "dstc7", "turn", aspect, "spearman")
    assert {r.row.n for r in turn_rows} == {9_540, 9_493}


@pytest.fixture(scope="module")
def topical(data_root: Path) -> tuple[ItemIndex, list[str], np.ndarray]:
    bench = cached_benchmark("usr-topical", "turn")
    human = np.nan_to_num(bench.human_scores("overall"))
    return ItemIndex(["usr-topical"]), bench.item_ids, human


def _two(store: Store, topical, mirror: Mirror | None = None) -> None:
    index, ids, human = topical
    for k, noise in enumerate((0.3, 3.0)):
        noisy = human + np.random.default_rng(k).normal(scale=noise, size=len(human))
        _submit(store, index, f"m{k}", _csv(ids, noisy), mirror)


def _age(store: Store, tag: str | None = None, fingerprint: str | None = None) -> None:
    """Make the stored rows look scored on an older version of usr-topical."""
    with sqlite3.connect(store.path) as db:
        if tag is not None:
            db.execute("UPDATE results SET benchmark_tag = ?", (tag,))
        if fingerprint is not None:
            db.execute("UPDATE coverage SET fingerprint = ?", (fingerprint,))


def _spearman(store: Store, version: str | None = None) -> list[tuple[str, float, bytes]]:
    rows = store.view("usr-topical", "turn", "overall", "spearman", version)
    return [(r.metric, r.value, r.replicates.tobytes()) for r in rows]


def test_rescore_after_a_version_change_keeps_the_old_rows(topical, tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    _two(store, topical)
    index = topical[0]
    assert stale_coverages(store, index) == []
    before = _spearman(store)
    _age(store, tag="usr-topical@0ld")
    view = (store, "usr-topical", "turn", "overall", "spearman")
    assert ranking(*view) == [] and len(set_apart(*view)) == 2
    assert len(stale_coverages(store, index)) == 2
    lines: list[str] = []
    done = rescore(store, index=index, report=lines.append)
    assert [r[1] for r in done.rescored] == ["m0", "m1"] and done.failed == []
    assert lines == [f"rescored submission #{k}: 1 coverage(s)" for k in (1, 2)]
    current = level_items("usr-topical", "turn").tag
    assert _spearman(store, current) == before  # equal values: nothing else changed
    assert _spearman(store, "usr-topical@0ld") == before  # the old rows are kept
    assert [r.row.metric for r in ranking(*view)] == ["m0", "m1"] and set_apart(*view) == []
    assert [v[0] for v in store.versions("usr-topical")] == ["usr-topical@0ld", current]
    assert stale_coverages(store, index) == []
    assert rescore(store, index=index, report=lines.append).rescored == []


def test_a_new_scoring_version_rescores(
    topical, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    _two(store, topical)
    before = _spearman(store)
    newer = scoring.SCORING_VERSION + 1
    for module in (scoring, service, store_module):
        monkeypatch.setattr(module, "SCORING_VERSION", newer)
    assert len(rescore(store, index=topical[0], report=lambda _: None).rescored) == 2
    rows = store.view("usr-topical", "turn", "overall", "spearman")
    assert sorted(r.scoring for r in rows) == [newer - 1, newer - 1, newer, newer]
    ranked = ranking(store, "usr-topical", "turn", "overall", "spearman")
    assert [(r.row.metric, r.row.scoring) for r in ranked] == [("m0", newer), ("m1", newer)]
    assert [(r.row.metric, r.row.value, r.row.replicates.tobytes()) for r in ranked] == before


def test_a_changed_benchmark_is_validated_again_from_the_kept_file(topical, tmp_path: Path) -> None:
    kept = Mirror(tmp_path / "results")
    store = Store(tmp_path / "lb.sqlite")
    _two(store, topical, kept)
    before = _spearman(store)
    _age(store, tag="usr-topical@0ld", fingerprint="0ld")
    alone = Store(tmp_path / "alone.sqlite")
    _two(alone, topical)
    _age(alone, tag="usr-topical@0ld", fingerprint="0ld")
    failed = rescore(alone, index=topical[0], report=lambda _: None)
    assert failed.rescored == [] and len(failed.failed) == 2
    assert "usr-topical changed (0ld -> " in failed.failed[0][1]
    assert "not kept in a results folder" in failed.failed[0][1]
    done = rescore(store, kept, topical[0], report=lambda _: None)
    assert len(done.rescored) == 2 and done.failed == []
    assert _spearman(store, level_items("usr-topical", "turn").tag) == before
    assert {c.coverage.fingerprint for c in store.coverages()} == {
        topical[0].fingerprint("usr-topical")
    }


def test_a_partial_coverage_full_under_a_new_rule_is_scored(dstc7, tmp_path: Path) -> None:
    index, ids, referenced, scores = dstc7
    store = Store(tmp_path / "lb.sqlite")
    with_refs = [i for i, r in zip(ids, referenced, strict=True) if r]
    _submit(store, index, "refs", _csv(with_refs, scores[referenced]))
    with sqlite3.connect(store.path) as db:  # as stored before the rule: partial, never scored
        db.execute("UPDATE coverage SET full = 0")
        db.execute("DELETE FROM results")
    assert [c.metric for c in stale_coverages(store, index)] == ["refs"]
    assert len(rescore(store, index=index, report=lambda _: None).rescored) == 1
    assert store.partial("dstc7", "turn") == []
    assert len(ranking(store, "dstc7", "turn", "overall", "spearman")) == 1


def test_the_seed_stores_dialogue_baselines(data_root: Path, tmp_path: Path) -> None:
    from comperbench.leaderboard.seeding.baselines import baseline_metrics, seed

    assert "dialogue-coherence" not in baseline_metrics("dialogue")
    store = Store(tmp_path / "lb.sqlite")
    notes: list[str] = []
    outcomes = seed(store, benchmarks=["fed-dialogue"], progress=notes.append)
    names = [o.submission.meta.name for o in outcomes]
    assert names == ["dialogue-distinct-1", "dialogue-distinct-2", "dialogue-length"]
    assert all(o.submission.meta.baseline and o.submission.meta.reference_free for o in outcomes)
    ranked = ranking(store, "fed-dialogue", "dialogue", "overall", "spearman")
    assert sorted(r.row.metric for r in ranked) == sorted(names)
