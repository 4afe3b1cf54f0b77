"""The public names of the package: every name listed here stays importable from where it is, so
a regrouping of modules never changes what user code imports."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = {
    "comperbench": [
        "Benchmark",
        "Evaluation",
        "__version__",
        "evaluate",
        "get_metadata",
        "list_benchmarks",
        "load_benchmark",
    ],
    "comperbench.cli": ["build_parser", "main"],
    "comperbench.leaderboard": ["Submission", "SubmissionError", "SubmissionMeta"],
    "comperbench.loaders": ["BENCHMARKS", "BenchmarkLoader"],
    "comperbench.metrics": [
        "METRICS",
        "DialogueItem",
        "Item",
        "Metric",
        "MetricResult",
        "TurnItem",
        "available",
        "get",
        "register_metric",
    ],
    "comperbench.stats": [
        "CORRELATIONS",
        "MT_METRICS_EVAL",
        "AgreementResult",
        "Averaging",
        "Conventions",
        "CorrelationResult",
        "EarlyStopping",
        "Interval",
        "Point",
        "Signature",
        "SignificanceMatrix",
        "SoftPairwiseAccuracy",
        "Statistic",
        "SystemContexts",
        "TestResult",
        "agreement",
        "assign_ranks",
        "benchmark_tag",
        "bootstrap_note",
        "correlate",
        "correlation_table",
        "get_statistic",
        "kendall_like_statistic",
        "paired_bootstrap",
        "permutation_test",
        "perm_both",
        "point_correlation",
        "register_statistic",
        "registered_statistics",
        "significance_matrix",
        "soft_pairwise_accuracy",
        "statistic_names",
        "system_unit_matrix",
        "williams_test",
    ],
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_public_names_stay_importable(package: str) -> None:
    module = importlib.import_module(package)
    missing = [name for name in PUBLIC[package] if not hasattr(module, name)]
    assert not missing, f"{package} no longer offers {missing}"


@pytest.mark.parametrize("package", sorted(set(PUBLIC) - {"comperbench.cli"}))
def test_public_names_stay_in_all(package: str) -> None:
    """`from package import *` still brings every public name, and nothing `__all__` names is
    missing (the console script's package has no `__all__`)."""
    module = importlib.import_module(package)
    listed = module.__all__
    assert not set(PUBLIC[package]) - set(listed), f"{package}.__all__ lost names"
    assert all(hasattr(module, name) for name in listed), f"{package}.__all__ names a ghost"


def test_console_script_resolves() -> None:
    """The entry point pyproject.toml installs as `comperbench` names a callable that exists."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, attribute = scripts["comperbench"].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))
