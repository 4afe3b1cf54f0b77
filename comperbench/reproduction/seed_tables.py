"""Correlation and agreement tables of the ComperDial and SODA-EVAL papers (seeds 002 and 003).

Transcribed from the plain-text copies in the seed folder, each cell checked twice against the
text. Neither benchmark's data can be read here, and no cell's metric is one comperbench runs as
the paper ran it (LLM judges with the papers' API versions, finetuned evaluators, ParlAI-style
normalised n-gram scores), so `comperbench reproduce` lists every cell as skipped with its reason.

ComperDial Tables 4 and 5 print three columns per block; their order (Pearson, Spearman, Kendall)
is fixed by the text: "CPDS-D without a reference response using GPT-4 ... Spearman's
correlation and Kendall's correlation were 0.928 and 0.799", the second and third system-level
values of that Table 4 row. A `*` marks p >= 0.05 in both tables.
"""

from __future__ import annotations

from comperbench.reproduction.published import PublishedCorrelation, PublishedFact

_COMPERDIAL = "Wakaki et al., 'ComperDial' (arXiv 2406.11228)"
_SODA = "Mendonça, Trancoso & Lavie, 'SODA-EVAL' (Findings of EMNLP 2024)"
_STATISTICS = ("pearson", "spearman", "kendall-b")
_COLUMNS = ("Pearson", "Spearman", "Kendall")

# (row label, turn- or dialogue-level P, S, K, system-level P, S, K); a trailing "*" on a value
# is the paper's not-significant mark.
_CD_TABLE4: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("BLEU", ("0.104", "0.159", "0.113", "0.392", "0.206", "0.136")),
    ("F1", ("0.196", "0.185", "0.132", "0.584", "0.120*", "0.078*")),
    ("METEOR", ("0.197", "0.201", "0.143", "0.766", "0.556", "0.410")),
    ("ROUGE", ("0.187", "0.178", "0.127", "0.526", "0.057*", "0.028*")),
    ("BERTScore", ("0.269", "0.227", "0.159", "0.369", "0.075*", "0.044*")),
    ("BLEURT", ("0.347", "0.331", "0.236", "0.810", "0.873", "0.699")),
    ("FEDEn", ("-0.009*", "0.043", "0.030", "0.569", "0.585", "0.470")),
    ("FEDRel", ("-0.025", "-0.025", "-0.017", "0.399", "0.378", "0.247")),
    ("UniEval", ("0.397", "0.404", "0.287", "0.637", "0.584", "0.432")),
    ("CPDS-S w/ ref (GPT-3.5)", ("0.507", "0.489", "0.389", "0.773", "0.879", "0.717")),
    ("CPDS-S w/ ref (GPT-4)", ("0.678", "0.629", "0.493", "0.946", "0.900", "0.742")),
    ("CPDS-S w/o ref (GPT-3.5)", ("0.491", "0.468", "0.371", "0.715", "0.861", "0.684")),
    ("CPDS-S w/o ref (GPT-4)", ("0.688", "0.662", "0.532", "0.924", "0.899", "0.753")),
    ("CPDS-D w/ ref (GPT-3.5)", ("0.596", "0.575", "0.445", "0.890", "0.890", "0.740")),
    ("CPDS-D w/ ref (GPT-4)", ("0.689", "0.656", "0.524", "0.939", "0.886", "0.727")),
    ("CPDS-D w/o ref (GPT-3.5)", ("0.592", "0.564", "0.435", "0.886", "0.876", "0.717")),
    ("CPDS-D w/o ref (GPT-4)", ("0.714", "0.712", "0.583", "0.943", "0.928", "0.799")),
)
_CD_TABLE5: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("BLEU", ("0.122", "0.181", "0.127", "0.363", "0.191*", "0.120*")),
    ("F1", ("0.194", "0.114", "0.079", "0.476", "0.138*", "0.093*")),
    ("METEOR", ("0.293", "0.231", "0.163", "0.674", "0.535", "0.397")),
    ("ROUGE", ("0.165", "0.090", "0.061", "0.414", "0.071*", "0.039*")),
    ("BERTScore", ("0.219", "0.113", "0.077", "0.278", "0.092*", "0.059*")),
    ("BLEURT", ("0.448", "0.354", "0.253", "0.697", "0.826", "0.647")),
    ("FEDEn", ("0.086", "0.049*", "0.035*", "0.484", "0.550", "0.434")),
    ("FEDRel", ("0.108", "0.125", "0.088", "0.444", "0.359", "0.232")),
    ("UniEval", ("0.418", "0.402", "0.290", "0.503", "0.548", "0.388")),
    ("CPDS-S w/ ref (GPT-3.5)", ("0.592", "0.636", "0.486", "0.693", "0.861", "0.685")),
    ("CPDS-S w/ ref (GPT-4)", ("0.782", "0.751", "0.589", "0.902", "0.894", "0.728")),
    ("CPDS-S w/o ref (GPT-3.5)", ("0.513", "0.525", "0.391", "0.617", "0.850", "0.666")),
    ("CPDS-S w/o ref (GPT-4)", ("0.743", "0.718", "0.561", "0.871", "0.902", "0.750")),
    ("CPDS-D w/ ref (GPT-3.5)", ("0.671", "0.670", "0.513", "0.783", "0.867", "0.705")),
    ("CPDS-D w/ ref (GPT-4)", ("0.792", "0.761", "0.601", "0.905", "0.889", "0.727")),
    ("CPDS-D w/o ref (GPT-3.5)", ("0.657", "0.646", "0.490", "0.781", "0.856", "0.689")),
    ("CPDS-D w/o ref (GPT-4)", ("0.776", "0.768", "0.610", "0.899", "0.926", "0.784")),
    ("Human", ("0.855", "0.827", "0.676", "0.963", "0.968", "0.869")),
    ("CPDS-Dial (GPT-3.5)", ("0.675", "0.656", "0.501", "0.818", "0.873", "0.715")),
    ("Intermediate score (GPT-3.5)", ("0.664", "0.658", "0.506", "0.779", "0.868", "0.710")),
    ("CPDS-Dial (GPT-4)", ("0.791", "0.742", "0.587", "0.926", "0.924", "0.783")),
    ("Intermediate score (GPT-4)", ("0.777", "0.763", "0.607", "0.903", "0.925", "0.781")),
)
"""The two 'Intermediate score' rows follow CPDS-Dial (GPT-3.5) and CPDS-Dial (GPT-4) in the
paper; the model in their labels is ours, from that order."""

