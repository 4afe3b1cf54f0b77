"""The app's view functions without a browser: ranking table, heatmap escaping, items, citations;
its events, and its modules imported without gradio."""

from __future__ import annotations

import html
import itertools
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from comperbench import __version__
from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.leaderboard.comparison import view_verdicts
from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.overall import CSV_COLUMNS
from comperbench.leaderboard.service import ranking, submit
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import METRIC_FAMILIES, SubmissionMeta
from comperbench.leaderboard.web.app import build
from comperbench.leaderboard.web.dataset_view import (
    ALL_SYSTEMS,
    item_html,
    item_view,
    system_choices,
)
from comperbench.leaderboard.web.page import row_link
from comperbench.leaderboard.web.plots import SCATTER_LABEL
from comperbench.leaderboard.web.views import (
    FAMILIES,
    RANKING_COLUMNS,
    SHOWN_COLUMNS,
    about_markdown,
    citation_bibtex,
    comparison,
    csv_file,
    family,
    metric_choices,
    metric_details,
    metric_page,
    metric_view,
    overall_table,
    p_colour,
    ranking_frame,
    shown_ranking,
    shown_rows,
    statistic_choices,
    template_file,
)

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def store(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("app") / "lb.sqlite")
    bench = cached_benchmark("usr-topical", "turn")
    human = np.nan_to_num(bench.human_scores("overall"))
    index = ItemIndex(["usr-topical"])
    for k, (name, noise) in enumerate([(XSS, 0.2), ("noisy", 2.0)]):
        scores = human + np.random.default_rng(k).normal(scale=noise, size=len(human))
        raw = "item_id,score\n" + "".join(
            f"{i},{float(s)!r}\n" for i, s in zip(bench.item_ids, scores, strict=True)
        )
        meta = SubmissionMeta(
            name, trained_on=("usr-topical",) if k else (), family="learned" if k else None
        )
        submit(f"{k}.csv", raw.encode(), meta, store, index, n_resamples=200)
    return store


def test_ranking_frame(store: Store) -> None:
    frame = ranking_frame(
        ranking(store, "usr-topical", "turn", "overall", "pearson"), "usr-topical"
    )
    assert list(frame.columns) == RANKING_COLUMNS
    assert frame["metric"].tolist() == [XSS, "noisy"]
    assert frame["rank"].tolist() == [1, 2]
    assert frame["adjusted p vs leader"].isna().tolist() == [True, False]
    assert frame["tied with leader"].tolist() == ["yes", "no"]
    assert frame["trained on this benchmark"].tolist() == ["no", "yes"]
    assert (frame["CI low"] < frame["value"]).all() and (frame["value"] < frame["CI high"]).all()


def test_overall_table_and_its_csv(store: Store) -> None:
    shown = overall_table(store, "spearman")
    assert shown.choice == "usr-topical" and sorted(shown.table["metric"]) == sorted([XSS, "noisy"])
    assert shown.table["rank"].tolist() == [1, 2] and "Coverage groups" in shown.notes
    assert shown.heading.startswith("**Coverage group 1 of 1**: the 2 metrics ranked")
    text = Path(shown.csv).read_text(encoding="utf-8")
    assert text.splitlines()[0] == ",".join(CSV_COLUMNS)
    assert XSS in text and text.splitlines()[1].endswith(",1 of 1,usr-topical,yes")
    assert '<figure id="overall-heatmap"' in shown.heatmap and XSS not in shown.heatmap
    gone = overall_table(store, "spearman", None, "a group of another view")  # a stale choice
    assert gone.choice == shown.choice and gone.table.equals(shown.table)
    assert html.escape(XSS) in shown.heatmap  # the SVG's text is escaped


def test_the_overall_heatmap_is_drawn_at_its_size_with_text_of_10_px_or_more(store: Store) -> None:
    figure = overall_table(store, "spearman").heatmap
    svg = figure[figure.index("<svg") : figure.index(">", figure.index("<svg"))]
    assert "max-width" not in svg  # never scaled down: it scrolls in its box instead
    width = float(re.search(r'width="([\d.]+)pt"', svg)[1])  # type: ignore[index]
    assert re.search(rf'viewBox="0 0 {width:g} ', svg)  # 1 unit = 1 pt = 4/3 px
    sizes = [float(s) for s in re.findall(r'<text style="font-size: ([\d.]+)px', figure)]
    assert len(sizes) > 10 and min(sizes) * 4 / 3 >= 10


