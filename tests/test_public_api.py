"""The public names of the package: every name listed here stays importable from where it is, so
a regrouping of modules never changes what user code imports."""

from __future__ import annotations

import importlib
import inspect
import tomllib
import warnings
from pathlib import Path
from typing import Any

import pytest

import comperbench
from comperbench.common.errors import ComperbenchError

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = {
    "comperbench": [
        "Benchmark",
        "Evaluation",
        "Resampling",
        "RunOptions",
        "__version__",
        "evaluate",
        "get_metadata",
        "list_benchmarks",
        "load_benchmark",
    ],
    "comperbench.cli": ["build_parser", "main"],
    "comperbench.evaluation": [
        "Evaluation",
        "EvaluationPlan",
        "EvaluationTable",
        "GivenScores",
        "ProtocolGroup",
        "RunOptions",
        "default_statistics",
        "evaluate",
        "evaluate_run",
        "plan_evaluation",
        "run_plan",
        "table_document",
    ],
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


TOP_LEVEL = [
    "Benchmark",
    "Evaluation",
    "Resampling",
    "RunOptions",
    "__version__",
    "evaluate",
    "get_metadata",
    "list_benchmarks",
    "load_benchmark",
]


def test_dir_shows_the_public_names_only() -> None:
    assert dir(comperbench) == sorted(set(TOP_LEVEL))


@pytest.mark.parametrize("function", ["evaluate", "plan_evaluation"])
def test_evaluate_takes_at_most_ten_parameters(function: str) -> None:
    parameters = inspect.signature(getattr(comperbench.evaluation, function)).parameters
    assert len(parameters) <= 10, list(parameters)
    assert "resampling" in parameters and "resamples" not in parameters


NO_DEPRECATION = "error:.*is deprecated; use:DeprecationWarning"


@pytest.fixture(scope="module")
def persona(data_root: Path) -> comperbench.Benchmark:
    return comperbench.load_benchmark("usr-persona", data_dir=data_root)


@pytest.fixture(scope="module")
def quick(persona: comperbench.Benchmark) -> comperbench.Evaluation:
    with warnings.catch_warnings():
        warnings.filterwarnings("error", ".*is deprecated; use", DeprecationWarning)
        resampling = comperbench.Resampling(resamples=20, seed=3)
        return comperbench.evaluate(persona, ["length", "bleu-2"], resampling=resampling)


def test_the_new_spelling_warns_nothing(quick: comperbench.Evaluation) -> None:
    assert quick.plan.resampling.resamples == 20 and quick.plan.protocol
    assert [row["metric"] for row in quick.table.rows] == ["length", "bleu-2"]


OLD_KEYWORDS: list[tuple[str, Any, str]] = [
    ("resamples", 20, "resampling=Resampling(resamples=...)"),
    ("seed", 3, "resampling=Resampling(seed=...)"),
    ("ci", "percentile", "resampling=Resampling(ci=...)"),
    ("conventions", "comperbench", "resampling=Resampling(conventions=...)"),
    ("all_systems", False, "protocol=False"),
    ("exclude_systems", (), "benchmark.without_systems([...])"),
    ("sample_seed", 0, "benchmark.sample(n, seed)"),
    ("judge_options", {}, "resolve_metrics(names, level, judge_options)"),
    ("cache", True, "run=RunOptions(cache=...)"),
    ("batch_size", 256, "run=RunOptions(batch_size=...)"),
    ("workers", None, "run=RunOptions(workers=...)"),
    ("scheduler", None, "run=RunOptions(scheduler=...)"),
    ("reference_free", False, "scores=GivenScores(scores, reference_free=True)"),
]


@pytest.mark.parametrize(("key", "value", "new"), OLD_KEYWORDS, ids=[k[0] for k in OLD_KEYWORDS])
def test_each_old_keyword_warns_with_its_new_spelling_and_gives_the_same_table(
    key: str, value: Any, new: str, persona: comperbench.Benchmark, quick: comperbench.Evaluation
) -> None:
    """An old keyword whose value is what the new spelling says gives the same table."""
    given: dict[str, Any] = {"resampling": comperbench.Resampling(resamples=20, seed=3)}
    given |= {key: value}
    with pytest.warns(DeprecationWarning, match=rf"^evaluate\({key}=\.\.\.\) is deprecated"):
        found = comperbench.evaluate(persona, ["length", "bleu-2"], **given)
    with pytest.warns(DeprecationWarning) as caught:
        comperbench.evaluate(persona, ["length"], **given)
    assert new in str(caught[0].message)
    assert found.document()["rows"] == quick.document()["rows"]
    assert found.plan.settings() == quick.plan.settings()


def test_old_selection_keywords_select_as_the_benchmark_does(
    data_root: Path, persona: comperbench.Benchmark
) -> None:
    quick = comperbench.Resampling(resamples=0)
    old = {"data_dir": data_root, "resamples": 0}
    cases = [
        ({"sample": 30, "sample_seed": 2}, persona.sample(30, 2)),
        ({"limit": 25}, persona.head(25)),
        ({"exclude_systems": ["Seq2Seq"], "split": "test"}, persona.without_systems(["Seq2Seq"])),
    ]
    for keywords, selected in cases:
        with pytest.warns(DeprecationWarning, match="is deprecated; use"):
            found = comperbench.evaluate("usr-persona", ["length"], **old, **keywords)
        expected = comperbench.evaluate(selected, ["length"], resampling=quick)
        assert found.benchmark.tag == expected.benchmark.tag
        assert found.document()["rows"] == expected.document()["rows"]
    with pytest.warns(DeprecationWarning) as caught:
        every = comperbench.evaluate(persona, ["bleu-2"], all_systems=True, resamples=0)
    assert "evaluate(all_systems=...) is deprecated; use protocol=False" in str(caught[0].message)
    assert not every.plan.protocol and every.table.rows[0]["n"] == 300


def test_old_judge_options_build_the_judges_and_are_recorded(persona: comperbench.Benchmark):
    options = {"judge_model": "http:some-model", "judge_concurrency": "2"}
    with pytest.warns(DeprecationWarning, match=r"judge_options=\.\.\.\) is deprecated"):
        plan = comperbench.evaluation.plan_evaluation(
            persona, ["cpdscore-simple", "length"], judge_options=options
        )
    assert plan.judge_options == options
    assert plan.metrics[0].name.startswith("cpdscore-simple[http:some-model")
    assert plan.metrics[1].name == "length"


def test_the_warning_points_at_the_caller(persona: comperbench.Benchmark) -> None:
    with pytest.warns(DeprecationWarning) as caught:
        comperbench.evaluation.plan_evaluation(persona, ["length"], resamples=0)
    assert caught[0].filename == __file__


def test_old_run_plan_keywords_warn(persona: comperbench.Benchmark) -> None:
    plan = comperbench.evaluation.plan_evaluation(
        persona, ["length"], resampling=comperbench.Resampling(resamples=0)
    )
    with pytest.warns(DeprecationWarning, match=r"^run_plan\(cache=\.\.\.\) is deprecated"):
        found = comperbench.evaluation.run_plan(plan, cache=False)
    assert found.result.runs[0].cached == 0


@pytest.mark.parametrize(
    ("function", "key", "hint"),
    [
        ("evaluate", "resample", "; did you mean resampling=?"),
        ("evaluate", "statistic", "; did you mean statistics=?"),
        ("plan_evaluation", "levle", "; did you mean level=?"),
        ("run_plan", "runs", "; did you mean run=?"),
        ("evaluate", "zzz", ""),
    ],
)
def test_a_misspelled_keyword_is_one_line_naming_the_closest(
    function: str, key: str, hint: str
) -> None:
    with pytest.raises(ComperbenchError) as error:
        getattr(comperbench.evaluation, function)("usr-persona", **{key: 1})
    assert str(error.value) == f"{function}() takes no keyword {key}={hint}"


def test_repr_is_a_few_short_lines_and_html_a_small_table(quick: comperbench.Evaluation) -> None:
    text = repr(quick)
    lines = text.splitlines()
    assert len(lines) <= 5 and len(text) < 400, text
    assert lines[0].startswith("Evaluation of usr-persona@") and "turn level" in lines[0]
    assert "aspect overall" in lines[0]
    assert lines[1] == "  metrics: length, bleu-2"
    assert lines[2] == "  statistics: pearson, spearman, kendall-b"
    pearson = {row["metric"]: row["pearson"] for row in quick.table.rows}
    assert lines[3] == f"  pearson: length {pearson['length']:.3f}, bleu-2 {pearson['bleu-2']:.3f}"
    page = quick._repr_html_()
    assert page.startswith("<table><caption>usr-persona@") and page.endswith("</table>")
    assert page.count("<tr>") == 3 and "<td>bleu-2</td>" in page
    assert f"<td>{pearson['length']:.3f}</td>" in page


def test_report_replaces_a_page_only_when_asked(
    quick: comperbench.Evaluation, tmp_path: Path
) -> None:
    page = tmp_path / "report.html"
    page.write_text("old")
    with pytest.raises(ComperbenchError, match="exists; choose another name"):
        quick.report(page)
    assert page.read_text() == "old"
    assert quick.report(page, overwrite=True) == page and "<svg" in page.read_text()


@pytest.mark.parametrize(
    ("old_module", "name", "new_module"),
    [
        ("comperbench.results", "evaluate", "comperbench.evaluation"),
        ("comperbench.results", "Evaluation", "comperbench.evaluation"),
        ("comperbench.results", "plan_evaluation", "comperbench.evaluation"),
        ("comperbench.explanations", "explanation_columns", "comperbench.evaluation.judges"),
        (
            "comperbench.stats.metric_correlation.explanation_agreement",
            "explanation_agreement",
            "comperbench.evaluation.explanation_agreement",
        ),
    ],
)
def test_old_module_paths_warn_and_serve_the_same_object(
    old_module: str, name: str, new_module: str
) -> None:
    old = importlib.import_module(old_module)
    with pytest.warns(DeprecationWarning, match=rf"^{old_module}\.{name} is deprecated; use "):
        found = getattr(old, name)
    assert found is getattr(importlib.import_module(new_module), name)
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018


def test_the_old_evaluation_module_names_come_from_the_package_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        from comperbench.evaluation import EvaluationTable, default_statistics, evaluate_run

    assert callable(evaluate_run) and EvaluationTable.__name__ == "EvaluationTable"
    assert default_statistics() == ("pearson", "spearman", "kendall-b")


def test_the_evaluation_names_no_benchmark() -> None:
    """Per-benchmark reports come from the hooks the loaders register: no module of the
    evaluation package imports a loader."""
    folder = ROOT / "comperbench" / "evaluation"
    importing = [p.name for p in folder.glob("*.py") if "comperbench.loaders" in p.read_text()]
    assert not importing
    from comperbench.benchmark_hooks import NO_HOOKS, hooks_of

    comperbench.get_metadata("soda-eval")  # its loader registers its hooks
    assert hooks_of("soda-eval").explained_by == "GPT-4"
    assert hooks_of("usr-persona") is NO_HOOKS


def test_evaluate_run_takes_its_old_keywords_with_a_warning(
    quick: comperbench.Evaluation,
) -> None:
    from comperbench.evaluation import evaluate_run

    result, grouped = quick.result, comperbench.Resampling(20, 3)
    expected = evaluate_run(result, "overall", resampling=grouped, protocol=False).rows
    with pytest.warns(DeprecationWarning) as caught:
        found = evaluate_run(result, "overall", n_resamples=20, seed=3, apply_protocol=False)
    assert found.rows == expected
    messages = [str(w.message) for w in caught]
    assert messages[0].startswith("evaluate_run(n_resamples=...) is deprecated; use resampling=")
    assert any(
        "evaluate_run(apply_protocol=...) is deprecated; use protocol=" in m for m in messages
    )
    with pytest.warns(DeprecationWarning):
        no_interval = evaluate_run(result, "overall", ci=None).rows[0]
    assert no_interval["pearson_ci"] is None


def test_the_plans_old_attributes_warn(quick: comperbench.Evaluation) -> None:
    plan = quick.plan
    with pytest.warns(DeprecationWarning, match=r"^EvaluationPlan\.resamples is deprecated; use "):
        assert plan.resamples == 20
    with pytest.warns(DeprecationWarning, match="use EvaluationPlan.protocol"):
        assert plan.apply_protocol is True
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        plan.nope  # noqa: B018
