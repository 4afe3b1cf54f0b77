"""The HTML reports of `compare --report` and `human votes --report`, written to new files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from comperbench.common.outputs import write_new_file
from comperbench.common.textutil import interval, number, p_value
from comperbench.report.html import figure, lines, page, section, table, verdicts_part

if TYPE_CHECKING:
    from comperbench.stats.human.votes.vote_analysis import VoteAnalysis
    from comperbench.stats.metric_correlation.correlation import CorrelationResult
    from comperbench.stats.metric_tests.verdicts import Verdicts

_CORRECTED = {"holm": "Holm-adjusted p", "bh": "Benjamini-Hochberg-adjusted p", "none": "p"}


def write_comparison_report(
    path: str | Path,
    header: Sequence[tuple[str, str]],
    correlations: list[CorrelationResult],
    method: str,
    verdicts: Verdicts | None,
) -> None:
    """`compare --report`: the correlations and the verdicts between the metrics."""
    rows = [
        [
            r.metric,
            r.n,
            number(r.value),
            interval(r.ci.low, r.ci.high) if r.ci else "-",
            p_value(r.p_value),
            "; ".join(note for note in (r.reason, r.ci_note) if note),
        ]
        for r in correlations
    ]
    parts = [table(["metric", "n", method, "95% CI", "p", "note"], rows)]
    sections = [section("Correlations", *parts)]
    signatures = [correlations[0].signature] if correlations else []
    if verdicts is not None:
        caption = f"{verdicts.test.upper()} on {method}, on the items every metric scored."
        sections.append(
            section("Which metric is better?", verdicts_part(verdicts, method, caption))
        )
        signatures.append(verdicts.matrix.signature)
    sections.append(section("Signatures", lines(signatures, "mono")))
    write_new_file(path, page(f"Comparison of metrics: {method}", header, sections))


def write_votes_report(path: str | Path, result: VoteAnalysis, about: str) -> None:
    """`human votes --report`: the win/tie/loss counts, each rating (or the win rates) as a
    forest plot, and the heatmap of the pairwise sign tests' p-values."""
    from comperbench.report.figures import forest_plot, p_value_heatmap

    wtl = result.win_tie_loss.sort_values("win_rate", ascending=False)
    counts = [
        [s, int(r["wins"]), int(r["ties"]), int(r["losses"]), number(r["win_rate"])]
        for s, r in wtl.iterrows()
    ]
    sections = [section("Votes", table(["system", "wins", "ties", "losses", "win rate"], counts))]
    figures = []
    for name, rated in result.ratings.items():
        t = rated.table
        ranks = [
            f"rank {int(a)}-{int(b)}" if pd.notna(a) else "rank -"
            for a, b in zip(t["rank_low"], t["rank_high"], strict=True)
        ]
        labels = [str(s) for s in t.index]
        if rated.grouped:  # groups never compared with each other: ranked within each group
            labels = [f"{s} (group {g})" for s, g in zip(labels, t["group"], strict=True)]
        chart = forest_plot(
            labels,
            t["rating"].to_numpy(dtype=float),
            t["low"].to_list(),
            t["high"].to_list(),
            xlabel=f"{name} rating, 95% bootstrap interval",
            title=name,
            rank_ranges=ranks,
        )
        caption = f"{name}: rating, interval and 95% rank range."
        figures.append(figure(chart, f"{caption} {rated.note}." if rated.note else caption))
    if not figures:
        chart = forest_plot(
            [str(s) for s in wtl.index],
            wtl["win_rate"].to_numpy(dtype=float),
            [None] * len(wtl),
            [None] * len(wtl),
            xlabel="win rate",
            title="Win rates",
        )
        figures.append(figure(chart, "Win rates; no rating is defined on these votes."))
    undefined = [f"{name} is undefined here: {reason}" for name, reason in result.undefined.items()]
    sections.append(section("Ratings", *figures, lines(undefined)))
    label = _CORRECTED[result.correction]
    systems, matrix = _pair_matrix(result.pairs, "sign_p_adjusted")
    chart = p_value_heatmap(
        systems, matrix, colorbar_label=f"sign test, {label}", title="Every pair of systems"
    )
    caption = f"Two-sided sign test of every pair of systems ({label}); ties left out."
    sections.append(section("Pairs", figure(chart, caption), _chateval_figure(result)))
    signatures = [rated.signature for rated in result.ratings.values()]
    sections.append(section("Signatures", lines(signatures, "mono")))
    write_new_file(path, page("Pairwise preferences", [("votes", about)], sections))


def _chateval_figure(result: VoteAnalysis) -> str:
    """The ChatEval paper's Figure 2 layout: rows the winners, columns the losers, both by system
    win count; coloured by the Major score, the Distinct score written in each cell."""
    from comperbench.report.figures import heatmap

    scores = result.chateval
    systems = [str(s) for s in scores.ranking.index]
    distinct = scores.matrix("distinct").to_numpy()
    text = [["" if np.isnan(d) else f"{d:.2f}" for d in row] for row in distinct]
    chart = heatmap(
        scores.matrix("major").to_numpy(),
        systems,
        systems,
        cell_text=text,
        colorbar_label="Major score of the row against the column",
        vmin=0.0,
        vmax=1.0,
        cmap="RdBu",
        title="ChatEval scores",
    )
    caption = (
        "Each system (row) against each opponent (column), ordered by system win count: colour "
        "the Major score wins / (wins + losses), text the Distinct score wins / (wins + losses "
        "+ ties) (Lee et al., section 2.2 and Figure 2); grey where they never met or only tied."
    )
    return figure(chart, caption)


def _pair_matrix(pairs: pd.DataFrame, column: str) -> tuple[list[str], np.ndarray]:
    """The systems and the symmetric matrix of one p-value column of the pair tests."""
    systems = sorted({*pairs["system_a"], *pairs["system_b"]})
    where = {s: i for i, s in enumerate(systems)}
    matrix = np.full((len(systems), len(systems)), np.nan)
    for a, b, p in zip(pairs["system_a"], pairs["system_b"], pairs[column], strict=True):
        matrix[where[a], where[b]] = matrix[where[b], where[a]] = p
    return systems, matrix
