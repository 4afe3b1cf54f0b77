"""Progress off a terminal: plain lines at intervals with counts and an estimate of what is left."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from comperbench import load_benchmark
from comperbench.common import progress
from comperbench.metrics import get
from comperbench.metrics.runner import run_metrics
from comperbench.stats.metric_correlation.correlation import correlate
from comperbench.stats.settings import Resampling


def test_plain_progress_lines_say_counts_and_time_left(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with progress.PlainProgress(4, "bleu-4", every=0.0) as bar:
        bar.update(1)
        bar.update(3)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("bleu-4: 1/4 items (25%), elapsed 0 s, about 0 s left")
    assert lines[-1].startswith("bleu-4: 4/4 items (100%), elapsed")
    assert "left" not in lines[-1]


def test_a_quiet_run_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress.PlainProgress(4, "fast") as bar:  # done well inside one interval
        bar.update(4)
    assert capsys.readouterr().err == ""


def test_durations_and_estimates() -> None:
    assert progress.duration(42) == "42 s"
    assert progress.duration(210) == "3.5 min"
    assert progress.duration(4320) == "1.2 h"
    assert progress.eta_text(1, 4, 30) == "elapsed 30 s, about 1.5 min left"
    assert progress.eta_text(0, 4, 3) == "elapsed 3 s"


def test_scoring_off_a_terminal_shows_progress(
    data_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "PLAIN_EVERY_S", 0.0)
    run_metrics(load_benchmark("usr-persona", data_dir=data_root), [get("length")], cache=None)
    lines = capsys.readouterr().err.splitlines()  # 278 distinct responses among 300 items
    assert lines[-1].startswith("length: 278/278 items (100%), elapsed")
    assert len(lines) == len(set(lines))


def test_constant_scores_raise_no_scipy_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for statistic in ("pearson", "spearman", "kendall-b"):
            result = correlate(
                np.ones(6), np.arange(6.0), statistic=statistic, resampling=Resampling(10)
            )
            assert np.isnan(result.value)
