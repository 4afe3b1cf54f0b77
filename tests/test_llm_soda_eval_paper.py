"""The SODA-EVAL evaluator as published (Table 11, Appendix C.2) against the chat-completions test
server: the prompt's parts in the paper's order, every verdict field kept, an answer missing a
field rejected and counted, a long comment kept with a flag, the differences configured."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from llm_server import Handler, answer_with

from comperbench import metrics
from comperbench.cli import main
from comperbench.loaders.hub.soda_eval import read_comments
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.parsing import Rejected, Verdict
from comperbench.metrics.llm.soda_eval_paper import OVER_LIMIT, parse_soda_paper
from comperbench.schema import Utterance

pytestmark = pytest.mark.usefixtures("judge_server")

FIXTURES = Path(__file__).parent / "fixtures"

ISSUE = {"type": "Repetition", "comment": "Says the same thing twice."}
LONG = " ".join(["word"] * 26)


def _verdict(model: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """`sp-ok` answers a full verdict, score 2 on even seeds and 4 on odd ones; `sp-no-comment`
    leaves out the overall comment; `sp-long` writes 26 words; `sp-bare-issue` gives an issue
    without its comment."""
    even = body["seed"] % 2 == 0
    full = {"issues": [ISSUE], "score": 2 if even else 4, "overall_comment": "Repetitive."}
    return {
        "sp-ok": full,
        "sp-no-comment": {k: v for k, v in full.items() if k != "overall_comment"},
        "sp-long": {**full, "overall_comment": LONG},
        "sp-bare-issue": {**full, "issues": [{"type": "Repetition"}]},
    }.get(model)


@pytest.fixture(autouse=True)
def paper_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    answer_with(monkeypatch, lambda m, b: None if (v := _verdict(m, b)) is None else json.dumps(v))


def item() -> TurnItem:
    context = (Utterance("Ann", "Shall we meet at noon?"), Utterance("Bo", "Noon is fine."))
    return TurnItem("t0", "Great, noon then. Noon it is.", context)


def test_the_prompt_has_the_paper_parts_in_order_and_the_paper_sampling() -> None:
    metric = metrics.get("soda-eval-paper[http:sp-ok]")
    assert metric.score([item()]) == [2.0]
    [body] = Handler.seen
    assert body["temperature"] == 0.3 and body["max_tokens"] == 300
    [message] = body["messages"]
    assert message["role"] == "user"
    text = message["content"]
    parts = [
        "You are an expert judge of dialogue.",
        "- Coherence: Contradicts or ignores prior information in the dialogue.",
        "- Non-textual: Includes narrative elements",
        "a brief comment (maximum 25 words)",
        '"overall_comment": "<brief comment>"',
        "An example of a response without issues:",
        '{"issues": [], "score": 5,',
        "An example of a response with issues:",
        '{"issues": [{"type": "Coherence"',
        "Dialogue history:\nAnn: Shall we meet at noon?\nBo: Noon is fine.\n"
        "Response:\nGreat, noon then. Noon it is.\nEvaluation:",
    ]
    positions = [text.index(p) for p in parts]
    assert positions == sorted(positions)
    assert text.endswith("Evaluation:")


def test_every_field_of_the_verdict_is_kept_and_the_score_is_the_mean() -> None:
    metric = metrics.get("soda-eval-paper[http:sp-ok,n=2]")
    assert metric.score([item()]) == [3.0]  # seeds 0, 1 -> 2 and 4
    calls = metric.explain([item()])["t0"]["calls"]
    assert calls[0] == {
        "score": 2.0,
        "issues": [{"type": "repetition", "comment": "Says the same thing twice."}],
        "overall_comment": "Repetitive.",
        "overall_comment_words": 1,
        "seed": 0,
        "attempt": 0,
    }


def test_an_answer_missing_a_field_is_rejected_counted_and_never_scored() -> None:
    metric = metrics.get("soda-eval-paper[http:sp-no-comment,retries=1]")
    [score] = metric.score([item()])
    assert math.isnan(score)
    assert metric.notes["rejected_by_reason"] == {"missing field: overall_comment": 1}
    assert metric.notes["retried_calls"] == 1 and metric.notes["unscored_items"] == ["t0"]
    bare = metrics.get("soda-eval-paper[http:sp-bare-issue,retries=0]")
    assert math.isnan(bare.score([item()])[0])
    assert bare.notes["rejected_by_reason"] == {"issue without comment": 1}


def test_a_comment_over_25_words_is_kept_with_a_counted_flag() -> None:
    metric = metrics.get("soda-eval-paper[http:sp-long]")
    assert metric.score([item()]) == [2.0]
    assert metric.notes["flagged_by_reason"] == {OVER_LIMIT: 1}
    [call] = metric.explain([item()])["t0"]["calls"]
    assert call["flags"] == [OVER_LIMIT] and call["overall_comment_words"] == 26


def test_the_configuration_lists_every_difference_from_the_paper() -> None:
    config = metrics.get("soda-eval-paper[http:sp-ok]").config()
    assert config["paper"].endswith("Table 11 and Appendix C.2") and config["top_p"] == 1
    differences = config["differences_from_paper"]
    assert differences[0].startswith("model: http:sp-ok (the paper's annotations come from gpt-4")
    assert any(d.startswith("the two examples are written for this package") for d in differences)
    assert not any(d.startswith("temperature") for d in differences)
    hotter = metrics.get("soda-eval-paper[http:sp-ok,t=0.7,n=2,structured=false]").config()
    assert "temperature 0.7 (the paper: 0.3)" in hotter["differences_from_paper"]
    assert "n=2 calls averaged per item (the paper makes one)" in hotter["differences_from_paper"]
    assert not any(d.startswith("structured output") for d in hotter["differences_from_paper"])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"issues": [], "score": 3}', "missing field: overall_comment"),
        ('{"score": 3, "overall_comment": "ok"}', "missing field: issues"),
        ('{"issues": [], "overall_comment": "ok"}', "missing field: score"),
        ('{"issues": [], "score": 6, "overall_comment": "ok"}', "score outside 1-5"),
        ('{"issues": [], "score": 3, "overall_comment": " "}', "empty overall_comment"),
        (
            '{"issues": [{"type": "Rudeness", "comment": "x"}], "score": 3, "overall_comment": "o"}',
            "unknown issue type",
        ),
        ("Score: 3", "not a JSON object"),
    ],
)
def test_unusable_verdicts_name_their_reason(text: str, reason: str) -> None:
    assert parse_soda_paper(text) == Rejected(reason)


def test_the_taxonomy_names_of_the_paper_read_as_the_loader_keys() -> None:
    issues = [{"type": name, "comment": "c"} for name in prompts.SODA_PAPER_TAXONOMY]
    text = json.dumps({"issues": issues, "score": 1, "overall_comment": "Bad."})
    reading = parse_soda_paper(text)
    assert isinstance(reading, Verdict)
    assert [i["type"] for i in reading.fields["issues"]][-3:] == [
        "gender_pronoun",
        "non_textual",
        "other",
    ]


def test_on_the_soda_eval_fixture_the_explanations_are_compared_with_gpt4s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "soda_eval", root / "soda_eval")
    spec = "soda-eval-paper[http:sp-ok]"
    out = tmp_path / "out"
    args = ["evaluate", "--benchmark", "soda-eval", "--metrics", spec, "--data-dir", str(root)]
    assert main([*args, "--out", str(out), "--resamples", "100"]) == 0
    printed = capsys.readouterr().out
    assert "explanations against GPT-4's comments of the same responses" in printed
    name = metrics.get(spec).name
    found = json.loads((out / "table.json").read_text())["metrics"][name]["issues"]["explanations"]
    comments = read_comments(root)
    references = [comments[i].overall_comment for i in sorted(comments)]
    overall = found["overall comment"]
    assert overall["pairs"] == 8
    expected = sacrebleu.corpus_bleu(["Repetitive."] * 8, [references]).score
    assert overall["corpus_bleu"] == pytest.approx(expected)
    assert found["issues and overall comment"]["pairs"] == 8
