"""HTTP backend and judges against an OpenAI chat-completions server on 127.0.0.1 run by the test."""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any

import pytest
from llm_server import Handler

from comperbench import metrics
from comperbench.cli import main
from comperbench.common.errors import ComperbenchError
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import backend_factory as llm_backends
from comperbench.metrics.llm import cpdscore as llm_cpdscore
from comperbench.metrics.llm.backends import budget as llm_budget
from comperbench.metrics.llm.backends.chat_requests import (
    BackendError,
    ChatRequest,
    Completion,
    Failure,
)
from comperbench.metrics.llm.backends.http_endpoint import HttpBackend
from comperbench.schema import Utterance

pytestmark = pytest.mark.usefixtures("judge_server")


def backend(server: str, model: str, **kwargs: Any) -> HttpBackend:
    options = {"timeout_s": 5.0, "retries": 2, "backoff_s": 0.01} | kwargs
    return HttpBackend(base_url=server, model=model, **options)


def request(seed: int = 0, options: tuple[str, ...] = ()) -> ChatRequest:
    return ChatRequest(
        (("user", "rate"),), max_tokens=8, temperature=0.0, seed=seed, options=options
    )


def item(i: int = 0) -> TurnItem:
    return TurnItem(f"t{i}", "I like pizza.", context=(Utterance("User", "What do you eat?"),))


def test_a_plain_answer_and_what_was_sent(server: str) -> None:
    [out] = backend(server, "plain").complete([request(seed=7)])
    assert isinstance(out, Completion) and out.text == "Score: 5"
    sent = Handler.seen[0]
    assert sent["model"] == "plain" and sent["seed"] == 7 and sent["temperature"] == 0.0
    assert sent["messages"] == [{"role": "user", "content": "rate"}]


def test_500s_are_retried_with_backoff(server: str) -> None:
    [out] = backend(server, "flaky-a").complete([request()])
    assert isinstance(out, Completion) and out.text == "Score: 4"
    assert len(Handler.seen) == 3


def test_429s_are_retried_with_backoff(server: str) -> None:
    [out] = backend(server, "flaky-429").complete([request()])
    assert isinstance(out, Completion) and out.text == "Score: 4"
    assert len(Handler.seen) == 3


def test_a_server_that_keeps_failing_gives_a_failure_with_the_reason(server: str) -> None:
    [out] = backend(server, "down").complete([request()])
    assert isinstance(out, Failure) and "HTTP 503" in out.error and out.attempts == 3


def test_timeouts_are_retried_then_reported(server: str) -> None:
    [out] = backend(server, "slow", timeout_s=0.2, retries=1).complete([request()])
    assert isinstance(out, Failure) and "timed out" in out.error and out.attempts == 2


@pytest.mark.parametrize("model", ["malformed", "no-choices"])
def test_malformed_json_is_retried_then_reported(server: str, model: str) -> None:
    [out] = backend(server, model).complete([request()])
    assert isinstance(out, Failure) and "malformed response body" in out.error
    assert len(Handler.seen) == 3


def test_a_client_error_is_not_retried(server: str) -> None:
    [out] = backend(server, "bad-request").complete([request()])
    assert isinstance(out, Failure) and "HTTP 400" in out.error and len(Handler.seen) == 1


@pytest.mark.parametrize("model", ["refuse", "filtered"])
def test_refusals_are_recognised(server: str, model: str) -> None:
    [out] = backend(server, model).complete([request()])
    assert isinstance(out, Completion) and out.refusal


def test_concurrency_is_limited(server: str) -> None:
    # The server holds each request until two are in flight, then until a third one is (or
    # 0.5 s): a client that sends more than two at a time is caught, one that sends fewer
    # never reaches two.
    outs = backend(server, "gate-2", concurrency=2).complete([request(seed=i) for i in range(4)])
    assert all(isinstance(o, Completion) for o in outs)
    assert Handler.peak["gate-2"] == 2


def test_top_logprobs_give_option_probabilities(server: str) -> None:
    [out] = backend(server, "logprobs").complete([request(options=("1", "2", "3", "4", "5"))])
    assert isinstance(out, Completion)
    assert out.option_probs == pytest.approx({"4": 0.6 / 0.9, "5": 0.2 / 0.9, "3": 0.1 / 0.9})
    assert Handler.seen[0]["logprobs"] is True and Handler.seen[0]["top_logprobs"] == 20