def test_downloads_quote_formulas(tmp_path: Path) -> None:
    frame = pd.DataFrame({"metric": ["=cmd|' /C calc'!A0", "bleu"], "value": [-0.5, 0.1]})
    lines = Path(csv_file(frame, "t")).read_text(encoding="utf-8").splitlines()
    assert lines[1:] == ["'=cmd|' /C calc'!A0,-0.5", "bleu,0.1"]


def test_downloads_quote_formula_headers() -> None:
    """A metric name is a column header of the comparison download."""
    frame = pd.DataFrame({"metric": ["a"], '=HYPERLINK("x")': [0.5], "@SUM(1)": ["0.2"]})
    header = Path(csv_file(frame, "t")).read_text(encoding="utf-8").splitlines()[0]
    assert header == 'metric,"\'=HYPERLINK(""x"")",\'@SUM(1)'


def test_ranking_search_filters_and_columns(store: Store) -> None:
    frame = ranking_frame(
        ranking(store, "usr-topical", "turn", "overall", "pearson"), "usr-topical"
    )
    assert frame["family"].tolist() == ["unknown", "learned"]  # as declared, if declared
    every = (SHOWN_COLUMNS, FAMILIES)

    def shown(*filters: Any) -> pd.DataFrame:
        return shown_ranking(frame, *filters).data

    assert shown(" NOI ", "all", every[1], every[0])["metric"].tolist() == ["noisy"]
    assert shown("", "reference-free", every[1], every[0]).empty
    assert len(shown("", "reference-based", every[1], every[0])) == 2
    assert shown("", "all", ["ngram"], every[0]).empty
    assert shown("", "all", ["learned"], every[0])["metric"].tolist() == ["noisy"]
    assert list(shown("", "all", every[1], ["value", "metric"]).columns) == ["metric", "value"]
    assert shown_rows(frame, "noi", "all", every[1]).tolist() == [False, True]


def test_baselines_have_their_metric_family_submissions_the_declared_one() -> None:
    row = SimpleNamespace(metric="embedding-average", baseline=True, family=None)
    assert family(row) == "embedding"  # type: ignore[arg-type]
    declared = SimpleNamespace(metric="f1", baseline=False, family="llm")
    assert family(declared) == "llm"  # type: ignore[arg-type]
    undeclared = SimpleNamespace(metric="f1", baseline=False, family=None)
    assert family(undeclared) == "unknown"  # type: ignore[arg-type]
    assert set(FAMILIES) == {*METRIC_FAMILIES, "unknown"}  # every family a row may show


def test_statistics_offered_are_those_scored_at_the_level() -> None:
    assert [name for _, name in statistic_choices("turn")] == ["pearson", "spearman"]
    assert "kendall-b" in [name for _, name in statistic_choices("system")]


def _comparison(store: Store, *view: str) -> tuple[str, str | None]:
    return comparison(store, ranking(store, *view), *view)


def test_heatmap_escapes_names(store: Store) -> None:
    page, path = _comparison(store, "usr-topical", "turn", "overall", "spearman")
    assert XSS not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert page.count("<td") == 4
    assert path is not None and XSS in Path(path).read_text(encoding="utf-8")
    page, path = _comparison(store, "usr-persona", "turn", "overall", "spearman")
    assert page.startswith("<p>At least two") and path is None


