"""Published correlations and dataset facts that reproduction tests compare comperbench against.

Every value below was read in the source named in its `source` field; cells that could not be
read are absent rather than guessed. Sources:

- USR (Mehri & Eskenazi, ACL 2020): Tables 1-6. The tables were read in a third-party
  transcription of the ACL Anthology PDF; the released USR data reproduce every correlation cell
  used here (Tables 3-6 to the printed four decimals, up to 1e-4 for one Spearman value), which
  also fixes which column is Pearson and which is Spearman (see `USR_COLUMN_NOTE`).
- Yeh, Eskenazi & Mehri (2021), "A Comprehensive Assessment of Dialog Evaluation Metrics": the
  result tables of its release, exe1023/DialEvalMetrics `README.md` (commit 1cddf5c). Values are
  rounded to 3 decimals there (`np.round(r, 3)` in `data/*/human_correlation.py`); p-values are
  not printed, only a `*` on values that are not significant at p < 0.05. The released USR and
  GRADE data reproduce every n-gram cell used here.
- ComperDial (Wakaki et al., arXiv 2406.11228) and Soda-Eval (Mendonça, Trancoso & Lavie,
  Findings of EMNLP 2024): counts from the abstracts and the Hugging Face dataset cards; their
  correlation and agreement tables are in `seed_tables.py`.

How the n-gram metrics of these tables are computed (what a reproduction must match): one
reference per response; BLEU-n is pycocoevalcap's `Bleu(4)` (whitespace split, no lowercasing,
cumulative uniform weights, brevity penalty against the closest reference length, and the
1e-15 / 1e-9 epsilons of `bleu_scorer.py` instead of smoothing, so a BLEU-4 with no matching
4-gram is tiny but not 0); METEOR is the Java METEOR 1.5 (`-l en -norm`); ROUGE-L is
pycocoevalcap's LCS F-measure with beta = 1.2 over a split on single spaces. Yeh et al. call them
through Maluuba's nlg-eval (`NLGEval.compute_individual_metrics([ref], hyp)` in
`baseline_metric.py`); the USR paper's numbers are identical.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from comperbench.benchmark import get_metadata

__all__ = [
    "CORRELATIONS",
    "FACTS",
    "USR_COLUMN_NOTE",
    "PublishedCorrelation",
    "PublishedFact",
]


@dataclass(frozen=True)
class PublishedCorrelation:
    """One published correlation between an automatic metric and a human score."""

    benchmark: str  # comperbench name, e.g. "usr-topical"
    aspect: str  # comperbench aspect key
    level: str  # "turn" | "system" | "dialogue"
    statistic: str  # "pearson" | "spearman" | "kendall-b"
    metric: str  # the metric as the paper names it, e.g. "BLEU-4", "METEOR", "ROUGE-L"
    value: float
    p_value: float | None  # as printed, None if not printed
    source: str  # paper, table, row and column
    note: str = ""  # protocol, pooling, rounding, significance marks
    table: str = ""  # the table (and block) when one cell name occurs in several tables


@dataclass(frozen=True)
class PublishedFact:
    """A published count or agreement figure of a benchmark."""

    benchmark: str
    quantity: str  # e.g. "turn-level items", "dialogues", "krippendorff-alpha turn"
    value: float
    source: str
    note: str = ""


# --------------------------------------------------------------------------------------------
# USR (Mehri & Eskenazi, ACL 2020)
# --------------------------------------------------------------------------------------------

_USR = "Mehri & Eskenazi (ACL 2020)"
_USR_READ = "Read in a third-party transcription of the ACL Anthology PDF (2020.acl-main.64)."
_USR_PROTOCOL = (
    "Original Ground Truth system left out, its response being the single reference ('The "
    "annotations for the original ground-truth are not used for evaluation'); human score = mean "
    "of the 3 ratings; 300 (TopicalChat) / 240 (PersonaChat) responses."
)
USR_COLUMN_NOTE = (
    "The transcription heads Tables 5 and 6 'Spearman | Pearson' (the order of Tables 1, 3 and 4, "
    "where it is right), but in Tables 5 and 6 the first value column is the Pearson and the "
    "second the Spearman correlation: the released data give these values that way (to 1e-4) "
    "(pycocoevalcap BLEU/ROUGE-L, METEOR 1.5), and Yeh et al. (2021) print the same numbers "
    "under P and S."
)
_USR_SIG_T3 = "Table 3 caption: all values in the table are significant at p < 0.01."
_USR_SIG_T4_6 = "Values with p > 0.05 are italicised in the paper (not recoverable as read)."

_USR_BENCH = {"TopicalChat": "usr-topical", "PersonaChat": "usr-persona"}
_USR_FULL_TABLE = {"TopicalChat": 5, "PersonaChat": 6}

# Tables 5 (Topical-Chat) and 6 (PersonaChat): turn level, Overall Quality, all metrics.
# (dataset, metric, first value column = Pearson, second value column = Spearman)
_USR_FULL_ROWS: tuple[tuple[str, str, float, float], ...] = (
    ("TopicalChat", "BLEU-1", 0.2728, 0.2876),
    ("TopicalChat", "BLEU-2", 0.2862, 0.3012),
    ("TopicalChat", "BLEU-3", 0.2569, 0.3006),
    ("TopicalChat", "BLEU-4", 0.2160, 0.2956),
    ("TopicalChat", "METEOR", 0.3365, 0.3908),
    ("TopicalChat", "ROUGE-L", 0.2745, 0.2870),
    ("PersonaChat", "BLEU-1", 0.0434, 0.0469),
    ("PersonaChat", "BLEU-2", 0.1122, 0.0943),
    ("PersonaChat", "BLEU-3", 0.1202, 0.0924),
    ("PersonaChat", "BLEU-4", 0.1353, 0.0899),
    ("PersonaChat", "METEOR", 0.2527, 0.2713),
    ("PersonaChat", "ROUGE-L", 0.0659, 0.0385),
)

# Tables 3 (Topical-Chat) and 4 (PersonaChat): turn level, per quality; only the best non-USR
# metric of each quality is printed, and it is METEOR for these two qualities.
# (dataset, table, aspect key, paper row label, Spearman, Pearson)
_USR_ASPECT_ROWS: tuple[tuple[str, int, str, str, float, float], ...] = (
    ("TopicalChat", 3, "maintains_context", "Maintains Context", 0.3018, 0.2495),
    ("TopicalChat", 3, "uses_knowledge", "Uses Knowledge", 0.3909, 0.3328),
    ("PersonaChat", 4, "maintains_context", "Maintains Context", 0.2564, 0.2500),
    ("PersonaChat", 4, "uses_knowledge", "Uses Knowledge", 0.1719, 0.1678),
)


def _usr_full() -> tuple[PublishedCorrelation, ...]:
    out: list[PublishedCorrelation] = []
    for dataset, metric, pearson, spearman in _USR_FULL_ROWS:
        table = _USR_FULL_TABLE[dataset]
        sig = "" if dataset == "TopicalChat" else f" {_USR_SIG_T4_6}"
        for statistic, value, column in (
            ("pearson", pearson, "first value column"),
            ("spearman", spearman, "second value column"),
        ):
            out.append(
                PublishedCorrelation(
                    benchmark=_USR_BENCH[dataset],
                    aspect="overall",
                    level="turn",
                    statistic=statistic,
                    metric=metric,
                    value=value,
                    p_value=None,
                    source=(
                        f"{_USR}, Table {table} ({dataset}, turn level, Overall Quality), "
                        f"row {metric}, {column}"
                    ),
                    note=f"{_USR_PROTOCOL} {USR_COLUMN_NOTE} {_USR_READ}{sig}",
                )
            )
    return tuple(out)


def _usr_aspects() -> tuple[PublishedCorrelation, ...]:
    out: list[PublishedCorrelation] = []
    for dataset, table, aspect, label, spearman, pearson in _USR_ASPECT_ROWS:
        sig = _USR_SIG_T3 if table == 3 else _USR_SIG_T4_6
        for statistic, value, column in (
            ("spearman", spearman, "Spearman"),
            ("pearson", pearson, "Pearson"),
        ):
            out.append(
                PublishedCorrelation(
                    benchmark=_USR_BENCH[dataset],
                    aspect=aspect,
                    level="turn",
                    statistic=statistic,
                    metric="METEOR",
                    value=value,
                    p_value=None,
                    source=(
                        f"{_USR}, Table {table} ({dataset}, turn level per quality), "
                        f"block {label}, row METEOR, column {column}"
                    ),
                    note=(
                        f"{_USR_PROTOCOL} METEOR is printed here as the best non-USR metric of "
                        f"the quality. {sig} {_USR_READ}"
                    ),
                )
            )
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Yeh, Eskenazi & Mehri (2021): exe1023/DialEvalMetrics README.md, Results
# --------------------------------------------------------------------------------------------

_YEH = "Yeh, Eskenazi & Mehri (2021), exe1023/DialEvalMetrics README.md (commit 1cddf5c), Results"
_YEH_SIG = (
    "README: 'All values are statistically significant to p-value < 0.05, unless marked by *'."
)
_YEH_USR = (
    "nlg-eval scores against the Original Ground Truth response, that system left out "
    "(data/usr_data/data_loader.py); human score = mean of the 3 Overall ratings; turn level "
    "over 300 (TopicalChat) / 240 (PersonaChat) responses, system level over the means of 5 "
    "(TopicalChat) / 4 (PersonaChat) systems. Same numbers as USR Tables 5 and 6."
)
_YEH_GRADE = (
    "nlg-eval scores against GRADE's single reference (human_ref.txt); human score = "
    "human_score.txt (mean of the ratings, 4 decimals). Pooled over every rated system: ConvAI2 "
    "4 systems (bert_ranker, dialogGPT, transformer_generator, transformer_ranker; 600 turns), "
    "DailyDialog and EmpatheticDialogues 2 systems (transformer_generator, transformer_ranker; "
    "300 turns). System level over the system means (4 / 2 systems)."
)
_YEH_TWO_SYSTEMS = (
    "Two systems only: the correlation is +1 or -1 by construction (scipy gives Pearson p = 1 "
    "and Spearman p = nan for n = 2, consistent with a starred P cell and an unstarred S cell)."
)

# (benchmark, README table, README column group, metric, level, P, P starred, S, S starred)
_YEH_ROWS: tuple[tuple[str, str, str, str, str, float, bool, float, bool], ...] = (
    ("usr-topical", "USR Data", "USR-TopicalChat", "BLEU-4", "turn", 0.216, False, 0.296, False),
    ("usr-topical", "USR Data", "USR-TopicalChat", "BLEU-4", "system", 0.874, True, 0.900, False),
    ("usr-topical", "USR Data", "USR-TopicalChat", "METEOR", "turn", 0.336, False, 0.391, False),
    ("usr-topical", "USR Data", "USR-TopicalChat", "METEOR", "system", 0.943, False, 0.900, False),
    ("usr-topical", "USR Data", "USR-TopicalChat", "ROUGE-L", "turn", 0.275, False, 0.287, False),
    ("usr-topical", "USR Data", "USR-TopicalChat", "ROUGE-L", "system", 0.814, True, 0.900, False),
    ("usr-persona", "USR Data", "USR-Pearsonachat", "BLEU-4", "turn", 0.135, False, 0.090, True),
    ("usr-persona", "USR Data", "USR-Pearsonachat", "BLEU-4", "system", 0.841, True, 0.800, True),
    ("usr-persona", "USR Data", "USR-Pearsonachat", "METEOR", "turn", 0.253, False, 0.271, False),
    ("usr-persona", "USR Data", "USR-Pearsonachat", "METEOR", "system", 0.907, True, 0.800, True),
    ("usr-persona", "USR Data", "USR-Pearsonachat", "ROUGE-L", "turn", 0.066, True, 0.038, True),
    ("usr-persona", "USR Data", "USR-Pearsonachat", "ROUGE-L", "system", 0.171, True, 0.000, True),
    ("grade-convai2", "GRADE data", "GRADE-ConvAI2", "BLEU-4", "turn", 0.003, True, 0.128, False),
    ("grade-convai2", "GRADE data", "GRADE-ConvAI2", "BLEU-4", "system", 0.034, True, 0.000, True),
    ("grade-convai2", "GRADE data", "GRADE-ConvAI2", "METEOR", "turn", 0.145, False, 0.181, False),
    ("grade-convai2", "GRADE data", "GRADE-ConvAI2", "METEOR", "system", 0.781, True, 0.600, True),
    ("grade-convai2", "GRADE data", "GRADE-ConvAI2", "ROUGE-L", "turn", 0.136, False, 0.140, False),
    ("grade-convai2", "GRADE data", "GRADE-ConvAI2", "ROUGE-L", "system", 0.209, True, 0.000, True),
    (
        "grade-dailydialog",
        "GRADE data",
        "GRADE-DailyDialog",
        "BLEU-4",
        "turn",
        0.075,
        True,
        0.184,
        False,
    ),
    (
        "grade-dailydialog",
        "GRADE data",
        "GRADE-DailyDialog",
        "BLEU-4",
        "system",
        1.000,
        True,
        1.000,
        False,
    ),
    (
        "grade-dailydialog",
        "GRADE data",
        "GRADE-DailyDialog",
        "METEOR",
        "turn",
        0.096,
        True,
        0.010,
        True,
    ),
    (
        "grade-dailydialog",
        "GRADE data",
        "GRADE-DailyDialog",
        "METEOR",
        "system",
        -1.000,
        True,
        -1.000,
        False,
    ),
    (
        "grade-dailydialog",
        "GRADE data",
        "GRADE-DailyDialog",
        "ROUGE-L",
        "turn",
        0.154,
        False,
        0.147,
        False,
    ),
    (
        "grade-dailydialog",
        "GRADE data",
        "GRADE-DailyDialog",
        "ROUGE-L",
        "system",
        1.000,
        True,
        1.000,
        False,
    ),
    (
        "grade-empathetic",
        "GRADE data",
        "GRADE-EmpatheticDialogue",
        "BLEU-4",
        "turn",
        -0.051,
        True,
        0.002,
        True,
    ),
    (
        "grade-empathetic",
        "GRADE data",
        "GRADE-EmpatheticDialogue",
        "BLEU-4",
        "system",
        1.000,
        True,
        1.000,
        False,
    ),
    (
        "grade-empathetic",
        "GRADE data",
        "GRADE-EmpatheticDialogue",
        "METEOR",
        "turn",
        0.118,
        False,
        0.055,
        True,
    ),
    (
        "grade-empathetic",
        "GRADE data",
        "GRADE-EmpatheticDialogue",
        "METEOR",
        "system",
        1.000,
        True,
        1.000,
        False,
    ),
    (
        "grade-empathetic",
        "GRADE data",
        "GRADE-EmpatheticDialogue",
        "ROUGE-L",
        "turn",
        0.029,
        True,
        -0.013,
        True,
    ),
    (
        "grade-empathetic",
        "GRADE data",
        "GRADE-EmpatheticDialogue",
        "ROUGE-L",
        "system",
        1.000,
        True,
        1.000,
        False,
    ),
)


def _yeh() -> tuple[PublishedCorrelation, ...]:
    out: list[PublishedCorrelation] = []
    for bench, table, group, metric, level, p, p_star, s, s_star in _YEH_ROWS:
        is_usr = bench.startswith("usr-")
        protocol = _YEH_USR if is_usr else _YEH_GRADE
        two_systems = level == "system" and bench in ("grade-dailydialog", "grade-empathetic")
        level_label = "Turn-Level" if level == "turn" else "System-Level"
        for statistic, value, starred, column in (
            ("pearson", p, p_star, "P"),
            ("spearman", s, s_star, "S"),
        ):
            mark = "marked * (not significant at p < 0.05)" if starred else "unmarked"
            extra = f" {_YEH_TWO_SYSTEMS}" if two_systems else ""
            out.append(
                PublishedCorrelation(
                    benchmark=bench,
                    aspect="overall" if is_usr else "relevance",
                    level=level,
                    statistic=statistic,
                    metric=metric,
                    value=value,
                    p_value=None,
                    source=(
                        f"{_YEH}, '{table}' table, row {metric}, column {group} / "
                        f"{level_label} / {column}"
                    ),
                    note=f"{protocol} Printed {mark}; {_YEH_SIG} Rounded to 3 decimals.{extra}",
                )
            )
    return tuple(out)


CORRELATIONS: tuple[PublishedCorrelation, ...] = _usr_full() + _usr_aspects() + _yeh()


# --------------------------------------------------------------------------------------------
# Facts: counts and agreement
# --------------------------------------------------------------------------------------------

_USR_AGREEMENT_NOTE = (
    "Inter-annotator correlation averaged over annotator pairs, on all responses including the "
    "Original Ground Truth (caption: all p < 0.01); the released data reproduce it as the mean "
    "of the correlations between the three rating positions."
)

# Table 1: (dataset, aspect key, paper row label, Spearman, Pearson)
_USR_AGREEMENT: tuple[tuple[str, str, str, float, float], ...] = (
    ("TopicalChat", "understandable", "Understandable", 0.5102, 0.5102),
    ("TopicalChat", "natural", "Natural", 0.4871, 0.4864),
    ("TopicalChat", "maintains_context", "Maintains Context", 0.5599, 0.5575),
    ("TopicalChat", "engaging", "Interesting", 0.5811, 0.5754),
    ("TopicalChat", "uses_knowledge", "Uses Knowledge", 0.7090, 0.7090),
    ("TopicalChat", "overall", "Overall Quality", 0.7183, 0.7096),
    ("PersonaChat", "understandable", "Understandable", 0.2984, 0.2984),
    ("PersonaChat", "natural", "Natural", 0.4842, 0.4716),
    ("PersonaChat", "maintains_context", "Maintains Context", 0.6125, 0.6130),
    ("PersonaChat", "engaging", "Interesting", 0.4318, 0.4288),
    ("PersonaChat", "uses_knowledge", "Uses Knowledge", 0.8115, 0.8115),
    ("PersonaChat", "overall", "Overall Quality", 0.6577, 0.6603),
)
_USR_AGREEMENT_EXCEPTIONS = {
    ("PersonaChat", "engaging", "spearman"): (
        " The released data give 0.4138 for this cell (the Pearson cell agrees): a digit "
        "transposition in the paper or in the transcription."
    ),
}

# Table 2, column OQ (mean Overall Quality per system):
# (dataset, system name in the released data, paper row label, value, note)
_USR_SYSTEM_MEANS: tuple[tuple[str, str, str, float, str], ...] = (
    ("TopicalChat", "Original Ground Truth", "Original Ground-Truth", 4.25, ""),
    ("TopicalChat", "Argmax Decoding", "Argmax Decoding", 2.76, ""),
    ("TopicalChat", "Nucleus Decoding (p = 0.3)", "Nucleus Sampling (0.3)", 2.40, ""),
    ("TopicalChat", "Nucleus Decoding (p = 0.5)", "Nucleus Sampling (0.5)", 2.29, ""),
    ("TopicalChat", "Nucleus Decoding (p = 0.7)", "Nucleus Sampling (0.7)", 2.39, ""),
    (
        "TopicalChat",
        "New Human Generated",
        "New Human Generated",
        4.80,
        " The released data give 4.778 (4.78).",
    ),
    ("PersonaChat", "Original Ground Truth", "Original Ground-Truth", 4.36, ""),
    (
        "PersonaChat",
        "Language Model",
        "Language Model",
        2.98,
        " The released data give 2.972 (2.97).",
    ),
    ("PersonaChat", "Seq2Seq", "LSTM Seq2Seq", 3.47, ""),
    ("PersonaChat", "KV-MemNN", "KV-MemNN", 3.25, ""),
    ("PersonaChat", "New Human Generated", "New Human Generated", 4.80, ""),
)


def _usr_counts() -> list[PublishedFact]:
    counts = (
        ("TopicalChat", "dialogue contexts", 60.0),
        ("TopicalChat", "turn-level items", 360.0),
        ("TopicalChat", "systems", 6.0),
        ("PersonaChat", "dialogue contexts", 60.0),
        ("PersonaChat", "turn-level items", 300.0),
        ("PersonaChat", "systems", 5.0),
    )
    note = (
        "Responses include the Original Ground Truth and the New Human Generated response of "
        f"every context. {_USR_READ}"
    )
    out = [
        PublishedFact(
            _USR_BENCH[dataset],
            quantity,
            value,
            f"{_USR}, data-collection section ({dataset})",
            note,
        )
        for dataset, quantity, value in counts
    ]
    for dataset in ("TopicalChat", "PersonaChat"):
        out.append(
            PublishedFact(
                _USR_BENCH[dataset],
                "ratings per response",
                3.0,
                f"{_USR}, annotation section ('Each response was labeled by three different "
                "annotators')",
                _USR_READ,
            )
        )
        out.append(
            PublishedFact(
                _USR_BENCH[dataset],
                "annotators",
                6.0,
                f"{_USR}, annotation section ('Quality annotation was performed by six dialog "
                "researchers')",
                f"Six annotators across both datasets together. {_USR_READ}",
            )
        )
    return out


def _usr_agreement() -> list[PublishedFact]:
    out = []
    for dataset, aspect, label, spearman, pearson in _USR_AGREEMENT:
        for statistic, value in (("spearman", spearman), ("pearson", pearson)):
            extra = _USR_AGREEMENT_EXCEPTIONS.get((dataset, aspect, statistic), "")
            source = (
                f"{_USR}, Table 1 (inter-annotator agreement), block {dataset}, "
                f"row {label}, column {statistic.capitalize()}"
            )
            quantity = f"inter-annotator {statistic} {aspect}"
            note = f"{_USR_AGREEMENT_NOTE}{extra} {_USR_READ}"
            out.append(PublishedFact(_USR_BENCH[dataset], quantity, value, source, note))
    return out


def _usr_means() -> list[PublishedFact]:
    return [
        PublishedFact(
            _USR_BENCH[dataset],
            f"mean overall, system {system!r}",
            value,
            f"{_USR}, Table 2 (average scores per response type), block {dataset}, "
            f"row {label}, column OQ",
            f"Mean of the per-response mean Overall rating, 2 decimals.{extra} {_USR_READ}",
        )
        for dataset, system, label, value, extra in _USR_SYSTEM_MEANS
    ]


_COMPERDIAL_CARD = (
    "Hugging Face dataset card Sony/ComperDial, README.md at revision "
    "5aa9f1499824acab1956a3e987726ed2a7365d99"
)
_SODA_ABSTRACT = (
    "Mendonça, Trancoso & Lavie (Findings of EMNLP 2024, 2024.findings-emnlp.684; arXiv "
    "2408.10902), abstract"
)

_HUB_FACTS: tuple[PublishedFact, ...] = (
    PublishedFact(
        "comperdial",
        "dialogue models",
        97.0,
        f"{_COMPERDIAL_CARD}, table 'Response collection'",
        "With the 2 human subjects, the 99 systems the card counts.",
    ),
    PublishedFact(
        "comperdial", "human subjects", 2.0, f"{_COMPERDIAL_CARD}, 'Response collection'"
    ),
    PublishedFact(
        "comperdial",
        "dialogues in the dialogue dataset",
        100.0,
        f"{_COMPERDIAL_CARD}, 'Dataset Structure' item 1",
        "15 of them are behind both annotated levels.",
    ),
    PublishedFact(
        "soda-eval",
        "turn-level items (lower bound)",
        120000.0,
        f"{_SODA_ABSTRACT} ('covers over 120K turn-level assessments across 10K dialogues')",
        "Printed as 'over 120K': a lower bound, not a count. Annotations are GPT-4's.",
    ),
    PublishedFact(
        "soda-eval",
        "dialogues (approximate)",
        10000.0,
        f"{_SODA_ABSTRACT} ('across 10K dialogues')",
        "Printed as '10K': approximate.",
    ),
)
"""Published figures of the Hub-only benchmarks beyond the sizes their metadata declares."""


def _declared_counts(name: str) -> list[PublishedFact]:
    """The sizes a benchmark's metadata declares as published (items, dialogues, systems)."""
    counts = get_metadata(name).published_counts
    if counts is None:
        return []
    source = f"{counts.source} (as declared in the benchmark's metadata)"
    by_level = Counter(s.level for s in counts.splits)
    facts: dict[str, float] = {}
    for s in counts.splits:
        single = by_level[s.level] == 1
        items = f"{s.level}-level items" if single else f"{s.split} split size"
        for quantity, value in (
            (items, s.items),
            ("dialogues", s.dialogues),
            ("systems", s.systems),
        ):
            if value is not None:
                facts.setdefault(quantity, float(value))
    return [PublishedFact(name, quantity, value, source) for quantity, value in facts.items()]


