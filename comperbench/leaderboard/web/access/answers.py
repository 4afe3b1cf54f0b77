"""Answers of the routes that call an event (`POST /gradio_api/run/{name}`, which runs it
outside the queue and answers 500 whatever failed, the client's values included, and
`POST /gradio_api/call/{name}`, which queues it and reports a failure on its stream).

`ClientErrors`, an ASGI middleware, answers the client's mistakes as its own:

- a call naming no event of the app (by name or `fn_index`), giving it a number of values it
  does not take, or a value of a type its control never sends (`value_problem`: text for a
  number, a list for a text box, anything for the page's own state that is not of its type),
  is answered 404 or 422 before the event runs or is queued;
- a call of `/run` refused on purpose with a message (a `gr.Error`: a value outside a control's choices,
  which Gradio's components check, or one the event's own checks refuse) is answered 422 with
  the first line of the message, cut to MAX_MESSAGE_CHARS.

Any other failure stays a 500: it is a fault of the app, not of the request.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

RUN_ROUTES = ("/gradio_api/run/", "/gradio_api/api/")
"""The routes that run an event outside the queue (the second is the first's older name)."""
CALL_ROUTES = ("/gradio_api/call/v2/", "/gradio_api/call/")
"""The routes that queue an event (and fill in the page's state from the session)."""
MAX_MESSAGE_CHARS = 300
"""Longest message of a refused call (Gradio's own lists every choice of a control)."""


def one_line(message: str) -> str:
    """The first line of `message`, cut to MAX_MESSAGE_CHARS characters."""
    line = message.strip().splitlines()[0] if message.strip() else "refused"
    return line if len(line) <= MAX_MESSAGE_CHARS else line[: MAX_MESSAGE_CHARS - 3] + "..."


def call_problem(
    blocks: Any, name: str, body: bytes, queued: bool = False
) -> tuple[int, str] | None:
    """Why a call of the event `name` with the JSON `body` cannot run (status and message):
    no such event, or values it does not take; None when it can (a body that is not a call
    is left to Gradio's own check, a 422). A `queued` call may leave out the page's state."""
    try:
        call = json.loads(body)
    except ValueError:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("data"), list):
        return None
    index = call.get("fn_index")
    if index is not None:
        fn = blocks.fns.get(index) if isinstance(index, int) else None
    else:
        fn = next((f for f in blocks.fns.values() if f.api_name == name), None)
    if fn is None or fn.fn is None:  # none, or one that runs in the browser only
        return 404, one_line(f"no event {name!r} (fn_index {index!r}) runs on this server")
    data = call["data"]
    inputs = list(fn.inputs)
    api_inputs = [b for b in inputs if not getattr(b, "skip_api", False)]
    if queued and len(data) == len(api_inputs):
        inputs = api_inputs
    if len(data) != len(inputs):  # `/run` fills in no value, the page's state included
        return 422, f"{fn.api_name} takes {len(inputs)} values, not {len(data)}"
    session = call.get("session_hash") is not None  # the page's own: its state is held
    for position, (component, value) in enumerate(zip(inputs, data, strict=True)):
        if problem := value_problem(component, value, session):
            return 422, f"{fn.api_name}: value {position + 1} {problem}"
    return None


def value_problem(component: Any, value: object, session: bool = False) -> str | None:
    """Why `value` is of a type `component` never sends (None: it is not); whether it is one
    of the component's choices is the component's own check. A page's call (`session`) sends
    no value for its state (null): Gradio holds it for the session."""
    import gradio as gr

    if isinstance(component, gr.State):
        kind = type(component.value)
        held = session and value is None
        if component.value is not None and type(value) is not kind and not held:
            return f"is the page's own state (a {kind.__name__}); it cannot be sent"
        return None
    number = isinstance(value, int | float) and not isinstance(value, bool)
    allowed: dict[type, tuple[str, bool]] = {
        gr.Number: ("a number", number or value is None),
        gr.Checkbox: ("true or false", isinstance(value, bool)),
        gr.Textbox: ("text", isinstance(value, str) or value is None),
        gr.CheckboxGroup: ("a list", isinstance(value, list)),
        gr.Dropdown: ("a choice", isinstance(value, str | int | float | list) or value is None),
        gr.Radio: ("a choice", isinstance(value, str | int | float) or value is None),
    }
    for kind, (what, fits) in allowed.items():
        if isinstance(component, kind):
            return None if fits else f"must be {what}, not {type(value).__name__}"
    return None


class ClientErrors:
    """ASGI middleware: the answers of the module for calls of `/gradio_api/run/...` and
    `/gradio_api/call/...`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        route = next((r for r in (*RUN_ROUTES, *CALL_ROUTES) if r in path), None)
        if route is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body, messages = await _whole(receive)
        name = path.split(route, 1)[1].strip("/")
        queued = route in CALL_ROUTES
        problem = call_problem(scope["app"].get_blocks(), name, body, queued)
        if problem is not None:
            status, message = problem
            await JSONResponse({"error": message}, status_code=status)(scope, receive, send)
            return

        async def replayed() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replayed, send if queued else _Answer(send))


async def _whole(receive: Receive) -> tuple[bytes, list[Message]]:
    """The request's body, and its messages to pass on as they came."""
    messages = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            break
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
    return body, messages


class _Answer:
    """`send` with a 500 that carries a message turned into a 422 with its first line."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: Message | None = None
        self.body = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 500:
            self.start = message
            return
        if self.start is None or message["type"] != "http.response.body":
            await self.send(message)
            return
        self.body += message.get("body", b"")
        if not message.get("more_body", False):
            await self._finish()

    async def _finish(self) -> None:
        assert self.start is not None
        try:
            error = json.loads(self.body).get("error")
        except (ValueError, AttributeError):
            error = None
        if not isinstance(error, str) or not error:
            await self.send(self.start)
            await self.send({"type": "http.response.body", "body": self.body})
            return
        answer = json.dumps({"error": one_line(error)}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]
        await self.send({"type": "http.response.start", "status": 422, "headers": headers})
        await self.send({"type": "http.response.body", "body": answer})
