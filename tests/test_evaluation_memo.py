"""A warm re-run reads its correlation table: the same table, not computed again; a changed
input, an edited file or another package's statistic computes it again."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import comperbench
from comperbench import data
from comperbench.evaluation import RunOptions
from comperbench.evaluation import api as evaluation_api
from comperbench.evaluation.memo import table_key
from comperbench.stats.metric_correlation import statistics as registry


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The benchmarks whose table was computed (not read), in a cache of this test's own."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    names: list[str] = []
    real = evaluation_api.evaluate_run
    monkeypatch.setattr(
        evaluation_api,
        "evaluate_run",
        lambda result, *a, **k: names.append(result.benchmark.name) or real(result, *a, **k),
    )
    return names


def _without_counts(document: dict) -> str:
    """The document but the metrics' counts of computed and cached scores, as JSON."""
    return json.dumps({k: v for k, v in document.items() if k != "metrics"}, default=str)


def _bench(data_root: Path) -> comperbench.Benchmark:
    return comperbench.load_benchmark("usr-topical", data_dir=data_root).sample(80, seed=1)


def test_a_second_run_reads_the_same_table(data_root: Path, computed: list[str]) -> None:
    first = comperbench.evaluate(_bench(data_root), ["length", "f1"])
    again = comperbench.evaluate(_bench(data_root), ["length", "f1"])
    assert computed == ["usr-topical"]
    assert _without_counts(again.document()) == _without_counts(first.document())
    comperbench.evaluate(_bench(data_root), ["length", "f1"], run=RunOptions(cache=False))
    assert computed == ["usr-topical"] * 2  # no cache: computed, whatever is kept


def test_what_the_table_is_computed_from_is_in_its_key(data_root: Path, computed: list) -> None:
    ev = comperbench.evaluate(_bench(data_root), ["length"])
    result, settings = ev.result, ev.plan.settings()
    key = table_key(result, settings)
    run = result.runs[0]
    nudged = replace(run, scores=np.nextafter(np.asarray(run.scores), np.inf))
    assert table_key(replace(result, runs=[nudged]), settings) != key
    assert table_key(result, {**settings, "seed": 1}) != key
    table = result.benchmark.table
    scores = table.column("scores").to_pylist()
    scores[0] = {**scores[0], "overall": (scores[0]["overall"] or 0) + 1}
    column = pa.array(scores, table.schema.field("scores").type)
    edited = copy.copy(result.benchmark)
    edited.table = table.set_column(table.column_names.index("scores"), "scores", column)
    assert table_key(replace(result, benchmark=edited), settings) != key


def test_an_edited_table_file_is_computed_again(data_root: Path, computed: list[str]) -> None:
    comperbench.evaluate(_bench(data_root), ["length"])
    (kept,) = (data.cache_dir() / "tables").glob("*.pickle")
    payload = bytearray(kept.read_bytes())
    payload[len(payload) // 2] ^= 1
    kept.write_bytes(bytes(payload))
    comperbench.evaluate(_bench(data_root), ["length"])
    assert computed == ["usr-topical"] * 2


def test_another_packages_statistic_is_never_read_from_a_kept_table(
    data_root: Path, computed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pearson = registry.get_statistic("pearson")
    scores = next(c for c in pearson.capabilities if isinstance(c, registry.OnScores))

    def theirs(x: np.ndarray, y: np.ndarray) -> registry.Point:  # another package's code
        return scores.analytic(x, y)

    theirs.__module__ = "their_package.statistics"
    capabilities = tuple(
        replace(c, analytic=theirs) if c is scores else c for c in pearson.capabilities
    )
    mine = replace(pearson, name="my-pearson", display_name="mine", capabilities=capabilities)
    monkeypatch.setitem(registry.CORRELATIONS._items, "my-pearson", mine)
    for _ in range(2):
        comperbench.evaluate(_bench(data_root), ["length"], statistics=["my-pearson"])
    assert computed == ["usr-topical"] * 2
