"""The old module paths and names of the human evaluation keep working for one release: each
serves the new object with a DeprecationWarning naming the new path."""

from __future__ import annotations

import importlib

import pytest

MOVED = [
    ("comperbench.human.labels", "read_labels", "comperbench.human_io.labels", "read_labels"),
    ("comperbench.human.label_quality", "join_quality", "comperbench.human_io.label_quality", None),
    ("comperbench.human.ratings", "read_ratings", "comperbench.human_io.ratings", None),
    ("comperbench.human.rows", "read_rows", "comperbench.human_io.rows", None),
    ("comperbench.human.selections", "read_selections", "comperbench.human_io.selections", None),
    ("comperbench.human.templates", "render", "comperbench.human_io.templates", None),
    (
        "comperbench.human.vote_counts",
        "read_votes",
        "comperbench.human_io.vote_counts",
        "read_vote_counts",
    ),
    (
        "comperbench.human.vote_counts",
        "votes_table",
        "comperbench.human_io.vote_counts",
        "vote_counts_table",
    ),
    (
        "comperbench.human.vote_counts",
        "comparisons_from_votes",
        "comperbench.human_io.vote_counts",
        "comparisons_from_vote_counts",
    ),
    ("comperbench.human.votes", "read_vote_rows", "comperbench.human_io.vote_rows", None),
    (
        "comperbench.human.votes",
        "agreement_breakdown",
        "comperbench.stats.human.votes.vote_agreement",
        None,
    ),
    (
        "comperbench.human.votes",
        "vote_rows_from_judgments",
        "comperbench.human_io.vote_rows",
        "vote_rows_from_rating_votes",
    ),
    (
        "comperbench.human.vote_agreement",
        "vote_kappa",
        "comperbench.stats.human.votes.vote_agreement",
        None,
    ),
    (
        "comperbench.stats.human_votes.bradley_terry",
        "bradley_terry",
        "comperbench.stats.human.votes.bradley_terry",
        None,
    ),
    (
        "comperbench.stats.human_votes.chateval",
        "ChatEvalScores",
        "comperbench.stats.human.votes.chateval",
        None,
    ),
    (
        "comperbench.stats.human_votes.comparisons",
        "Comparisons",
        "comperbench.stats.human.votes.comparisons",
        None,
    ),
    (
        "comperbench.stats.human_votes.online_ratings",
        "elo",
        "comperbench.stats.human.votes.online_ratings",
        None,
    ),
    (
        "comperbench.stats.human_votes.system_ratings",
        "Ratings",
        "comperbench.stats.human.votes.system_ratings",
        None,
    ),
    (
        "comperbench.stats.human_votes.vote_analysis",
        "analyse",
        "comperbench.stats.human.votes.vote_analysis",
        None,
    ),
    (
        "comperbench.stats.human_votes.vote_analysis",
        "PairwiseAnalysis",
        "comperbench.stats.human.votes.vote_analysis",
        "VoteAnalysis",
    ),
    (
        "comperbench.stats.human_votes.vote_tests",
        "pair_tests",
        "comperbench.stats.human.votes.vote_tests",
        None,
    ),
    (
        "comperbench.stats.human_votes.judgments",
        "pairwise_judgments",
        "comperbench.stats.human.votes.rating_votes",
        "rating_votes",
    ),
    (
        "comperbench.stats.human_votes.judgments",
        "as_comparisons",
        "comperbench.stats.human.votes.rating_votes",
        None,
    ),
    (
        "comperbench.stats.human_eval.dialogue_labels",
        "sensitivity",
        "comperbench.stats.human.judgments.dialogue_labels",
        None,
    ),
    (
        "comperbench.stats.human_eval.issue_detection",
        "detection_table",
        "comperbench.stats.human.judgments.issue_detection",
        None,
    ),
    (
        "comperbench.stats.human_eval.label_analysis",
        "analyse_labels",
        "comperbench.stats.human.judgments.label_analysis",
        None,
    ),
    (
        "comperbench.stats.human_eval.predictive_validity",
        "stepwise",
        "comperbench.stats.human.judgments.predictive_validity",
        None,
    ),
    (
        "comperbench.stats.human_eval.rating_analysis",
        "analyse_ratings",
        "comperbench.stats.human.judgments.rating_analysis",
        None,
    ),
    (
        "comperbench.stats.human_eval.selection_analysis",
        "analyse_selections",
        "comperbench.stats.human.judgments.selection_analysis",
        None,
    ),
    (
        "comperbench.stats.human_eval.selection_effects",
        "cascading",
        "comperbench.stats.human.judgments.selection_effects",
        None,
    ),
    (
        "comperbench.stats.human_eval.single_response",
        "wald_interval",
        "comperbench.stats.human.judgments.single_response",
        None,
    ),
    ("comperbench.stats.planning.plan", "SETTINGS", "comperbench.stats.human.planning.plan", None),
    (
        "comperbench.stats.planning.power",
        "binomial_power",
        "comperbench.stats.human.planning.power",
        None,
    ),
]


@pytest.mark.parametrize(("old", "name", "new", "new_name"), MOVED)
def test_an_old_name_serves_the_new_object_with_a_warning(
    old: str, name: str, new: str, new_name: str | None
) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{new}.{new_name or name}"):
        served = getattr(module, name)
    assert served is getattr(importlib.import_module(new), new_name or name)


@pytest.mark.parametrize("old", sorted({m[0] for m in MOVED}))
def test_an_old_module_refuses_a_name_it_never_had(old: str) -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module(old).no_such_name  # noqa: B018


def test_from_import_of_an_old_path_works_and_warns() -> None:
    with pytest.warns(DeprecationWarning, match="comperbench.stats.human.judgments"):
        from comperbench.stats.human_eval.issue_detection import Detection
    assert Detection.__module__ == "comperbench.stats.human.judgments.issue_detection"


def test_every_old_package_path_is_covered() -> None:
    packages = {old.rsplit(".", 1)[0] for old, *_ in MOVED}
    assert packages == {
        "comperbench.human",
        "comperbench.stats.human_votes",
        "comperbench.stats.human_eval",
        "comperbench.stats.planning",
    }
    assert all(importlib.import_module(p).__doc__.startswith("Moved to") for p in packages)


def test_a_renamed_name_is_not_served_under_its_old_name_by_the_new_module() -> None:
    new = importlib.import_module("comperbench.human_io.vote_counts")
    assert not hasattr(new, "read_votes")
