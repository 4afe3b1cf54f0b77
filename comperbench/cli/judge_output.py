"""Printing what LLM judges said besides their scores: issue-type rates, issue detection and the
explanations' agreement with the benchmark's."""

from __future__ import annotations

from typing import Any

from comperbench.common.textutil import interval, number
from comperbench.common.textutil import table as format_table
from comperbench.stats.resampling import bootstrap_note


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _rate_rows(rates: list[dict[str, Any]]) -> list[list[object]]:
    """Issue types the judge flagged at least once, each system's rate and Wilson interval."""
    flagged = {r["issue"] for r in rates if r["count"]}
    return [
        [
            r["issue"],
            r["system"],
            f"{r['count']}/{r['n']}",
            _percent(r["rate"]),
            f"[{_percent(r['low'])}, {_percent(r['high'])}]",
        ]
        for r in rates
        if r["issue"] in flagged
    ]


def _ci(bounds: list[float | None]) -> str:
    return "-" if any(b is None or b != b for b in bounds) else interval(*bounds)


def _detection_rows(found: list[dict[str, Any]]) -> list[list[object]]:
    return [
        [
            d["issue"],
            d["items"],
            d["true_positives"],
            d["false_positives"],
            d["false_negatives"],
            number(d["precision"]),
            _ci(d["precision_ci"]),
            number(d["recall"]),
            _ci(d["recall_ci"]),
            number(d["f1"]),
            _ci(d["f1_ci"]),
        ]
        for d in found
    ]


def _agreement_rows(found: dict[str, dict[str, Any]]) -> list[list[object]]:
    numbers = ("corpus_bleu", "sentence_bleu", "semantic")
    return [
        [part, a["pairs"], *(number(a.get(k)) for k in numbers), a.get("undefined") or ""]
        for part, a in found.items()
    ]


def print_explanation_agreement(name: str, found: dict[str, dict[str, Any]]) -> None:
    """A judge's explanations against GPT-4's, per compared part, and how they were scored."""
    print(f"\n{name}: explanations against GPT-4's comments of the same responses")
    headers = ["compared", "pairs", "BLEU-4 corpus", "BLEU-4 mean", "semantic", "undefined"]
    print(format_table(headers, _agreement_rows(found)))
    first = next(iter(found.values()))
    if first.get("bleu"):
        print(f"BLEU-4 (0-100): {first['bleu']}; semantic: mean {first['semantic_metric']}")
    for part, agreement in found.items():
        if why := agreement.get("semantic_undefined"):
            print(f"{part}: no semantic score: {why}")
        if left := agreement.get("left_out"):
            text = ", ".join(f"{reason} {count}" for reason, count in left.items())
            print(f"{part}: left out: {text}")


def print_issue_reports(reports: dict[str, dict[str, Any]]) -> None:
    """Per judge that lists issues: its issue rates per system, its detection against the
    benchmark's issue labels where it has them (naming who gave them), and on Soda-Eval its
    explanations' agreement with GPT-4's."""
    for name, report in reports.items():
        print(
            f"\n{name}: issues flagged (by at least half of an item's calls), 95% Wilson CI; "
            "types never flagged not shown"
        )
        rows = _rate_rows(report["rates"])
        if rows:
            print(format_table(["issue", "system", "items", "rate", "95% CI"], rows))
        else:
            print("no issue flagged on any item")
        if "detection" in report:
            print(f"\n{name}: issue detection against {report['labels']}")
            headers = ["issue", "items", "TP", "FP", "FN", "precision", "95% CI"]
            headers += ["recall", "95% CI", "F1", "95% CI"]
            print(format_table(headers, _detection_rows(report["detection"])))
            print(
                "precision and recall: Wilson intervals; F1: percentile bootstrap over items; "
                "micro: every issue type pooled"
            )
            if note := bootstrap_note(report["detection"][0]["items"], "items"):
                print(f"note: F1 intervals: {note}")
        if "explanations" in report:
            print_explanation_agreement(name, report["explanations"])