_CD_NOTE = (
    "Human score: the 1-5 overall score (humanness) of ComperDial's annotators. CPDScore cells "
    "are the mean of three API calls (gpt-4-turbo-2024-04-09, gpt-3.5-turbo-0125; footnote 9). "
    "System level: the mean of the turn (Table 4) or dialogue (Table 5) scores of a system over "
    "99 systems; the table and block are part of the cell's name."
)


def _comperdial_table(table: int, rows: tuple[tuple[str, tuple[str, ...]], ...]):
    first = "turn" if table == 4 else "dialogue"
    blocks = ((first, f"{first.capitalize()}-level score"), ("system", "System-level score"))
    out = []
    for metric, cells in rows:
        for b, (level, block) in enumerate(blocks):
            for c, (statistic, column) in enumerate(zip(_STATISTICS, _COLUMNS, strict=True)):
                printed = cells[3 * b + c]
                mark = " Printed with * (p >= 0.05)." if printed.endswith("*") else ""
                out.append(
                    PublishedCorrelation(
                        benchmark="comperdial",
                        aspect="overall",
                        level=level,
                        statistic=statistic,
                        metric=metric,
                        value=float(printed.rstrip("*")),
                        p_value=None,
                        source=(
                            f"{_COMPERDIAL}, Table {table}, row {metric}, block {block}, "
                            f"column {column}"
                        ),
                        note=f"{_CD_NOTE}{mark}",
                        table=f"Table {table}",
                    )
                )
    return out