def test_missing_configuration_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPERBENCH_LLM_BASE_URL")
    with pytest.raises(BackendError, match="COMPERBENCH_LLM_BASE_URL"):
        HttpBackend(model="m")


def test_cpdscore_averages_n_calls_and_records_settings(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:seeded,n=3,seed=10]")
    assert metric.name == "cpdscore-simple[http:seeded,n=3,t=0.7,seed=10,prompt=1]"
    [score] = metric.score([item()])
    # seeds 10, 11, 12 -> scores 1, 2, 3
    assert score == pytest.approx(2.0)
    assert sorted(s["seed"] for s in Handler.seen) == [10, 11, 12]
    assert metric.notes["temperature"] == 0.7 and metric.notes["seed"] == 10
    assert metric.notes["backend"]["model"] == "seeded"


def test_raw_outputs_are_stored_for_audit_and_reused(server: str, tmp_path: Any) -> None:
    metric = metrics.get("cpdscore-detailed[http:plain,n=2]")
    assert metric.score([item()]) == [5.0]
    files = sorted((tmp_path / "llm").rglob("*.json"))
    assert len(files) == 2
    record = json.loads(files[0].read_text())
    assert record["text"] == "Score: 5" and record["backend"]["model"] == "plain"
    assert "Evaluation steps" in record["request"]["messages"][1][1]
    again = metrics.get("cpdscore-detailed[http:plain,n=2]")
    assert again.score([item()]) == [5.0]
    assert len(Handler.seen) == 2 and again.notes["cached_calls"] == 2


def test_unparsable_output_is_retried_then_counted_never_scored(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:chatty,n=1,retries=2]")
    [score] = metric.score([item()])
    assert math.isnan(score)
    assert len(Handler.seen) == 3
    assert [s["seed"] for s in Handler.seen] == [0, 1000, 2000]
    assert metric.notes["rejected_by_reason"] == {"no score": 1}
    assert metric.notes["retried_calls"] == 2 and metric.notes["rejected_calls"] == 1
    assert metric.notes["first_answers"] == 1 and metric.notes["first_answers_rejected"] == 1
    assert metric.notes["unscored_items"] == ["t0"]


