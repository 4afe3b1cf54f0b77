"""Results as one self-contained HTML page: inline CSS and SVG figures, no script, nothing
fetched from elsewhere, so the file can be mailed, archived or opened offline."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from comperbench.common.errors import ComperbenchError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from comperbench.report.evaluation_text import EvaluationView
    from comperbench.stats.metric_tests.verdicts import Verdicts

_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; }
dl.header dt { color: #666; }
dl.header dd { margin: 0; }
table { border-collapse: collapse; font-size: .9em; font-variant-numeric: tabular-nums; }
th, td { padding: .25em .6em; border-bottom: 1px solid #eee; text-align: right; }
th { border-bottom: 2px solid #ccc; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: .9em; }
ul.notes, ul.mono { padding-left: 1.2em; }
ul.mono { font: .8em/1.4 ui-monospace, "SFMono-Regular", Menlo, monospace;
          overflow-wrap: anywhere; }
tbody.reference td { border-top: 2px solid #ccc; font-style: italic; color: #444; }
details { margin: .5em 0; }
summary { cursor: pointer; }
"""


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, header: Sequence[tuple[str, str]], sections: Sequence[str]) -> str:
    """A whole HTML document: the title, a definition list of `header` (label, value) pairs and
    the sections (HTML fragments, already escaped)."""
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in header)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f'<h1>{escape(title)}</h1>\n<dl class="header">{rows}</dl>\n'
        + "\n".join(sections)
        + "\n</body>\n</html>\n"
    )


def section(title: str, *parts: str) -> str:
    """A titled part of the page."""
    return f"<section>\n<h2>{escape(title)}</h2>\n" + "\n".join(parts) + "\n</section>"


def _body(rows: Sequence[Sequence[object]]) -> str:
    return "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    reference: Sequence[Sequence[object]] = (),
) -> str:
    """A table of `rows`, then the `reference` rows (the human ceiling) set apart below them."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    below = f'\n<tbody class="reference">{_body(reference)}</tbody>' if reference else ""
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>{_body(rows)}</tbody>{below}\n</table>"


def lines(items: Sequence[str], kind: str = "notes") -> str:
    """A list of text lines (`kind` "notes", or "mono" for signatures)."""
    if not items:
        return ""
    return f'<ul class="{kind}">' + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>"


def figure(chart: Figure, caption: str) -> str:
    """The figure as inline SVG with its caption."""
    from comperbench.report.figures import svg

    return f"<figure>\n{svg(chart)}\n<figcaption>{escape(caption)}</figcaption>\n</figure>"


def details(summary: str, inner: str, open_: bool = False) -> str:
    """A part the reader opens on demand."""
    state = " open" if open_ else ""
    return f"<details{state}><summary>{escape(summary)}</summary>\n{inner}\n</details>"


def evaluation_page(evaluation: EvaluationView) -> str:
    """The page of an `Evaluation`: header, table and notes, forest plot, system-level scatter
    plots, significance heatmap, and the signatures and metric settings."""
    from comperbench.report.evaluation_text import (
        ceiling_lines,
        metric_lines,
        protocol_lines,
        run_notes,
        signature_lines,
        table_cells,
        table_notes,
    )

    result, table_ = evaluation.result, evaluation.table
    bench = result.benchmark
    header = [
        ("benchmark", bench.label),
        ("version", bench.metadata.version),
        ("fingerprint", bench.fingerprint),
        ("level", result.level + (", grouped by dialogue" if table_.grouped else "")),
        ("aspect", table_.aspect),
        ("statistics", ", ".join(table_.statistics)),
    ]
    if bench.selection:
        header.append(("items", bench.selection.describe()))
    for line in protocol_lines(table_, result):
        label, _, text = line.partition(": ")
        header.append((label, text))
    notes = run_notes(evaluation) + table_notes(table_) + ceiling_lines(table_)
    ceiling = table_.ceiling_row()
    headers, cells = table_cells(table_.rows + ([ceiling] if ceiling else []), table_.statistics)
    split = len(table_.rows)
    sections = [section("Correlations", table(headers, cells[:split], cells[split:]), lines(notes))]
    if table_.rows:
        first = table_.statistics[0]
        sections.append(
            section(
                f"{first} per metric",
                figure(
                    evaluation.plot_forest(first),
                    "Points: values; whiskers: 95% bootstrap intervals.",
                ),
            )
        )
        sections.append(section("Systems", *_scatter_parts(evaluation, first)))
        sections.append(section("Which metric is better?", _significance_part(evaluation, first)))
    footer = signature_lines(table_) + metric_lines(result)
    sections.append(section("Signatures and metric settings", lines(footer, "mono")))
    return page(f"{bench.label}: {table_.aspect}, {result.level} level", header, sections)


def _scatter_parts(evaluation: EvaluationView, statistic: str) -> list[str]:
    """The scatter plot of the best metric by `statistic`, and the others' collapsed."""
    rows = evaluation.table.rows
    ranked = sorted(
        (r for r in rows if r.get(statistic) == r.get(statistic)),  # NaN last, left out
        key=lambda r: r[statistic],
        reverse=True,
    )
    order = [r["metric"] for r in ranked] + [r["metric"] for r in rows if r not in ranked]
    parts = []
    for i, metric in enumerate(order):
        try:
            chart = evaluation.plot_scatter(metric)
        except ComperbenchError as error:
            parts.append(lines([f"{metric}: {error}"]))
            continue
        caption = "Each point is a system; hollow grey points are systems the protocol leaves out."
        if i == 0:
            parts.insert(0, f"<p>Best by {escape(statistic)}: {escape(metric)}.</p>")
            parts.append(figure(chart, caption))
        else:
            parts.append(details(metric, figure(chart, caption)))
    return parts


def _significance_part(evaluation: EvaluationView, statistic: str) -> str:
    """The verdicts between the metrics (`verdicts_part`), or why there are none."""
    if evaluation.plan.resampling.resamples <= 0:
        return lines(["no significance test: the evaluation ran without resamples"])
    try:
        verdicts = evaluation.significance(statistic)
    except ComperbenchError as error:
        return lines([f"no significance test: {error}"])
    caption = (
        f"PERM-BOTH on {statistic}, as `comperbench compare` runs it, on the systems the "
        "protocol keeps for every metric."
    )
    return verdicts_part(verdicts, statistic, caption)


def verdicts_part(verdicts: Verdicts, statistic: str, caption: str) -> str:
    """The verdicts between metrics, readable at any number of them: the clusters chart, the
    test and its resolution in words, and the pairs shown to differ (collapsed)."""
    from comperbench.common.textutil import p_value
    from comperbench.report.figures import verdicts_figure

    chart = verdicts_figure(verdicts, xlabel=statistic, title="Significance clusters")
    said = [verdicts.describe() + "."]
    if note := verdicts.resolution.note:
        said.append(note[0].upper() + note[1:] + ".")
    said += [f"not ranked: {m} ({reason})" for m, reason in verdicts.matrix.undefined.items()]
    pairs = verdicts.differing_pairs()
    rows = [[better, worse, p_value(p)] for better, worse, p in pairs]
    listed = details(
        f"{len(pairs)} of {verdicts.family // 2} pairs differ",
        table(["better", "worse", "adjusted p"], rows) if rows else lines(["none"]),
    )
    return "\n".join([figure(chart, caption), lines(said), listed])