# SODA-EVAL Table 6 (SODA-EVAL-TEST): (group, model, Spearman, Pearson)
_SODA_TABLE6: tuple[tuple[str, str, float, float], ...] = (
    ("", "UNIEVAL", 0.1295, 0.1448),
    ("Instruction-tuned", "Flan-T5-xl", 0.0932, 0.1118),
    ("Instruction-tuned", "Qwen1.5-0.5B", 0.1002, 0.1074),
    ("Instruction-tuned", "Qwen1.5-1.8B", 0.1194, 0.1332),
    ("Instruction-tuned", "Qwen1.5-4.B", 0.2278, 0.2376),
    ("Instruction-tuned", "Phi-3-mini-4k", 0.2965, 0.3344),
    ("Instruction-tuned", "LLama-3-8B", 0.3046, 0.3335),
    ("Instruction-tuned", "GPT-3.5-Turbo", 0.2978, 0.3418),
    ("SODA-EVAL finetuned", "Flan-T5-xl", 0.2800, 0.2800),
    ("SODA-EVAL finetuned", "Qwen1.5-0.5B", 0.3636, 0.3870),
    ("SODA-EVAL finetuned", "Qwen1.5-1.8B", 0.4131, 0.4359),
    ("SODA-EVAL finetuned", "Qwen1.5-4.B", 0.4867, 0.5150),
    ("SODA-EVAL finetuned", "Phi-3-mini-4k", 0.5938, 0.6289),
    ("SODA-EVAL finetuned", "LLama-3-8B", 0.5240, 0.5628),
)
# Table 6, BLEU-4 column (explanation against GPT-4's): (group, model, BLEU-4)
_SODA_TABLE6_BLEU: tuple[tuple[str, str, float], ...] = (
    ("Instruction-tuned", "Flan-T5-xl", 0.00),
    ("Instruction-tuned", "Qwen1.5-0.5B", 7.05),
    ("Instruction-tuned", "Qwen1.5-1.8B", 2.91),
    ("Instruction-tuned", "Qwen1.5-4.B", 6.30),
    ("Instruction-tuned", "Phi-3-mini-4k", 21.56),
    ("Instruction-tuned", "LLama-3-8B", 9.79),
    ("Instruction-tuned", "GPT-3.5-Turbo", 2.13),
    ("SODA-EVAL finetuned", "Flan-T5-xl", 27.42),
    ("SODA-EVAL finetuned", "Qwen1.5-0.5B", 29.31),
    ("SODA-EVAL finetuned", "Qwen1.5-1.8B", 29.90),
    ("SODA-EVAL finetuned", "Qwen1.5-4.B", 31.10),
    ("SODA-EVAL finetuned", "Phi-3-mini-4k", 36.14),
    ("SODA-EVAL finetuned", "LLama-3-8B", 40.41),
)
# Table 8, overall quality, turn level: (group, model, FED-Turn S, FED-Turn P, DSTC10-TC S, P)
_SODA_TABLE8: tuple[tuple[str, str, float, float, float, float], ...] = (
    ("", "UNIEVAL", 0.3229, 0.2521, 0.3302, 0.3249),
    ("Instruction-tuned", "Phi-3-mini-4k", 0.4489, 0.5276, 0.3306, 0.3513),
    ("Instruction-tuned", "Qwen1.5-4.B", 0.3189, 0.3697, 0.2081, 0.2242),
    ("Instruction-tuned", "Llama-3-8B", 0.5042, 0.5438, 0.3077, 0.3279),
    ("Instruction-tuned", "GPT-3.5-Turbo", 0.5599, 0.5842, 0.3320, 0.3481),
    ("Instruction-tuned", "GPT-4-Turbo", 0.5861, 0.6408, 0.4058, 0.4145),
    ("Finetuned", "Phi-3-mini-4k", 0.4913, 0.5135, 0.3550, 0.3630),
    ("Finetuned", "Qwen1.5-4.B", 0.3762, 0.3874, 0.2731, 0.2906),
    ("Finetuned", "Llama-3-8B", 0.4496, 0.4598, 0.3480, 0.3597),
)
_SODA_T6_NOTE = (
    "SODA-EVAL-TEST (12,237 responses), overall score by GPT-4; all correlations p < 0.01 "
    "(caption). Instruction-tuned rows are the best of 0- to 5-shot."
)
_SODA_BLEU_NOTE = (
    "BLEU-4 (x 100) of the model's explanation against GPT-4's on SODA-EVAL-TEST; Flan-T5-xl "
    "(instruction-tuned) 'consistently failed to produce explanations' (footnote a)."
)
_SODA_T8_NOTE = (
    "Turn level, Overall Quality of FED-Turn and DSTC10-TC (out of domain; instruction-tuned "
    "models 0-shot). Held under soda-eval because the finetuned rows need its train split; the "
    "FED and DSTC10 data are local, the evaluator models are not. All p < 0.01 (caption)."
)