def test_unusable_answers_are_not_replayed_once_the_server_is_fixed(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = "cpdscore-simple[http:chatty,n=1,retries=0]"
    assert math.isnan(metrics.get(spec).score([item()])[0]) and len(Handler.seen) == 1
    fixed = Handler.behave

    def scoring(handler: Handler, model: str, body: dict[str, Any]) -> None:
        if model != "chatty":
            return fixed(handler, model, body)
        handler.reply(200, handler.message("Score: 4"))

    monkeypatch.setattr(Handler, "behave", scoring)
    again = metrics.get(spec)
    assert again.score([item()]) == [4.0]
    assert len(Handler.seen) == 2 and again.notes["cached_calls"] == 0
    reused = metrics.get(spec)
    assert reused.score([item()]) == [4.0]  # a usable answer is kept and reused
    assert len(Handler.seen) == 2 and reused.notes["cached_calls"] == 1


def test_refusals_are_counted_apart(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:refuse,n=1,retries=0]")
    assert math.isnan(metric.score([item()])[0])
    assert metric.notes["rejected_by_reason"] == {"refusal": 1}


def test_a_dead_endpoint_fails_the_run_clearly(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:down,n=1]")
    with pytest.raises(BackendError, match="every request"):
        metric.score([item()])


def test_reference_variant_puts_the_reference_in_the_prompt(server: str) -> None:
    with_ref = TurnItem("r", "I like pizza.", references=("Pasta, mostly.",))
    metrics.get("cpdscore-simple-ref[http:plain,n=1]").score([with_ref])
    assert "Pasta, mostly." in Handler.seen[0]["messages"][1]["content"]
    with pytest.raises(ValueError, match="no reference"):
        metrics.get("cpdscore-simple-ref[http:plain,n=1]").score([item()])


def test_geval_weights_scores_by_probability(server: str) -> None:
    metric = metrics.get("geval[engagingness,http:logprobs]")
    assert metric.name == "geval[engagingness,http:logprobs,n=1,t=0,seed=0,prompt=1]"
    [score] = metric.score([item()])
    assert score == pytest.approx((4 * 0.6 + 5 * 0.2 + 3 * 0.1) / 0.9)
    assert "Engagingness (1-5)" in Handler.seen[0]["messages"][1]["content"]


def test_geval_any_aspect_parses_text_without_logprobs(server: str) -> None:
    metric = metrics.get("geval[wit,http:plain]")
    # "Score: 5" does not start with a digit: unparsable, so retried and counted.
    assert math.isnan(metric.score([item()])[0])
    assert "the wit of the response" in Handler.seen[0]["messages"][1]["content"]


def test_soda_eval_reads_issues_score_and_comment(server: str) -> None:
    metric = metrics.get("soda-eval[http:soda]")
    assert metric.score([item()]) == [2.0]
    [call] = metric.explain([item()])["t0"]["calls"]
    assert call["issues"] == [{"type": "repetition", "explanation": "says hi twice"}]
    assert call["comment"] == "Repetitive." and call["score"] == 2.0


def test_notes_add_up_over_the_batches_of_a_run(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:chatty,n=1,retries=0]")
    metric.score([item(0)])
    metric.score([item(1), item(2)])
    assert metric.notes["calls"] == 3 and metric.notes["rejected_calls"] == 3
    assert metric.notes["unscored_items"] == ["t0", "t1", "t2"]


def test_evaluate_reports_unparsable_judge_output_per_run(
    server: str, data_root: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = "cpdscore-simple[http:chatty,n=1,retries=0]"
    name = metrics.get(spec).name
    out = tmp_path / "out"
    args = ["evaluate", "--benchmark", "holistic-context", "--metrics", spec, "--out", str(out)]
    assert main([*args, "--resamples", "0", "--data-dir", str(data_root)]) == 1
    captured = capsys.readouterr()
    printed = captured.out
    assert f"every score of {name} is NaN" in captured.err
    assert f"note: {name}: calls 200; rejected calls 200" in printed
    assert f"note: {name}: first answers unusable: 200 of 200 (100.0%)" in printed
    assert f"note: {name}: unusable after every retry: no score 200" in printed
    assert f"note: {name} scored NaN on 200 of 200 (left out)" in printed
    notes = json.loads((out / "table.json").read_text())["metrics"][name]["notes"]
    assert notes["rejected_by_reason"] == {"no score": 200} and len(notes["unscored_items"]) == 200
    assert notes["backend"]["backend"] == "http" and notes["backend"]["model"] == "chatty"


def test_unscored_items_are_not_cached_so_the_next_run_asks_again(
    server: str, tmp_path: Any
) -> None:
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import score_items

    cache = ScoreCache(tmp_path / "scores")
    failed = score_items(metrics.get("cpdscore-simple[http:refuse,n=1,retries=0]"), [item()], cache)
    assert math.isnan(failed.scores[0]) and failed.computed == 1
    again = score_items(metrics.get("cpdscore-simple[http:refuse,n=1,retries=0]"), [item()], cache)
    assert again.cached == 0 and again.computed == 1
    scored = score_items(metrics.get("cpdscore-simple[http:plain,n=1]"), [item()], cache)
    assert scored.scores == [5.0]
    reused = score_items(metrics.get("cpdscore-simple[http:plain,n=1]"), [item()], cache)
    assert reused.cached == 1 and reused.scores == [5.0]


def test_dialogue_cpdscore_judges_the_system_turns_then_adjusts(server: str) -> None:
    from comperbench.metrics.base import DialogueItem

    turns = (
        Utterance("User", "Hello! How are you?"),
        Utterance("System", "Great, thanks."),
        Utterance("User", "Good, you?"),
        Utterance("System", "I just said so."),
    )
    metric = metrics.get("cpdscore-dialogue[http:plain,n=2]")
    assert metric.score([DialogueItem("d0", turns)]) == [5.0]
    judged = [
        s["messages"][-1]["content"].split("Response to rate:\n")[1] for s in Handler.seen[:4]
    ]
    # requests run concurrently, so they arrive in any order
    assert sorted(j.split("\n")[0] for j in judged) == [
        "Great, thanks.",
        "Great, thanks.",
        "I just said so.",
        "I just said so.",
    ]
    assert len(Handler.seen) == 6  # 2 system turns x n=2, then the adjust step x n=2
    [explained] = metric.explain([DialogueItem("d0", turns)]).values()
    assert explained["intermediate"] == 5.0 and explained["turn_scores"] == [5.0, 5.0]
    assert [c["score"] for c in explained["calls"]] == [5.0, 5.0]
    assert llm_cpdscore.judged_turns((*turns[:1], Utterance("A", "x"), Utterance("B", "y"))) == [
        1,
        2,
    ]


def test_http_errors_follow_the_retries_option(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:down,n=1,retries=1]")
    with pytest.raises(BackendError):
        metric.score([item()])
    assert len(Handler.seen) == 2


def test_consecutive_failures_stop_the_run_naming_server_and_status(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:down,n=1,retries=0,max_failures=3]")
    with pytest.raises(BackendError, match="3 requests in a row failed") as caught:
        metric.score([item(i) for i in range(40)])
    assert server in str(caught.value) and "HTTP 503" in str(caught.value)
    assert len(Handler.seen) <= 3 + 4  # the requests already in flight end, no new ones start


def test_a_success_resets_the_count_of_failures_in_a_row(server: str) -> None:
    # flaky: two 500s, then answers; with no retries two requests fail, the rest succeed
    metric = metrics.get("cpdscore-simple[http:flaky-b,n=1,retries=0,max_failures=3]")
    scores = metric.score([item(i) for i in range(6)])
    assert sum(math.isnan(s) for s in scores) == 2 and metric.notes["failed_calls"] == 2


def test_a_deadline_bounds_a_hanging_server(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:hang,n=1,deadline=0.5]")
    start = time.monotonic()
    with pytest.raises(BackendError, match=r"deadline of 0.5 s") as caught:
        metric.score([item(i) for i in range(8)])
    assert time.monotonic() - start < 2.0 and server in str(caught.value)


def test_progress_shows_requests_done_failed_and_retried(
    server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(llm_budget, "PROGRESS_EVERY_S", 0.0)
    metric = metrics.get("cpdscore-simple[http:flaky-c,n=1,retries=2]")
    assert metric.score([item()]) == [4.0]
    err = capsys.readouterr().err
    assert f"{metric.name}: 1 requests done, 0 failed, 2 retried" in err


def test_progress_shows_while_a_server_hangs(
    server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(llm_budget, "PROGRESS_EVERY_S", 0.2)
    metric = metrics.get("cpdscore-simple[http:hang,n=1,deadline=0.7]")
    with pytest.raises(BackendError, match="deadline"):
        metric.score([item()])
    assert f"{metric.name}: 0 requests done, 0 failed, 0 retried" in capsys.readouterr().err


def test_evaluate_against_a_failing_server_stops_fast_with_exit_2(
    server: str, data_root: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = "cpdscore-simple[http:down,n=1,retries=0]"
    args = ["evaluate", "--benchmark", "holistic-context", "--metrics", spec]
    args += ["--out", str(tmp_path / "out"), "--resamples", "0", "--data-dir", str(data_root)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "5 requests in a row failed" in err and server in err and "HTTP 503" in err
    assert len(Handler.seen) <= 5 + 4


# Names, options and keys ------------------------------------------------------------------------


def test_a_judge_name_says_what_changes_its_scores_and_rebuilds_the_judge() -> None:
    judge = metrics.get("cpdscore-simple[http:qwen,n=5,t=0.2,seed=3]")
    assert judge.name == "cpdscore-simple[http:qwen,n=5,t=0.2,seed=3,prompt=1]"
    assert metrics.get(judge.name).config() == judge.config()
    unstructured = metrics.get("soda-eval[http:qwen,structured=false]")
    assert unstructured.name.endswith(",prompt=1,structured=false]")
    assert unstructured.config()["structured"] is False


def test_two_variants_of_a_judge_get_two_columns_and_one_judge_twice_is_refused() -> None:
    from comperbench.metrics.runner import resolve_metrics

    two = resolve_metrics("cpdscore-simple[n=1],cpdscore-simple[n=3]", "turn")
    assert len({m.name for m in two}) == 2
    with pytest.raises(ComperbenchError, match="are the same metric"):
        resolve_metrics("cpdscore-simple,cpdscore-simple[n=3,seed=0]", "turn")


def test_command_line_judge_options_fill_what_the_brackets_leave_open(server: str) -> None:
    from comperbench.metrics.runner import resolve_metrics

    options = {"judge_model": "http:plain", "judge_url": server, "judge_retries": "0"}
    [mine, theirs] = resolve_metrics(
        "cpdscore-simple[n=1],cpdscore-simple[http:seeded]", "turn", options
    )
    assert mine.name.startswith("cpdscore-simple[http:plain,n=1,")
    assert theirs.name.startswith("cpdscore-simple[http:seeded,n=3,")
    assert mine.settings.retries == 0 and mine.config()["url"] == server


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cpdscore-simple[url=http://x]", "apply to a server"),
        ("cpdscore-simple[http:m,prompt=2]", "prompt version 1"),
        ("cpdscore-simple[http:m,colour=red]", "unknown judge option 'colour'"),
        ("cpdscore-simple[http:m,n=two]", "judge option 'n'"),
        ("cpdscore-simple[http:m,structured=maybe]", "expected true or false"),
        ("cpdscore-simple[http:m,concurrency=0]", "concurrency at least 1"),
    ],
)
def test_bad_judge_options_are_refused_by_name(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        metrics.get(spec)


def test_the_key_comes_from_a_file_is_sent_and_never_shown(server: str, tmp_path: Any) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("sk-secret-123\n")
    judge = metrics.get(f"cpdscore-simple[http:plain,n=1,key_file={key_file}]")
    assert judge.score([item()]) == [5.0]
    assert Handler.keys == ["Bearer sk-secret-123"]
    shown = " ".join([judge.name, judge.signature(), json.dumps(judge.notes), repr(judge.config())])
    shown += repr(llm_backends.make_backend(judge.settings))
    assert "sk-secret" not in shown
    (tmp_path / "empty").write_text("")
    with pytest.raises(BackendError, match="is empty"):
        metrics.get(f"cpdscore-simple[http:plain,key_file={tmp_path / 'empty'}]").score([item()])
    with pytest.raises(BackendError, match="nowhere"):
        metrics.get(f"cpdscore-simple[http:plain,key_file={tmp_path / 'nowhere'}]").score([item()])


def test_evaluate_help_documents_the_judge_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--judge-model", "--judge-url", "--judge-timeout", "--judge-concurrency"):
        assert option in text
    assert "--judge-retries" in text and "--judge-key-file" in text and "never printed" in text


# Structured output, unusable answers, explanations ----------------------------------------------


def test_structured_output_sends_the_answer_schema(server: str) -> None:
    metrics.get("cpdscore-simple[http:plain,n=1]").score([item()])
    schema = Handler.seen[0]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
    metrics.get("soda-eval[http:soda-text]").score([item()])
    issues = Handler.seen[1]["response_format"]["json_schema"]["schema"]["properties"]["issues"]
    assert "gender pronoun" in issues["items"]["properties"]["type"]["enum"]
    metrics.get("cpdscore-simple[http:plain,n=1,structured=false,seed=1]").score([item()])
    assert "response_format" not in Handler.seen[2]


def test_json_answers_of_structured_output_are_read(server: str) -> None:
    from comperbench.metrics.llm.parsing import Verdict, parse_score

    assert parse_score('{"score": 4}') == Verdict(4.0)


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        ("off-scale", "score outside 1-5"),
        ("decimal", "score not a whole number"),
        ("impostor", "answered by another model"),
        ("soda-unknown", "unknown issue type"),
        ("soda-empty", "empty comment"),
    ],
)
def test_unusable_answers_are_counted_by_reason_never_scored(
    server: str, model: str, reason: str
) -> None:
    base = "soda-eval" if model.startswith("soda") else "cpdscore-simple"
    judge = metrics.get(f"{base}[http:{model},n=1,retries=1]")
    assert math.isnan(judge.score([item()])[0])
    assert judge.notes["rejected_by_reason"] == {reason: 1}
    assert judge.notes["first_answers_rejected"] == 1 and judge.notes["retried_calls"] == 1


def test_a_dated_snapshot_of_the_model_asked_for_is_accepted(server: str) -> None:
    assert metrics.get("cpdscore-simple[http:dated,n=1]").score([item()]) == [4.0]


def test_a_verdict_obtained_on_a_retry_is_kept_in_the_explanation(server: str) -> None:
    judge = metrics.get("soda-eval[http:soda-retry,retries=1]")
    assert judge.score([item()]) == [4.0]
    [call] = judge.explain([item()])["t0"]["calls"]
    assert call["attempt"] == 1 and call["seed"] == 1000 and call["comment"] == "A reply."
    assert len(Handler.seen) == 2  # explaining replays the raw store, it asks no one


def test_cpdscore_explanations_keep_every_call(server: str) -> None:
    judge = metrics.get("cpdscore-simple[http:seeded,n=3,seed=10]")
    judge.score([item()])
    calls = judge.explain([item()])["t0"]["calls"]
    assert [(c["seed"], c["score"]) for c in calls] == [(10, 1.0), (11, 2.0), (12, 3.0)]


class _Window:
    """A backend whose window holds `words` words of prompt (for the judge's own cut)."""

    def __init__(self, words: int) -> None:
        self.words = words

    def overflow(self, request: ChatRequest) -> int:
        return len(request.messages[-1][1].split()) - self.words


def test_a_long_prompt_loses_its_oldest_turns_never_its_instructions() -> None:
    from comperbench.metrics.llm.judge import Ledger

    judge = metrics.get("cpdscore-simple[http:m,n=1]")
    context = tuple(Utterance("A", f"turn{i} " + "word " * 20) for i in range(10))
    long_item = TurnItem("long", "Fine.", context=context)
    short = judge.user_prompt(long_item, ())
    window = _Window(len(short.split()) + 2 * 22)  # room for two turns
    ledger = Ledger()
    text, left_out = judge.fitted(
        window,
        lambda c: judge.user_prompt(long_item, c),
        context,
        ledger,  # type: ignore[arg-type]
    )
    assert left_out == 8 and "turn8" in text and "turn9" in text and "turn7" not in text
    assert text.startswith(short.split("\n")[0])  # the instructions are all there
    assert ledger.prompts_shortened == 1 and ledger.turns_left_out == 8
    fits, none = judge.fitted(
        _Window(10**6), lambda c: judge.user_prompt(long_item, c), context, ledger
    )  # type: ignore[arg-type]
    assert none == 0 and "turn0" in fits


def test_a_judge_keeps_as_many_requests_in_flight_as_its_concurrency_allows(server: str) -> None:
    # gate-6 holds each request until six are in flight, then until a seventh is (or 0.5 s):
    # with concurrency=6 the server sees six at once, never more
    judge = metrics.get("cpdscore-simple[http:gate-6,n=2,concurrency=6]")
    assert judge.score([item(i) for i in range(6)]) == [3.0] * 6
    assert Handler.peak["gate-6"] == 6


def test_an_answer_cut_at_max_tokens_is_rejected_as_such(server: str) -> None:
    judge = metrics.get("soda-eval[http:cut,retries=0]")
    assert math.isnan(judge.score([item()])[0])
    assert judge.notes["rejected_by_reason"] == {"answer cut at max_tokens": 1}


# Limits of one request ----------------------------------------------------------------------------


def test_a_huge_response_body_is_a_failed_request_not_read_whole(server: str) -> None:
    [out] = backend(server, "huge", max_response_bytes=1024 * 1024).complete([request()])
    assert isinstance(out, Failure) and "response body larger than 1 MB" in out.error
    assert len(Handler.seen) == 1


def test_a_judge_whose_answers_are_all_huge_fails_with_one_clear_error(server: str) -> None:
    metric = metrics.get("cpdscore-simple[http:huge,n=1,retries=0]")
    with pytest.raises(BackendError, match="response body larger than 8 MB, not read"):
        metric.score([item()])


def test_a_trickling_server_cannot_keep_a_request_past_its_total_time(server: str) -> None:
    options = {"timeout_s": 5.0, "retries": 5, "total_timeout_s": 1.0}
    outcomes: list[Any] = []
    worker = threading.Thread(
        target=lambda: outcomes.extend(backend(server, "trickle", **options).complete([request()])),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=30.0)  # each try alone would trickle for 60 s
    [out] = outcomes
    assert isinstance(out, Failure) and "no answer within 1 s" in out.error


def test_total_timeout_is_a_judge_option_and_must_be_positive() -> None:
    judge = metrics.get("cpdscore-simple[http:plain,total_timeout=7]")
    assert judge.settings.total_timeout == 7.0
    with pytest.raises(ComperbenchError, match="total_timeout must be positive"):
        metrics.get("cpdscore-simple[http:plain,total_timeout=0]")
