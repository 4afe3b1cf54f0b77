"""One statistical setting: the commands' defaults and the leaderboard's scoring are the same."""

from __future__ import annotations

import inspect

from comperbench.cli import build_parser
from comperbench.leaderboard import scoring
from comperbench.stats.settings import SETTINGS


def test_commands_and_leaderboard_share_the_setting() -> None:
    parser = build_parser()
    compare = parser.parse_args(["compare", "--benchmark", "usr-topical", "--metrics", "f1"])
    evaluate = parser.parse_args(["evaluate", "--benchmark", "usr-topical", "--metrics", "f1"])
    assert (compare.seed, compare.resamples) == (SETTINGS.seed, SETTINGS.resamples)
    assert (compare.test, compare.correction, compare.alpha) == (
        SETTINGS.test,
        SETTINGS.correction,
        SETTINGS.alpha,
    )
    assert (evaluate.seed, evaluate.resamples) == (SETTINGS.seed, SETTINGS.resamples)
    assert (
        SETTINGS.seed,
        SETTINGS.resamples,
        SETTINGS.confidence,
    ) == (scoring.SEED, scoring.N_RESAMPLES, scoring.CONFIDENCE)
    from comperbench.stats.metric_tests.verdicts import metric_verdicts

    verdicts = inspect.signature(metric_verdicts).parameters
    assert (verdicts["alpha"].default, verdicts["correction"].default) == (
        SETTINGS.alpha,
        SETTINGS.correction,
    )
    assert verdicts["resampling"].default.seed == SETTINGS.seed


def test_the_setting_is_described_in_one_sentence() -> None:
    assert SETTINGS.describe() == (
        "95% percentile bootstrap intervals over 1000 resamples (seed 0, shared by every "
        "metric, so comparisons are paired); metrics compared by PERM-BOTH with Holm "
        "(family-wise error rate) correction at alpha = 0.05"
    )
