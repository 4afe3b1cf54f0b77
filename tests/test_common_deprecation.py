"""Old keywords and module paths keep working with a warning; unknown keywords get one line."""

from __future__ import annotations

import pytest

from comperbench.common.deprecation import moved_names, renamed_keywords
from comperbench.common.errors import ComperbenchError
from comperbench.stats.settings import Resampling


@renamed_keywords(n_resamples="resamples")
def _draw(values: list[int], *, resamples: int = 10) -> int:
    return len(values) * resamples


def test_an_old_keyword_is_accepted_with_a_warning_naming_the_new_one() -> None:
    with pytest.warns(
        DeprecationWarning, match=r"_draw\(n_resamples=\.\.\.\) is deprecated; use resamples="
    ):
        assert _draw([1, 2], n_resamples=3) == 6
    assert _draw([1, 2], resamples=4) == 8


def test_old_and_new_keyword_together_are_refused() -> None:
    with pytest.raises(ComperbenchError, match="got both n_resamples= and resamples="):
        _draw([1], n_resamples=3, resamples=4)


def test_a_misspelled_keyword_names_the_closest_parameter_in_one_line() -> None:
    with pytest.raises(ComperbenchError) as caught:
        _draw([1], resample=3)
    assert str(caught.value) == "_draw() takes no keyword resample=; did you mean resamples=?"


def test_a_moved_name_is_served_from_its_new_module_with_a_warning() -> None:
    getter = moved_names("comperbench.old", {"Resampling": "comperbench.stats.settings"})
    with pytest.warns(DeprecationWarning, match="comperbench.old.Resampling is deprecated"):
        assert getter("Resampling") is Resampling
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        getter("nothing")


def test_resampling_checks_its_fields_and_names_its_conventions() -> None:
    resampling = Resampling(resamples=0, conventions="mt-metrics-eval")
    assert resampling.interval is None
    assert resampling.settings()["conventions"] == "mt-metrics-eval"
    assert Resampling().settings() == {
        "resamples": 1000,
        "seed": 0,
        "ci": "percentile",
        "conventions": "comperbench",
    }
    for bad, message in [
        ({"resamples": -1}, "0 or more"),
        ({"resamples": 1.5}, "whole number"),
        ({"seed": True}, "whole number"),
        ({"ci": "basic"}, "ci must be one of percentile, bca"),
        ({"conventions": "wmt"}, "unknown conventions 'wmt'"),
    ]:
        with pytest.raises(ComperbenchError, match=message):
            Resampling(**bad)
