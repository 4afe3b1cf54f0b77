"""An OpenAI chat-completions server on 127.0.0.1 for the judge tests: its behaviour follows the
requested model name, and it records every request body and Authorization header."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from deadlines import DEADLINE_S


class Handler(BaseHTTPRequestHandler):
    """Behaviour chosen by the requested model name; every request body is recorded."""

    seen: ClassVar[list[dict[str, Any]]] = []
    keys: ClassVar[list[str | None]] = []
    failures_left: ClassVar[dict[str, int]] = {}
    in_flight: ClassVar[dict[str, int]] = {}
    peak: ClassVar[dict[str, int]] = {}
    model: str
    lock = threading.Lock()
    changed = threading.Condition(lock)

    def log_message(self, *args: object) -> None:
        pass

    def handle(self) -> None:
        """Serve, unmoved by a client that stopped waiting (a timeout test's)."""
        with suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def reply(self, status: int, body: bytes) -> None:
        """Answer, counting the request out of flight before the client can see the answer."""
        with Handler.changed:
            Handler.in_flight[self.model] -= 1
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def message(
        self,
        content: str | None,
        refusal: str | None = None,
        model: str | None = None,
        **extra: Any,
    ) -> bytes:
        message = {"role": "assistant", "content": content, "refusal": refusal}
        choice = {"index": 0, "message": message, "finish_reason": "stop"} | extra
        body = {"id": "x", "object": "chat.completion", "choices": [choice]}
        return json.dumps(body | ({"model": model} if model else {})).encode()

    def do_POST(self) -> None:
        assert self.path == "/v1/chat/completions"
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        model = self.model = body["model"]
        with Handler.changed:
            Handler.seen.append(body)
            Handler.keys.append(self.headers.get("Authorization"))
            Handler.in_flight[model] = Handler.in_flight.get(model, 0) + 1
            Handler.peak[model] = max(Handler.peak.get(model, 0), Handler.in_flight[model])
            Handler.changed.notify_all()
        self.behave(model, body)

    def gate(self, model: str, above: int) -> None:
        """Hold the request until `above` requests of `model` are in flight (however slowly a
        loaded machine sends them, up to `DEADLINE_S`), then until one more arrives or
        0.5 s pass: a client sending more than `above` at once is seen doing it."""
        with Handler.changed:
            Handler.changed.wait_for(lambda: Handler.in_flight[model] >= above, timeout=DEADLINE_S)
            Handler.changed.wait_for(lambda: Handler.in_flight[model] > above, timeout=0.5)
        self.reply(200, self.message("Score: 3"))

    def trickle(self, body: bytes) -> None:
        """Answer one byte at a time, slowly enough to take minutes, fast enough that no read
        waits long."""
        with Handler.changed:
            Handler.in_flight[self.model] -= 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        for byte in body:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.05)

    def behave(self, model: str, body: dict[str, Any]) -> None:
        if model.startswith("flaky"):  # 500 (flaky-429: 429) twice, then an answer
            with Handler.lock:
                left = Handler.failures_left.setdefault(model, 2)
                Handler.failures_left[model] = left - 1
            if left > 0:
                self.reply(429 if model == "flaky-429" else 500, b'{"error": "overloaded"}')
                return
            self.reply(200, self.message("Score: 4"))
        elif model == "down":
            self.reply(503, b"unavailable")
        elif model.startswith("gate-"):  # gate-<limit>
            self.gate(model, int(model.split("-")[1]))
        elif model == "hang":
            time.sleep(3.0)
            self.reply(200, self.message("Score: 3"))
        elif model == "huge":  # a valid answer of 16 MB
            self.reply(200, self.message("Score: 3 " + "x" * (16 * 1024 * 1024)))
        elif model == "trickle":  # a byte every 0.05 s, for 60 s
            self.trickle(b" " * 1200)
        elif model == "slow":
            time.sleep(1.0)
            self.reply(200, self.message("Score: 3"))
        elif model == "malformed":
            self.reply(200, b'{"choices": [{"message": ')
        elif model == "no-choices":
            self.reply(200, b'{"object": "chat.completion"}')
        elif model == "refuse":
            self.reply(200, self.message(None, refusal="I can't help with that."))
        elif model == "filtered":
            self.reply(200, self.message("", finish_reason="content_filter"))
        elif model == "chatty":
            self.reply(200, self.message("It is a nice reply, I think."))
        elif model == "bad-request":
            self.reply(400, b'{"error": "bad model"}')
        elif model == "logprobs":
            top = [
                {"token": "4", "logprob": math.log(0.6)},
                {"token": "5", "logprob": math.log(0.2)},
                {"token": "3", "logprob": math.log(0.1)},
                {"token": "Score", "logprob": math.log(0.1)},
            ]
            logprobs = {"content": [{"token": "4", "logprob": math.log(0.6), "top_logprobs": top}]}
            self.reply(200, self.message("4", logprobs=logprobs))
        elif model == "soda":
            verdict = {
                "issues": [{"type": "Repetition", "explanation": "says hi twice"}],
                "score": 2,
                "comment": "Repetitive.",
            }
            self.reply(200, self.message("```json\n" + json.dumps(verdict) + "\n```"))
        elif model == "impostor":
            self.reply(200, self.message("Score: 4", model="someone-else"))
        elif model == "dated":
            self.reply(200, self.message("Score: 4", model="dated-2024-08-06"))
        elif model == "off-scale":
            self.reply(200, self.message("Score: 7"))
        elif model == "decimal":
            self.reply(200, self.message("Score: 4.45"))
        elif model.startswith("soda-"):
            self.reply(200, self.message(soda_verdict(model, body)))
        elif model == "cut":
            self.reply(200, self.message('{"issues": [{"type": "rep', finish_reason="length"))
        elif model == "seeded":  # the score follows the seed, so that n calls can be told apart
            self.reply(200, self.message(f"Score: {body['seed'] % 5 + 1}"))
        else:
            self.reply(200, self.message("Score: 5"))


