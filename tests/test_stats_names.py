"""The public names of comperbench.stats: one table of exports, old paths kept with a warning."""

from __future__ import annotations

import ast
import importlib
import inspect
import warnings
from pathlib import Path

import pytest

import comperbench.stats as stats

INIT = Path(stats.__file__)


def _type_checking_imports() -> dict[str, tuple[str, ...]]:
    tree = ast.parse(INIT.read_text())
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    found: dict[str, tuple[str, ...]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module
        found[node.module.removeprefix("comperbench.stats.")] = tuple(a.name for a in node.names)
    return found


def test_the_type_checking_imports_are_the_exports() -> None:
    expected = {module: tuple(sorted(names)) for module, names in stats.EXPORTS.items()}
    found = {module: tuple(sorted(names)) for module, names in _type_checking_imports().items()}
    assert found == expected


def test_every_export_is_defined_where_the_table_says() -> None:
    for module, names in stats.EXPORTS.items():
        home = importlib.import_module(f"comperbench.stats.{module}")
        for name in names:
            assert getattr(stats, name) is getattr(home, name)
    assert sorted(stats.__all__) == sorted(n for names in stats.EXPORTS.values() for n in names)


def test_the_names_of_the_first_readme_import_without_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from comperbench.stats import soft_pairwise_accuracy, system_unit_matrix

    assert callable(soft_pairwise_accuracy) and callable(system_unit_matrix)


def test_an_old_name_of_the_package_warns_and_serves_the_new_one() -> None:
    with pytest.warns(DeprecationWarning, match="use comperbench.stats.permutation_test"):
        old = stats.pairwise_permutation
    assert old is stats.permutation_test


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("metric_comparison.significance", "metric_tests.significance", "perm_both"),
        ("metric_comparison.verdicts", "metric_tests.verdicts", "metric_verdicts"),
        ("metric_comparison.sequential", "metric_tests.sequential", "sequential_p"),
        ("metric_comparison.context_tests", "metric_tests.context_tests", "ContextUnits"),
        ("pair_ranking.pairwise_accuracy", "pair_ranking.pair_accuracy", "point"),
        ("pair_ranking.pairwise_difference", "pair_ranking.pair_difference", "grouped_resampled"),
    ],
)
def test_a_moved_module_serves_its_names_with_a_warning(old: str, new: str, name: str) -> None:
    old_module = importlib.import_module(f"comperbench.stats.{old}")
    new_module = importlib.import_module(f"comperbench.stats.{new}")
    with pytest.warns(DeprecationWarning, match=f"use comperbench.stats.{new}.{name}"):
        assert getattr(old_module, name) is getattr(new_module, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        old_module.nothing  # noqa: B018


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("metric_tests.significance", "pairwise_permutation", "permutation_test"),
        (
            "metric_correlation.statistics",
            "PAIRWISE_DIFFERENCE_PEARSON",
            "PAIR_DIFFERENCE_PEARSON",
        ),
    ],
)
def test_a_renamed_name_warns_and_serves_the_new_one(module: str, old: str, new: str) -> None:
    home = importlib.import_module(f"comperbench.stats.{module}")
    with pytest.warns(DeprecationWarning, match=f"use comperbench.stats.{module}.{new}"):
        assert getattr(home, old) is getattr(home, new)


def test_every_public_function_documents_its_arguments_and_what_it_returns() -> None:
    undocumented = []
    for name in stats.__all__:
        found = getattr(stats, name)
        if inspect.isclass(found):
            if not (found.__doc__ or "").strip():
                undocumented.append(name)
            continue
        if not inspect.isfunction(found):
            continue
        doc = found.__doc__ or ""
        needs = ["Returns:"] + (["Args:"] if inspect.signature(found).parameters else [])
        if any(part not in doc for part in needs):
            undocumented.append(name)
    assert undocumented == []


def test_the_old_attributes_of_a_statistic_warn_and_read_its_capabilities() -> None:
    spa, acc = stats.get_statistic("spa"), stats.get_statistic("acc-eq")
    with pytest.warns(DeprecationWarning, match=r"Statistic.over_contexts is deprecated"):
        assert spa.over_contexts is spa.capability(stats.OverContexts)
    with pytest.warns(DeprecationWarning, match=r"use Statistic.capability\(OnScores\)"):
        assert spa.analytic is None
    with pytest.warns(DeprecationWarning, match="pair_verdicts_fn is deprecated"):
        assert acc.pair_verdicts_fn is acc.capability(stats.PairVerdicts).verdicts
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        acc.nothing  # noqa: B018


def test_a_statistic_says_what_it_lacks_in_one_line() -> None:
    spa, pearson = stats.get_statistic("spa"), stats.get_statistic("pearson")
    assert stats.supports("spa", "over_contexts") and not stats.supports(pearson, "over_contexts")
    assert not spa.supports("scores") and not spa.supports("grouped")
    with pytest.raises(ValueError, match="spa is computed over systems x contexts matrices"):
        spa.value([1.0, 2, 3], [1.0, 3, 2])
    with pytest.raises(ValueError, match="pearson is not a sum of verdicts on pairs of items"):
        stats.permutation_test([1.0, 2, 3], [1.0, 3, 2], [1.0, 2, 2], statistic="pearson")
    with pytest.raises(ValueError, match="unknown capability 'groups'"):
        pearson.supports("groups")
    with pytest.raises(ValueError, match="declares a capability twice"):
        stats.Statistic("twice", "Twice", (stats.Grouped(len), stats.Grouped(len)))
