"""A bound on the body of one request to the leaderboard app, whatever it carries.

Gradio's `max_file_size` caps each file of an upload, but one `POST /gradio_api/upload` may carry
any number of files, so the total of one request is not bounded by it. `BoundedBody`, an ASGI
middleware, bounds it at MAX_REQUEST_BYTES (one submission file and its multipart framing):

- a request whose Content-Length is over the limit is answered 413 before any of its body is
  read;
- a request without one (chunked) has its body counted as it arrives: the chunk that goes over
  the limit is not passed on, the read raises `TooLarge` instead (a starlette
  `MultiPartException`, which Gradio's multipart parser handles by deleting the temporary files
  it had started), and the answer is a 413 whatever the route made of it.

The refusal asks the client to close the connection, so the rest of the body is never read.
"""

from __future__ import annotations

from starlette.formparsers import MultiPartException
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from comperbench.leaderboard.submission import MAX_FILE_BYTES

MULTIPART_OVERHEAD = 64 * 1024
"""Room for the multipart framing of one file: boundaries, part headers, a long file name."""
MAX_REQUEST_BYTES = MAX_FILE_BYTES + MULTIPART_OVERHEAD
"""Largest request body the app reads."""


class TooLarge(MultiPartException):
    """The body read of a request that went over the limit."""


def refusal(limit: int, size: int | None = None) -> str:
    """What a refused client is told: the request's size when known, the limit, what fits."""
    what = "the request went" if size is None else f"the request is {size} bytes,"
    return (
        f"refused: {what} over the maximum allowed size of {limit} bytes for one request;"
        f" upload one submission file of at most {MAX_FILE_BYTES} bytes per request"
    )


def declared_length(scope: Scope) -> int | None:
    """The request's Content-Length, or None when it has none (chunked) or an unreadable one
    (the server refuses that itself)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


class BoundedBody:
    """ASGI middleware: a request body over `limit` bytes is refused with 413 (see the module)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_REQUEST_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = declared_length(scope)
        if declared is not None and declared > self.limit:
            await self.refuse(scope, receive, send, refusal(self.limit, declared))
            return
        received = 0
        refused = False
        started = False  # a response start was sent: the app's, or the refusal in its stead
        replacing = False  # the app answers a refused request: its messages are dropped

        async def counted() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    refused = True
                    raise TooLarge(refusal(self.limit))
            return message

        async def answer(message: Message) -> None:
            nonlocal started, replacing
            if message["type"] == "http.response.start" and refused and not started:
                started = replacing = True
                await self.refuse(scope, receive, send, refusal(self.limit))
            elif not replacing:
                started = started or message["type"] == "http.response.start"
                await send(message)

        try:
            await self.app(scope, counted, answer)
        except TooLarge:
            if started:
                raise
            await self.refuse(scope, receive, send, refusal(self.limit))

    @staticmethod
    async def refuse(scope: Scope, receive: Receive, send: Send, message: str) -> None:
        response = PlainTextResponse(message, status_code=413, headers={"Connection": "close"})
        await response(scope, receive, send)