# --------------------------------------------------------------------------------------------
# Liu et al., "Towards Credible Human Evaluation of Open-Domain Dialog Systems Using Interactive
# Setup": Table 1, turns needed per setting (no data: `human plan` computes them); Table 6, the
# single-model intervals (no data: computed from the printed turns and win rates)
# --------------------------------------------------------------------------------------------

_INTERACTIVE = (
    "Liu et al., 'Towards Credible Human Evaluation of Open-Domain Dialog Systems Using "
    "Interactive Setup', Table 1"
)
_TABLE1 = {"PM-SOBA": 196, "PM-SATA": 667, "MM-SOBA": 430, "MM-SATA": 445, "SM-SATA": 126}
"""Pairwise (PM), 4-model (MM) and single-model (SM) rows; win-rate difference 0.1, alpha 0.05
two-sided, power 0.8."""

_INTERACTIVE_FACTS = [
    PublishedFact("liu-interactive", f"Table 1 turns, {cell}", float(n), f"{_INTERACTIVE}, {cell}")
    for cell, n in _TABLE1.items()
]

TABLE6 = {
    "GPT2XL-BST": (128, 0.87, 0.81, 0.93),
    "GPT2XL-TCS": (126, 0.84, 0.78, 0.91),
    "GPT2XL-WoW": (126, 0.83, 0.76, 0.89),
    "GPT2M-BST": (127, 0.94, 0.91, 0.98),
}
"""The interactive paper's Table 6 (single-model single-response evaluation): per model, turns,
win rate and the 95% interval's bounds, as printed (rates in percent there)."""

_INTERACTIVE_FACTS += [
    PublishedFact(
        "liu-interactive",
        f"Table 6 95% CI {side}, {model}",
        bound,
        f"{_INTERACTIVE.replace('Table 1', 'Table 6')}, {model}",
        f"computed from the printed turns ({turns}) and win rate ({rate:.2f})",
    )
    for model, (turns, rate, low, high) in TABLE6.items()
    for side, bound in (("low", low), ("high", high))
]


FACTS: tuple[PublishedFact, ...] = (
    *_usr_counts(),
    *_usr_agreement(),
    *_usr_means(),
    *_declared_counts("comperdial"),
    *_declared_counts("soda-eval"),
    *_HUB_FACTS,
    *_INTERACTIVE_FACTS,
)
