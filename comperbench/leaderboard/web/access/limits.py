"""Bounds on what one request may bring into the leaderboard app, and on the uploads it keeps.

Gradio's `max_file_size` caps each file of an upload, but one `POST /gradio_api/upload` may carry
up to 1,000 files, from anyone, kept until Gradio's cache clean-up. `BoundedBody`, an ASGI
middleware, bounds

- the body of every request at MAX_REQUEST_BYTES (one submission file and its multipart
  framing): a request whose Content-Length is over it is answered 413 before any of its body is
  read; one without (chunked) has its body counted as it arrives;
- an upload (`POST .../gradio_api/upload`), which
  - where the app has a sign-in (Gradio's session, there when the page has a LoginButton), is
    refused (401) from a session not signed in, before any of its body is read;
  - may carry MAX_FILES_PER_REQUEST file: the part after it is refused (413) as it begins;
  - is admitted only when what it may bring (its Content-Length, or MAX_REQUEST_BYTES when
    chunked) fits, with the uploads not yet submitted (`uploads.Uploads`, expired after
    `uploads.UPLOAD_LIFE`) and the upload requests in flight, within PENDING_BYTES and
    PENDING_FILES, and with its client's (the signed-in account, else the address) within
    CLIENT_BYTES and CLIENT_FILES, so that no one client can hold the uploads of everyone;
    otherwise it is refused (503, with Retry-After) before any of its body is read;
  - is refused (400) unless it is multipart/form-data with a boundary RFC 2046 allows;
  - is refused (408) when its body stalls for IDLE_SECONDS, and (400) when its client goes
    away before its body ends: what was written of it is deleted;
- the routes in REFUSED_ROUTES (Gradio's video recording route) are refused (404) unread.

A refusal found while the body is read is raised into the route as a starlette
`MultiPartException` (which Gradio's multipart parser handles by deleting the temporary files it
had started), and the answer is the refusal whatever the route made of it. A refusal asks the
client to close the connection, so the rest of the body is never read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import time

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.formparsers import MultiPartException
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from comperbench.leaderboard.submission import MAX_FILE_BYTES
from comperbench.leaderboard.web.access.uploads import UPLOAD_LIFE, Held, Uploads, uploads_of

MULTIPART_OVERHEAD = 64 * 1024
"""Room for the multipart framing of one file: boundaries, part headers, a long file name."""
MAX_REQUEST_BYTES = MAX_FILE_BYTES + MULTIPART_OVERHEAD
"""Largest request body the app reads."""
MAX_FILES_PER_REQUEST = 1
"""Files one upload request may carry: the submission form sends one."""
PENDING_BYTES = 4 * MAX_REQUEST_BYTES
"""Most bytes of uploads not yet submitted (those in flight counted at what they may bring)."""
PENDING_FILES = 100
"""Most uploads not yet submitted, those in flight included."""
CLIENT_BYTES = 2 * MAX_REQUEST_BYTES
"""Most bytes of uploads not yet submitted from one client (an account, or an address where no
one signs in), those in flight counted at what they may bring."""
CLIENT_FILES = 10
"""Most uploads not yet submitted from one client, those in flight included."""
IDLE_SECONDS = 30.0
"""Longest wait for the next chunk of an upload's body: a stalled upload is refused (408)."""
UPLOAD_ROUTE = "/gradio_api/upload"
REFUSED_ROUTES = ("/gradio_api/process_recording",)
"""Routes that take bytes the leaderboard never needs (it records no video): refused (404)."""
_BOUNDARY = re.compile(rb"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
"""A multipart boundary as RFC 2046 allows it: 1 to 70 characters."""


class Refusal(MultiPartException):
    """A request refused: its status, the one line the client is told, and when to retry."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after

    def response(self) -> PlainTextResponse:
        headers = {"Connection": "close"}
        if self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        return PlainTextResponse(self.message, status_code=self.status, headers=headers)


def refusal(limit: int, size: int | None = None) -> str:
    """What a client whose request is too large is told: its size when known, the limit, what
    fits."""
    what = "the request went" if size is None else f"the request is {size} bytes,"
    return (
        f"refused: {what} over the maximum allowed size of {limit} bytes for one request;"
        f" upload one submission file of at most {MAX_FILE_BYTES} bytes per request"
    )


NOT_SIGNED_IN = "refused: sign in with Hugging Face to upload a submission file"
TOO_MANY_FILES = (
    f"refused: an upload request may carry {MAX_FILES_PER_REQUEST} file;"
    " upload the submission file alone"
)


NOT_SERVED = "refused: this server takes no recordings; upload a submission file"
ENDED = "refused: the upload ended before its body did; upload the file again"
BAD_MULTIPART = (
    "refused: an upload is a multipart/form-data body with a boundary of 1 to 70 characters"
)


def client_of(scope: Scope, signed: str | None) -> str:
    """Whom an upload counts against: the signed-in account, else the client's address."""
    if signed:
        return f"account:{signed}"
    client = scope.get("client") or ("unknown", 0)
    return f"address:{client[0]}"


def multipart_problem(scope: Scope) -> str | None:
    """Why an upload's Content-Type is not multipart/form-data with a usable boundary."""
    content_type = next((v for k, v in scope["headers"] if k.lower() == b"content-type"), b"")
    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary", b"")
    if kind != b"multipart/form-data" or not _BOUNDARY.fullmatch(boundary):
        return BAD_MULTIPART
    return None


def client_full(now: float, oldest: float | None) -> Refusal:
    """The refusal of an upload over its client's share."""
    wait = UPLOAD_LIFE if oldest is None else oldest + UPLOAD_LIFE - now
    minutes = max(1, math.ceil(wait / 60))
    return Refusal(
        503,
        f"refused: you hold as many uploads waiting to be submitted as one client may"
        f" ({CLIENT_FILES} files, {CLIENT_BYTES // 2**20} MiB); submit or wait {minutes} min",
        retry_after=minutes * 60,
    )


def full(held: Held, now: float) -> Refusal:
    """The refusal of an upload that does not fit beside the uploads held, with the time until
    the oldest of them expires."""
    wait = UPLOAD_LIFE if held.oldest is None else held.oldest + UPLOAD_LIFE - now
    minutes = max(1, math.ceil(wait / 60))
    return Refusal(
        503,
        f"refused: the server holds as many uploads waiting to be submitted as it keeps"
        f" ({PENDING_FILES} files, {PENDING_BYTES // 2**20} MiB); try again in {minutes} min",
        retry_after=minutes * 60,
    )


def declared_length(scope: Scope) -> int | None:
    """The request's Content-Length, or None when it has none (chunked) or an unreadable one
    (the server refuses that itself)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


def is_upload(scope: Scope) -> bool:
    return scope["method"] == "POST" and scope["path"].rstrip("/").endswith(UPLOAD_ROUTE)


def signed_in(scope: Scope) -> str | None:
    """The account of the request's Gradio session when it holds a sign-in that has not
    expired, else None."""
    from fastapi import HTTPException
    from gradio.oauth import require_oauth_token
    from starlette.requests import Request

    request = Request(scope)
    try:
        require_oauth_token(request)
    except HTTPException:
        return None
    info = request.session.get("oauth_info", {}).get("userinfo", {})
    return str(info.get("preferred_username") or "signed-in")


class FileParts:
    """Counts the parts of a multipart body as it streams (a malformed body is left to the
    route's own parser to refuse)."""

    def __init__(self, scope: Scope) -> None:
        content_type = next((v for k, v in scope["headers"] if k.lower() == b"content-type"), b"")
        boundary = parse_options_header(content_type)[1].get(b"boundary")
        self.count = 0
        self.parser: MultipartParser | None = None
        if boundary:
            with contextlib.suppress(FormParserError):  # an unusable boundary: the route says so
                self.parser = MultipartParser(boundary, {"on_part_begin": self._begun})

    def _begun(self) -> None:
        self.count += 1

    def feed(self, chunk: bytes) -> None:
        """Read `chunk`; raise the refusal when a part beyond MAX_FILES_PER_REQUEST begins."""
        if self.parser is None:
            return
        try:
            self.parser.write(chunk)
        except FormParserError:  # malformed: the route says so
            self.parser = None
        if self.count > MAX_FILES_PER_REQUEST:
            raise Refusal(413, TOO_MANY_FILES)


class BoundedBody:
    """ASGI middleware: the bounds of the module on every request and on uploads."""

    def __init__(self, app: ASGIApp, limit: int = MAX_REQUEST_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = declared_length(scope)
        if scope["path"].rstrip("/").endswith(REFUSED_ROUTES):
            await self.refuse(scope, receive, send, Refusal(404, NOT_SERVED))
        elif declared is not None and declared > self.limit:
            await self.refuse(scope, receive, send, Refusal(413, refusal(self.limit, declared)))
        elif is_upload(scope):
            await self.upload(scope, receive, send, declared)
        else:
            await self.bounded(scope, receive, send, None)

    async def upload(
        self, scope: Scope, receive: Receive, send: Send, declared: int | None
    ) -> None:
        """An upload: refused before its body is read when not signed in, not multipart, or
        when it does not fit beside the uploads held (its client's and everyone's); else read
        with its parts counted, what it may bring reserved until it is answered, and the files
        it is handed counted against its client."""
        account = signed_in(scope) if "session" in scope else None
        if "session" in scope and account is None:
            await self.refuse(scope, receive, send, Refusal(401, NOT_SIGNED_IN))
            return
        if problem := multipart_problem(scope):
            await self.refuse(scope, receive, send, Refusal(400, problem))
            return
        uploads, client = uploads_of(scope["app"]), client_of(scope, account)
        brings = self.limit if declared is None else declared
        now = time.time()
        held = uploads.held(now)
        if not self.fits(uploads, held, brings):
            await self.refuse(scope, receive, send, full(held, now))
            return
        if not self.client_fits(uploads, client, brings):
            await self.refuse(scope, receive, send, client_full(now, uploads.oldest_of(client)))
            return
        uploads.reserve(client, brings)
        try:
            await self.bounded(scope, receive, _handed(send, uploads, client), FileParts(scope))
        finally:
            uploads.note_folders()
            uploads.release(client, brings)

    @staticmethod
    def fits(uploads: Uploads, held: Held, brings: int) -> bool:
        files = held.count + uploads.flying + 1
        return files <= PENDING_FILES and held.size + uploads.reserved + brings <= PENDING_BYTES

    @staticmethod
    def client_fits(uploads: Uploads, client: str, brings: int) -> bool:
        count, size = uploads.held_by(client)
        files = count + uploads.flying_by[client] + 1
        return files <= CLIENT_FILES and size + uploads.reserved_by[client] + brings <= CLIENT_BYTES

    async def bounded(
        self, scope: Scope, receive: Receive, send: Send, parts: FileParts | None
    ) -> None:
        """The request passed on with its body counted (and its parts, when given): the chunk
        that breaks a bound is not passed on, the refusal is raised into the route instead and
        answered in place of whatever the route answers."""
        received = 0
        refused: Refusal | None = None
        started = False  # a response start was sent: the app's, or the refusal in its stead
        replacing = False  # the app answers a refused request: its messages are dropped

        async def counted() -> Message:
            nonlocal received, refused
            try:
                message = await _next(receive, parts is not None)
                if message["type"] == "http.disconnect" and parts is not None:
                    raise Refusal(400, ENDED)  # the parser deletes what it wrote of the body
                if message["type"] == "http.request":
                    chunk = message.get("body", b"")
                    received += len(chunk)
                    if received > self.limit:
                        raise Refusal(413, refusal(self.limit))
                    if parts is not None:
                        parts.feed(chunk)
            except Refusal as exc:
                refused = exc
                raise
            return message

        async def answer(message: Message) -> None:
            nonlocal started, replacing
            if message["type"] == "http.response.start" and refused and not started:
                started = replacing = True
                await self.refuse(scope, receive, send, refused)
            elif not replacing:
                started = started or message["type"] == "http.response.start"
                await send(message)

        try:
            await self.app(scope, counted, answer)
        except Refusal as exc:
            if started:
                raise
            await self.refuse(scope, receive, send, exc)

    @staticmethod
    async def refuse(scope: Scope, receive: Receive, send: Send, refused: Refusal) -> None:
        await refused.response()(scope, receive, send)


async def _next(receive: Receive, upload: bool) -> Message:
    """The request's next message; for an upload, refused (408) after IDLE_SECONDS without one."""
    if not upload:
        return await receive()
    try:
        return await asyncio.wait_for(receive(), IDLE_SECONDS)
    except TimeoutError:
        stalled = f"refused: the upload sent nothing for {IDLE_SECONDS:g} s; upload the file again"
        raise Refusal(408, stalled) from None


def _handed(send: Send, uploads: Uploads, client: str) -> Send:
    """`send`, noting the paths an upload's answer hands out as its client's."""
    body = bytearray()

    async def sent(message: Message) -> None:
        if message["type"] == "http.response.body":
            body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                with contextlib.suppress(ValueError, TypeError):
                    for path in json.loads(body):
                        uploads.owners[str(path)] = client
        await send(message)

    return sent