def test_metric_view_and_items(store: Store) -> None:
    ranked = ranking(store, "usr-topical", "turn", "overall", "pearson")
    [noisy] = [r.row.metric_id for r in ranked if r.row.metric == "noisy"]
    scatter, means = metric_view(store, "usr-topical", "turn", "overall", "pearson", noisy)
    assert len(scatter) == 300 and list(means["items"]) == [60] * 6  # the protocol's items
    assert "Original Ground Truth" not in set(scatter["system"])
    left_out = means.loc[means["in the correlation"] != "yes", "system"].tolist()
    assert left_out == ["Original Ground Truth"]
    _, figure, _ = metric_page(store, "usr-topical", "turn", "overall", "pearson", noisy)
    assert figure.startswith('<figure id="item-scatter"') and figure.count("<image") == 1
    correlated = sorted(set(scatter["system"]))
    assert len(correlated) == 5 and all(f">{s}</text>" in figure for s in correlated)
    assert ">Original Ground Truth</text>" not in figure and "your submission" not in figure
    mine = next(r.row.submission_id for r in ranked if r.row.metric == "noisy")
    _, own, _ = metric_page(store, "usr-topical", "turn", "overall", "pearson", noisy, mine)
    assert "your submission: noisy" in own and f"{SCATTER_LABEL}: your submission." in own
    page, counter = item_view("usr-topical", "turn", ALL_SYSTEMS, 3)
    bench = cached_benchmark("usr-topical", "turn")
    row = bench.table.slice(3, 1).to_pylist()[0]
    assert f"<strong>{row['item_id']}</strong>" in page and counter == "item 4 of 360 (all systems)"
    for turn in row["context"]:
        assert (
            f"<li><strong>{html.escape(turn['speaker'])}:</strong> {html.escape(turn['text'])}"
            in page
        )
    assert f"(rated response):</strong> {html.escape(row['response'])}</li>" in page
    assert "<td>overall</td>" in page and "sm: " in page  # the mean and each annotator's rating
    system = row["system"]
    page, counter = item_view("usr-topical", "turn", system, 500)
    assert counter == f"item 60 of 60 ({system})" and f"system <strong>{system}</strong>" in page
    page, counter = item_view("dstc9", "dialogue", "no such system", 0)
    assert counter == "item 1 of 2200 (all systems)" and "(rated response)" not in page
    assert system_choices("usr-topical", "turn")[0] == ALL_SYSTEMS
    assert len(system_choices("usr-topical", "turn")) == 7


def test_dataset_items_are_escaped() -> None:
    row = {
        "item_id": "b/1",
        "system": XSS,
        "turns": [{"speaker": XSS, "text": XSS}],
        "scores": {XSS: 1.0},
        "ratings": [{"aspect": XSS, "annotator": XSS, "value": 1.0}],
    }
    assert XSS not in item_html(row) and item_html(row).count("&lt;img") == 5


