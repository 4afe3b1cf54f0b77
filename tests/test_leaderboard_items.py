"""What the leaderboard keeps of a benchmark level: the same items, systems, contexts and human
scores as the loaded benchmark, kept on disk under the benchmark's fingerprint."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from comperbench.leaderboard import items
from comperbench.leaderboard.items import ItemIndex, cached_benchmark, level_items, scored_items


@pytest.fixture
def fresh(data_root: Path) -> Iterator[list[str]]:
    """Levels loaded in this test are loaded again (the per-process caches emptied); the
    benchmarks loaded from the raw files are listed."""
    loaded: list[str] = []
    real = items.load_benchmark

    def counted(name: str, level: str):
        loaded.append(f"{name}/{level}")
        return real(name, level)

    caches = (cached_benchmark, level_items, scored_items)
    for cache in caches:
        cache.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(items, "load_benchmark", counted)
        yield loaded
    for cache in caches:
        cache.cache_clear()


def test_the_kept_items_are_those_of_the_benchmark(fresh: list[str]) -> None:
    bench = cached_benchmark("usr-topical", "turn")
    found = level_items("usr-topical", "turn")
    assert found.item_ids == bench.item_ids
    assert found.fingerprint == bench.fingerprint and found.tag == bench.tag
    assert found.systems.tolist() == bench.table.column("system").to_pylist()
    assert found.contexts.tolist() == bench.table.column("dialogue_id").to_pylist()
    for aspect in bench.metadata.aspect_names:
        np.testing.assert_array_equal(found.human_scores(aspect), bench.human_scores(aspect))
    kept = scored_items("usr-topical", "turn")
    assert kept.excluded_systems == ("Original Ground Truth",)
    assert len(kept) == 300 and "Original Ground Truth" not in set(kept.systems.tolist())


def test_a_level_is_read_from_disk_once_kept(fresh: list[str]) -> None:
    first = level_items("usr-persona", "turn")
    path = items.items_path("usr-persona", "turn", first.fingerprint)
    assert path.is_file()
    level_items.cache_clear()
    again = level_items("usr-persona", "turn")
    assert fresh.count("usr-persona/turn") <= 1  # none when an earlier test kept it
    assert again.item_ids == first.item_ids
    np.testing.assert_array_equal(again.human["overall"], first.human["overall"])


@pytest.mark.parametrize("tamper", ["poisoned", "truncated"])
def test_a_tampered_items_file_is_rebuilt(fresh: list[str], tamper: str) -> None:
    """Human scores written into the kept file, or the file cut short, are never served: the
    level is loaded again and kept anew."""
    first = level_items("usr-persona", "turn")
    path = items.items_path("usr-persona", "turn", first.fingerprint)
    if tamper == "poisoned":
        human = {aspect: np.zeros_like(scores) for aspect, scores in first.human.items()}
        poisoned = replace(first, human=human)
        path.write_bytes(poisoned.to_bytes())
    else:
        path.write_bytes(path.read_bytes()[:200])
    level_items.cache_clear()
    before = fresh.count("usr-persona/turn")
    again = level_items("usr-persona", "turn")
    assert fresh.count("usr-persona/turn") == before + 1
    np.testing.assert_array_equal(again.human["overall"], first.human["overall"])
    level_items.cache_clear()
    kept = level_items("usr-persona", "turn")  # the re-built file is served
    assert fresh.count("usr-persona/turn") == before + 1
    np.testing.assert_array_equal(kept.human["overall"], first.human["overall"])


def test_a_changed_fingerprint_is_never_served_the_kept_items(
    fresh: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    level_items("usr-persona", "turn")
    level_items.cache_clear()
    monkeypatch.setattr(items, "current_fingerprint", lambda name: "0123456789abcdef")
    before = fresh.count("usr-persona/turn")
    level_items("usr-persona", "turn")
    assert fresh.count("usr-persona/turn") == before + 1


def test_the_index_locates_the_kept_ids(fresh: list[str]) -> None:
    index = ItemIndex(["usr-topical"])
    ids = level_items("usr-topical", "turn").item_ids
    assert index.locate(ids[5]) == ("usr-topical", "turn", 5)
    assert index.unknown_reason("usr-topical/nope") == (
        "unknown id: not an item of benchmark 'usr-topical'"
    )
    assert index.size("usr-topical", "turn") == 360