def _soda_model(group: str, model: str) -> str:
    return f"{model} ({group})" if group else model


def _soda_table6() -> list[PublishedCorrelation]:
    out = []
    for group, model, spearman, pearson in _SODA_TABLE6:
        row = f"{group + ' / ' if group else ''}{model}"
        for statistic, value, column in (("spearman", spearman, "ρ"), ("pearson", pearson, "r")):
            out.append(
                PublishedCorrelation(
                    "soda-eval",
                    "overall",
                    "turn",
                    statistic,
                    _soda_model(group, model),
                    value,
                    None,
                    f"{_SODA}, Table 6, row {row}, column {column}",
                    _SODA_T6_NOTE,
                    table="Table 6",
                )
            )
    return out


def _soda_table8() -> list[PublishedCorrelation]:
    out = []
    for group, model, fed_s, fed_p, tc_s, tc_p in _SODA_TABLE8:
        row = f"{group + ' / ' if group else ''}{model}"
        for data, statistic, value, column in (
            ("FED-Turn", "spearman", fed_s, "ρ"),
            ("FED-Turn", "pearson", fed_p, "r"),
            ("DSTC10-TC", "spearman", tc_s, "ρ"),
            ("DSTC10-TC", "pearson", tc_p, "r"),
        ):
            out.append(
                PublishedCorrelation(
                    "soda-eval",
                    "overall",
                    "turn",
                    statistic,
                    _soda_model(group, model),
                    value,
                    None,
                    f"{_SODA}, Table 8, row {row}, column {data} {column}",
                    _SODA_T8_NOTE,
                    table=f"Table 8 {data}",
                )
            )
    return out


SEED_CORRELATIONS: tuple[PublishedCorrelation, ...] = (
    *_comperdial_table(4, _CD_TABLE4),
    *_comperdial_table(5, _CD_TABLE5),
    *_soda_table6(),
    *_soda_table8(),
)
"""ComperDial Tables 4-5 and SODA-EVAL Tables 6 and 8; none has a comperbench metric."""

_CD_ALPHA_NOTE = (
    "Krippendorff's alpha of the 1-5 overall scores; the paper does not name the measurement "
    "level, comperbench computes the interval alpha."
)
_SODA_T4_NOTE = (
    "100 SODA-EVAL-TEST responses rated 1-5 by 5 annotators, first without and then with GPT-4's "
    "detected issues (revised); IAA is the mean Spearman correlation of each annotation with the "
    "mean of the others, GPT-4 the Spearman correlation of the annotators' aggregate with GPT-4's "
    "score. The 100 responses and the five annotators' ratings are not in the release."
)

SEED_FACTS: tuple[PublishedFact, ...] = (
    PublishedFact(
        "comperdial",
        "krippendorff-alpha turn",
        0.56,
        f"{_COMPERDIAL}, section 5, 'Inter-annotator agreement'",
        _CD_ALPHA_NOTE,
    ),
    PublishedFact(
        "comperdial",
        "krippendorff-alpha dialogue",
        0.62,
        f"{_COMPERDIAL}, section 5, 'Inter-annotator agreement'",
        _CD_ALPHA_NOTE,
    ),
    *(
        PublishedFact(
            "soda-eval",
            f"explanation BLEU-4, {_soda_model(group, model)}",
            value,
            f"{_SODA}, Table 6, row {group} / {model}, column BLEU-4",
            _SODA_BLEU_NOTE,
        )
        for group, model, value in _SODA_TABLE6_BLEU
    ),
    *(
        PublishedFact(
            "soda-eval",
            f"validation {quantity}, {column.lower()}",
            value,
            f"{_SODA}, Table 4, row {row}, column {column}",
            _SODA_T4_NOTE,
        )
        for row, quantity, column, value in (
            ("IAA", "inter-annotator spearman", "Initial", 0.7455),
            ("IAA", "inter-annotator spearman", "Revised", 0.8601),
            ("GPT-4", "GPT-4 spearman", "Initial", 0.7303),
            ("GPT-4", "GPT-4 spearman", "Revised", 0.8248),
        )
    ),
)
