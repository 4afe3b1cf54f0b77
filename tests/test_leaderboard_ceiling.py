"""The leaderboard's human ceiling: on the ranking's items, kept in memory and on disk (a tampered
file is computed again), and drawn as a reference line in the forest plot."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from comperbench import data
from comperbench.leaderboard import ceiling as module
from comperbench.leaderboard.ceiling import GLOSSARY, human_ceiling
from comperbench.leaderboard.items import cached_benchmark, scored_items
from comperbench.leaderboard.web.plots import forest_html
from comperbench.stats import AnnotatorScores, annotator_ceiling
from comperbench.stats.annotator_agreement.ceiling import LABEL
from comperbench.stats.settings import Resampling


@pytest.fixture()
def fresh(data_root: Path) -> None:
    """Data at the data root, and no ceiling kept in memory from another test."""
    human_ceiling.cache_clear()


def test_on_the_items_a_reference_free_row_is_correlated_on(fresh: None) -> None:
    """USR's ground truth is kept for people as for reference-free metrics, as evaluate does."""
    found = human_ceiling("usr-topical", "turn", "overall", "spearman")
    items = scored_items("usr-topical", "turn", reference_free=True)
    assert len(items) == 360
    scores = AnnotatorScores.of_benchmark(
        cached_benchmark("usr-topical", "turn"), "overall", items.positions
    )
    expected = annotator_ceiling(
        scores,
        statistic="spearman",
        resampling=Resampling(resamples=1000, seed=0),
    )
    assert found is not None and expected.ci is not None
    assert (found.value, found.ci_low, found.ci_high) == (
        expected.value,
        expected.ci.low,
        expected.ci.high,
    )
    assert (found.n, found.annotators, found.note) == (360, 5, None)
    assert found.label == LABEL


def test_kept_on_disk_and_a_tampered_file_is_not_served(fresh: None) -> None:
    first = human_ceiling("usr-persona", "system", "overall", "pearson")
    assert first is not None and first.n == 5 and "only 5 systems" in (first.note or "")
    items = scored_items("usr-persona", "turn", reference_free=True)
    path = module._path(items, "system", "overall", "pearson")
    assert json.loads(path.read_bytes())["value"] == first.value
    human_ceiling.cache_clear()
    assert human_ceiling("usr-persona", "system", "overall", "pearson") == first  # from disk
    tampered = json.loads(path.read_bytes()) | {"value": 0.123}
    path.write_text(json.dumps(tampered))
    assert data.read_verified(path) is None
    human_ceiling.cache_clear()
    assert human_ceiling("usr-persona", "system", "overall", "pearson") == first
    assert data.read_verified(path) is not None  # written again


def test_kendall_over_items_has_no_interval_as_its_rows_have_none(fresh: None) -> None:
    found = human_ceiling("usr-persona", "turn", "overall", "kendall-b")
    assert found is not None and math.isfinite(found.value) and math.isnan(found.ci_low)
    assert "does not resample kendall-b over items" in (found.note or "")


def test_none_without_ratings_and_a_reason_without_annotators(fresh: None) -> None:
    assert human_ceiling("dailydialog-gupta", "turn", "overall", "pearson") is None
    grade = human_ceiling("grade-convai2", "turn", "relevance", "pearson")
    assert grade is not None and math.isnan(grade.value) and grade.n == 0
    assert "no annotator ids" in (grade.note or "")


def _forest(ceiling: object) -> str:
    values = [0.3, 0.2]
    return forest_html(
        ["a", "b"], values, [0.25, 0.1], [0.35, 0.3], ["1-1", "1-2"], "pearson", ceiling=ceiling
    )


def test_the_forest_plot_draws_the_ceiling_as_a_reference_line(fresh: None) -> None:
    ceiling = human_ceiling("usr-topical", "turn", "overall", "pearson")
    assert ceiling is not None
    page = _forest(ceiling)
    assert f"{LABEL} {ceiling.value:.3f}" in page  # the line's label, as SVG text
    assert "Vertical line: the human ceiling" in page and "360 items" in page
    undefined = module.Ceiling("x", "turn", "q", "pearson", np.nan, np.nan, np.nan, 0, 0, "why")
    assert "No human ceiling line: why." in _forest(undefined)
    assert "ceiling" not in _forest(None)


def test_the_glossary_names_the_method_and_its_sources() -> None:
    assert "mean of the other annotators" in GLOSSARY and "Mehri & Eskenazi" in GLOSSARY
    assert "SODA-EVAL, section 4.2.2" in GLOSSARY and LABEL in GLOSSARY


def test_leaderboard_show_prints_the_ceiling_beside_the_ranking(
    fresh: None, data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    db = str(tmp_path / "lb.sqlite")
    assert main(["leaderboard", "show", "usr-topical", "--db", db, "--create"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    found = human_ceiling("usr-topical", "turn", "overall", "spearman")
    assert found is not None
    shown = f"reference (not ranked): {LABEL}: {found.value:.3f} [{found.ci_low:.3f}, "
    assert shown in out and f"n = {found.n}, {found.annotators} annotators" in out
    assert main(["leaderboard", "show", "usr-topical", "--db", db, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["human_ceiling"]["value"] == pytest.approx(found.value)
