"""Published numbers that ours differ from by more than the tolerance, each with its cause.

Every entry was established on the released data; `comperbench reproduce` marks these cells
`known` and the reproduction tests fail on any other difference, and on an entry no longer used.
"""

from __future__ import annotations

_TWO_SYSTEMS = (
    "two systems: a correlation of two points is always +1 or -1, so the published value says "
    "nothing about the metric; comperbench reports it as undefined (at least 3 systems needed)"
)


def _two_system_cells() -> dict[tuple[str, str], str]:
    cells = {}
    for benchmark in ("grade-dailydialog", "grade-empathetic"):
        for metric in ("BLEU-4", "METEOR", "ROUGE-L"):
            for statistic in ("pearson", "spearman"):
                cells[(benchmark, f"{metric} relevance system {statistic}")] = _TWO_SYSTEMS
    return cells


_ANNOTATORS = (
    "the paper counts the annotators of the whole study (six dialogue researchers); the released "
    "Topical-Chat file names 5 annotators (by initials) and the PersonaChat file 4 (by first "
    "name), and the two id styles cannot be matched, so a per-dataset count cannot reach 6"
)

_PILOT = (
    "the paper takes the test's parameters from data it does not print (its Appendix and, for "
    "MM-SOBA, a pilot of 150-200 turns); "
)

_WIN_TIE = (
    "the paper prints a strict order, but in its Table 4 this system wins as many pairs as the one "
    "ranked just above it ({}); the paper does not say how it broke the tie"
)

KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    **_two_system_cells(),
    ("usr-topical", "annotators"): _ANNOTATORS,
    ("usr-persona", "annotators"): _ANNOTATORS,
    ("usr-persona", "inter-annotator spearman engaging"): (
        "the released ratings give 0.4138 and the paper prints 0.4318: two digits transposed in "
        "the paper (the Pearson cell of the same row agrees to 1e-4)"
    ),
    ("usr-topical", "mean overall, system 'New Human Generated'"): (
        "the released ratings give 4.778; no aggregation we tried gives the printed 4.80 (mean of "
        "ratings, mean of per-item medians, rounded ratings, each annotator left out in turn), "
        "while the other ten cells of the table agree within 0.01: cause not established"
    ),
    ("liu-interactive", "Table 1 turns, PM-SATA"): _PILOT
    + "McNemar's n depends on the share of discordant turns psi = p10 + p01, and 667 at a "
    "difference of 0.1 needs psi = 0.853 (Connor 1987), while two systems selected "
    "independently 0.1 apart give at most psi = 0.505 and 395 turns (ours, rates 0.55 and 0.45)",
    ("liu-interactive", "Table 1 turns, MM-SOBA"): _PILOT
    + "the chi-square's n depends on the pilot's four shares: 430 needs Cohen's w = 0.159, "
    "while one system 0.1 above equal shares (0.35 and 3 x 0.2167) gives w = 0.231 and 205 turns",
    ("liu-interactive", "Table 1 turns, MM-SATA"): _PILOT
    + "Cochran's Q's n depends on the four selection rates and their correlation: one system at "
    "0.6 and three at 0.5, selected independently, give 364 turns, the most any rate gives under "
    "independence, so 445 implies rates or a correlation the paper does not print",
    ("liu-interactive", "Table 6 95% CI low, GPT2M-BST"): (
        "the printed win rate is rounded: 94% of 127 turns is 119 (0.937) or 120 (0.945) "
        "selected; the interval of 120 / 127 is [0.905, 0.984], the printed [0.91, 0.98], while "
        "the rounded rate 0.94 gives 0.899 for the low bound"
    ),
    ("chateval-ncme", "rank by pairwise wins, NCME human 2"): _WIN_TIE.format(
        "7, with NCME human 1"
    ),
    ("chateval-ncme", "rank by pairwise wins, OpenNMT(Twitter)"): _WIN_TIE.format(
        "1, with ConvAI2(seq2seq), as the paper's footnote 15 says"
    ),
}
"""(benchmark, published cell) -> the cause of the difference."""