def test_metric_details_show_the_submission_escaped(data_root: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    bench = cached_benchmark("usr-topical", "turn")
    raw = "item_id,score\n" + "".join(f"{i},{j % 5}\n" for j, i in enumerate(bench.item_ids))
    link = "https://example.org/paper?a=1&b=2"
    meta = SubmissionMeta(XSS, "A & B", link, f"first line {XSS}\nsecond line", family="llm")
    submit("d.csv", raw.encode(), meta, store, ItemIndex(["usr-topical"]), n_resamples=50)
    view = ("usr-topical", "turn", "overall", "pearson")
    [row] = [r.row for r in ranking(store, *view)]
    page = metric_details(store, *view, row.metric_id)
    assert XSS not in page and page.count("&lt;img src=x onerror=alert(1)&gt;") == 2
    assert "by A &amp; B" in page and "&gt;<br>second line" in page
    assert "<p>Family: llm</p>" in page
    href = "https://example.org/paper?a=1&amp;b=2"
    assert f'<a href="{href}" rel="nofollow noopener noreferrer" target="_blank">{href}</a>' in page
    assert metric_details(store, *view, None) == ""


def test_template_lists_the_items_with_an_empty_score(data_root: Path) -> None:
    path = template_file("usr-topical", "turn")
    assert path is not None
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    ids = cached_benchmark("usr-topical", "turn").item_ids
    assert lines == ["item_id,score", *(f"{i}," for i in ids)]


def test_about_cites_every_benchmark_and_comperbench() -> None:
    text = about_markdown()
    bibtex = citation_bibtex()
    assert bibtex in text and bibtex.count("@software{") == 2
    assert bibtex.count("author = {{comperbench contributors}}") == 2
    assert bibtex.count(f"version = {{{__version__}}}") == 2
    assert "doi" not in bibtex.lower() and "url =" not in bibtex  # the package declares no URL
    for name in list_benchmarks():
        assert get_metadata(name).citation.strip() in text


def test_metric_page_is_keyed_by_metric_id(data_root: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    bench = cached_benchmark("usr-topical", "turn")
    index = ItemIndex(["usr-topical"])
    for k in range(2):
        raw = "item_id,score\n" + "".join(
            f"{i},{(j * (k + 1)) % 7}\n" for j, i in enumerate(bench.item_ids)
        )
        submit(f"{k}.csv", raw.encode(), SubmissionMeta("same"), store, index, n_resamples=50)
    ranked = ranking(store, "usr-topical", "turn", "overall", "pearson")
    choices = metric_choices(ranked)
    assert sorted(label for label, _ in choices) == ["same (#1)", "same (#2)"]
    for _label, metric_id in choices:
        scatter, _ = metric_view(store, "usr-topical", "turn", "overall", "pearson", metric_id)
        expected = store.item_scores(metric_id, "usr-topical", "turn")
        assert expected is not None
        kept = ~np.isnan(bench.human_scores("overall"))
        kept &= np.asarray(bench.table.column("system").to_pylist()) != "Original Ground Truth"
        np.testing.assert_array_equal(scatter["metric score"].to_numpy(), expected[kept])
    first, second = (
        metric_view(store, "usr-topical", "turn", "overall", "pearson", c[1])[0] for c in choices
    )
    assert not first["metric score"].equals(second["metric score"])
    assert metric_view(store, "usr-topical", "turn", "overall", "pearson", "same")[0].empty


def test_metric_page_is_redrawn_when_the_view_changes(store: Store) -> None:
    config = build(store.path).get_config_file()
    ids = {}
    for component in config["components"]:
        label = component.get("props", {}).get("label")
        ids.setdefault(
            label, component["id"]
        )  # the first "benchmark" is the view's, not the dataset tab's
    scatter = ids["metric vs human per item (the items the protocol correlates)"]
    deps = config["dependencies"]
    for label in ("benchmark", "level", "aspect", "correlation", "metric"):
        [first] = [d for d in deps if (ids[label], "input") in [tuple(t) for t in d["targets"]]]
        chain = [first]
        while True:
            follow = [d for d in deps if d.get("trigger_after") == chain[-1]["id"]]
            if not follow:
                break
            chain.append(follow[0])
        assert any(scatter in d["outputs"] for d in chain), label


def test_heatmap_colours_are_graded_by_p() -> None:
    shades = [p_colour(p)[0] for p in (1.0, 0.5, 0.1, 0.04, 0.01, 0.001, 0.0)]
    assert shades[0] == "#ffffff" and shades[-2] == shades[-1] == "#1b5e20"
    greens = [int(s[3:5], 16) for s in shades]
    assert greens == sorted(greens, reverse=True) and len(set(greens[:-1])) == len(greens) - 1
    assert p_colour(0.001)[1] == "#ffffff" and p_colour(0.5)[1] == "#000000"
    assert p_colour(float("nan")) == ("#eeeeee", "#000000")


def test_heatmap_cells_use_the_graded_scale(store: Store) -> None:
    page = _comparison(store, "usr-topical", "turn", "overall", "spearman")[0]
    cell = "padding:3px 5px;text-align:center"
    view = ("usr-topical", "turn", "overall", "spearman")
    ranked = ranking(store, *view)
    p = view_verdicts(store, *view, [r.row for r in ranked]).adjusted
    assert "PERM-BOTH" in page and "Holm" in page
    for i, j in ((0, 1), (1, 0)):
        shade, colour = p_colour(float(p[i, j]))
        assert f'<td style="background:{shade};color:{colour};{cell}">{p[i, j]:.3f}</td>' in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_leaderboard_imports_without_gradio(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import comperbench.leaderboard, comperbench.leaderboard.web.app, comperbench.leaderboard.web.views\n"
        "import comperbench.leaderboard.web.dataset_view\n"
        "assert 'gradio' not in sys.modules, 'gradio imported'\n"
        "sys.modules['gradio'] = None\n"
        "from comperbench.leaderboard.web.app import build\n"
        "try:\n"
        f"    build({str(tmp_path / 'lb.sqlite')!r})\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        'the leaderboard app needs gradio, which is not installed: pip install "comperbench[app]"'
    )


def test_a_row_link_names_the_view_and_the_metric() -> None:
    placing = {"benchmark": "usr-topical", "level": "turn", "aspect": "overall", "metric_id": 7}
    assert row_link(placing) == "?benchmark=usr-topical&level=turn&aspect=overall&metric=7"


def test_the_restore_poll_never_redraws_a_view_read_before_its_answer(store: Store) -> None:
    """A tick answered late must not undo a choice made meanwhile: the tick reads no control,
    the redraw after it reads the view when it runs, and a page's timer starts at load."""
    config = build(store.path).get_config_file()
    [timer] = [c for c in config["components"] if c["type"] == "timer"]
    assert timer["props"]["active"] is False
    deps = config["dependencies"]
    [tick] = [d for d in deps if (timer["id"], "tick") in [tuple(t) for t in d["targets"]]]
    assert tick["inputs"] == []
    [redraw] = [d for d in deps if d.get("trigger_after") == tick["id"]]
    statistic = next(
        c["id"] for c in config["components"] if c["props"].get("label") == "correlation"
    )
    assert statistic in redraw["inputs"] and statistic in redraw["outputs"]
    loads = [d for d in deps if any(t[1] == "load" for t in d["targets"])]
    assert any(timer["id"] in d["outputs"] for d in loads)


def test_the_restore_poll_redraws_only_once_the_restore_is_done(store: Store) -> None:
    import gradio as gr

    from comperbench.leaderboard.service import Restoring
    from comperbench.leaderboard.web.page import VIEW_OUTPUTS, view_controls

    release = threading.Event()
    running = threading.Thread(target=release.wait, daemon=True)
    running.start()
    with gr.Blocks():
        page = view_controls(store, Restoring(1, running), False, set())
    view = ("usr-topical", "turn", "overall", "pearson")
    assert page.poll() == gr.update() and page.polling().active is True
    assert all(u == gr.update() for u in page.redrawn(*view))
    release.set()
    running.join(timeout=60)
    stopped = page.poll()
    assert stopped.active is False and page.polling().active is False
    assert len(page.redrawn(*view)) == VIEW_OUTPUTS
    assert page.redrawn(*view)[2] == page.refresh(*view)[2]


def test_the_view_controls_are_one_event_whose_answers_land_in_turn(store: Store) -> None:
    """One event for the four controls: a choice made while any view is drawn is drawn after
    it (never alongside it, where the older answer could land last)."""
    config = build(store.path).get_config_file()
    ids = {c["props"].get("label"): c["id"] for c in reversed(config["components"])}
    controls = {(ids[label], "input") for label in ("benchmark", "level", "aspect", "correlation")}
    listening = [d for d in config["dependencies"] if controls & {tuple(t) for t in d["targets"]}]
    [view] = listening
    assert {tuple(t) for t in view["targets"]} == controls
    assert view["trigger_mode"] == "always_last"


def test_an_answer_writes_back_only_the_choices_it_replaces(store: Store) -> None:
    """A dropdown sends its choice twice (on choosing it and on losing focus), so the answer to
    the second can land after the next choice: it must not undo that choice."""
    import gradio as gr

    from comperbench.leaderboard.service import Restoring
    from comperbench.leaderboard.web.page import view_controls

    with gr.Blocks():
        page = view_controls(store, Restoring(), False, set())
    level, aspect, *_, statistic = page.choose("usr-topical", "system", "overall", "kendall-b")
    assert [u.get("value", "kept") for u in (level, aspect, statistic)] == ["kept"] * 3
    assert ("Kendall tau-b", "kendall-b") in statistic["choices"]
    default = get_metadata("usr-topical").default_aspect
    answer = page.choose("usr-topical", "turn", "no-such-aspect", "kendall-b")
    level, aspect, _, _, signature, *_, statistic = answer
    assert "value" not in level and aspect["value"] == default
    assert statistic["value"] == "pearson"  # Kendall is not scored at turn level
    assert "stat:pearson|level:turn|" in signature and f"aspect:{default}|" in signature


def test_tied_with_leader_is_the_comparison_and_compare_verdict(
    store: Store, data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from comperbench.cli import main
    from comperbench.leaderboard.items import scored_items
    from comperbench.leaderboard.scoring import leaderboard_statistics, scored_at

    meta = get_metadata("usr-topical")
    for level in ("turn", "system"):
        statistics = [s.name for s in leaderboard_statistics() if scored_at(s, level)]
        for aspect, statistic in itertools.product(meta.aspect_names, statistics):
            view = ("usr-topical", level, aspect, statistic)
            ranked = ranking(store, *view)
            if len(ranked) < 2:
                continue
            verdicts = view_verdicts(store, *view, [r.row for r in ranked])
            leader = verdicts.index(str(ranked[0].row.metric_id))
            for r in ranked:
                i = verdicts.index(str(r.row.metric_id))
                if r.rank != 1:  # leaders tie on their value
                    assert r.tied_with_leader == (verdicts.adjusted[leader, i] > verdicts.alpha)
                    assert r.p_vs_leader == verdicts.adjusted[leader, i]
                assert (r.rank_low, r.rank_high) == verdicts.rank_ranges[i], view
            shown = comparison(store, ranked, *view)[1]
            assert shown is not None
            matrix = pd.read_csv(shown).drop(columns="row better than column").to_numpy(float)
            np.testing.assert_allclose(matrix, verdicts.adjusted, equal_nan=True)
    view = ("usr-topical", "turn", "overall", "spearman")
    ranked = ranking(store, *view)
    verdicts = view_verdicts(store, *view, [r.row for r in ranked])
    items = scored_items("usr-topical", "turn")
    columns = {
        r.row.metric: store.item_scores(r.row.metric_id, "usr-topical", "turn") for r in ranked
    }
    frame = pd.DataFrame({"item_id": cached_benchmark("usr-topical", "turn").item_ids, **columns})
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    argv = ["compare", "--benchmark", "usr-topical", "--scores", str(path), "--method"]
    argv += ["spearman", "--json", "--data-dir", str(data_root)]
    assert main(argv) == 0
    shown = json.loads(capsys.readouterr().out)["significance"]
    names = {str(r.row.metric_id): r.row.metric for r in ranked}
    assert shown["metrics"] == [names[m] for m in verdicts.metrics]
    np.testing.assert_allclose(np.array(shown["adjusted_p_values"], dtype=float), verdicts.adjusted)
    assert shown["tied_with_leader"] == verdicts.tied_with_leader
    assert len(items) == shown["n"]


def test_numbers_are_shown_to_three_decimals_and_intervals_line_up() -> None:
    from comperbench.leaderboard.web.views import interval, number, p_value

    assert number(0.43125) == "0.431" and number(-0.2) == "-0.200" and number(None) == ""
    assert p_value(0.0009999) == "<0.001" and p_value(0.001) == "0.001" and p_value(1.0) == "1.000"
    assert p_value(float("nan")) == "" and p_value(None) == ""
    shown = [interval(0.341, 0.5111), interval(-0.012, 0.2), interval(-0.5, -0.25)]
    assert shown == ["[\u20070.341, \u20070.511]", "[-0.012, \u20070.200]", "[-0.500, -0.250]"]
    assert len({len(s) for s in shown}) == 1  # one width: the bounds line up in a fixed font


def test_the_shown_table_formats_and_the_frame_keeps_the_numbers(store: Store) -> None:
    frame = ranking_frame(
        ranking(store, "usr-topical", "turn", "overall", "pearson"), "usr-topical"
    )
    styled = shown_ranking(frame, "", "all", FAMILIES, SHOWN_COLUMNS)
    assert list(styled.data.columns) == SHOWN_COLUMNS
    text = styled.to_html()
    low, high = frame.loc[0, ["CI low", "CI high"]]
    assert f"[\u2007{low:.3f}, \u2007{high:.3f}]" in text and f"{frame.loc[0, 'value']:.3f}" in text
    assert frame["value"].tolist() == [
        r.row.value for r in ranking(store, "usr-topical", "turn", "overall", "pearson")
    ]


def test_a_warmed_app_has_drawn_the_opening_figures_and_keeps_them(store: Store) -> None:
    from comperbench.leaderboard.web import plots

    drawings = (plots._forest_html, plots._heatmap_html, plots._scatter_html)
    for drawing in (*drawings, plots._item_scatter_html):
        drawing.cache_clear()
    build(store.path, warmed=True)
    assert [d.cache_info().currsize for d in drawings] == [1, 1, 1]
    assert plots._item_scatter_html.cache_info().currsize == 1
    shown = overall_table(store, "spearman", ["usr-topical"])
    assert plots._heatmap_html.cache_info().hits == 1  # the same heatmap, not drawn again
    assert '<figure id="overall-heatmap"' in shown.heatmap


def test_figures_with_missing_cells_are_kept_too() -> None:
    from comperbench.leaderboard.web.plots import Matrix, _heatmap_html, heatmap_html

    matrix = Matrix(["a", "b"], ["x"], np.array([[0.5], [np.nan]]), [["0.50"], [""]])
    first = heatmap_html(matrix, "spearman")
    hits = _heatmap_html.cache_info().hits
    again = Matrix(["a", "b"], ["x"], np.array([[0.5], [float("nan")]]), [["0.50"], [""]])
    assert heatmap_html(again, "spearman") == first
    assert _heatmap_html.cache_info().hits == hits + 1