def soda_verdict(model: str, body: dict[str, Any]) -> str:
    """A SODA-EVAL answer: `soda-text` flags repetition when the response says "again" (and an
    unknown type when it says "weird"), `soda-retry` answers only retries, `soda-empty` gives no
    comment."""
    prompt = body["messages"][-1]["content"]
    response = prompt.split("Response:\n")[1].split("\n")[0]
    issues = []
    if "again" in response:
        issues.append({"type": "Repetition", "explanation": "says it again"})
    if model == "soda-unknown" or "weird" in response:
        issues.append({"type": "Rudeness", "explanation": "not in the taxonomy"})
    if model == "soda-retry" and body["seed"] < 1000:
        return "I think it is fine."
    comment = "" if model == "soda-empty" else "A reply."
    score = 2 if issues else 4
    return json.dumps({"issues": issues, "score": score, "comment": comment})


@contextmanager
def serving() -> Iterator[str]:
    """The server's base URL while it runs."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def reset() -> None:
    """Forget the requests seen and the failures counted."""
    Handler.seen.clear()
    Handler.keys.clear()
    Handler.failures_left.clear()
    Handler.peak.clear()


Answerer = Callable[[str, dict[str, Any]], str | None]
"""The text a test's model answers a request body with, or None for the server's behaviour."""


def answer_with(monkeypatch: pytest.MonkeyPatch, answer: Answerer) -> None:
    """Make the server answer `answer(model, body)` where it gives a text, and behave as usual
    where it gives None, for the rest of the test."""
    behave = Handler.behave

    def answering(handler: Handler, model: str, body: dict[str, Any]) -> None:
        text = answer(model, body)
        if text is None:
            behave(handler, model, body)
        else:
            handler.reply(200, handler.message(text))

    monkeypatch.setattr(Handler, "behave", answering)
