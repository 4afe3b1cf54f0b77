"""Routes that take bytes, under abuse, over real HTTP on 127.0.0.1: Gradio's recording route
refused unread, one client's uploads bounded apart from everyone's, stalled and abandoned
upload bodies refused and deleted."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from deadlines import DEADLINE_S
from hostile_server import Served, signed_in

from comperbench.leaderboard.web.access import limits

pytestmark = pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning")
BOUNDARY = "hostile-boundary"


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()


def _head(served: Served, length: int, account: str) -> bytes:
    """The start of an upload request of `length` body bytes from `account`."""
    cookie = signed_in(account)["Cookie"]
    return (
        f"POST /gradio_api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        f"Content-Length: {length}\r\n\r\n--{BOUNDARY}\r\n"
        'Content-Disposition: form-data; name="files"; filename="m.csv"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode()


def _connect(served: Served) -> socket.socket:
    address = urlsplit(served.url)
    return socket.create_connection((address.hostname, address.port), timeout=DEADLINE_S)


def _answer(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_the_recording_route_is_refused_unread(served: Served) -> None:
    before = _files(served.temp)
    for headers in ({}, signed_in()):
        video = {"video": ("v.mp4", b"\x00" * 100_000)}
        answer = httpx.post(
            f"{served.api}/process_recording", files=video, headers=headers, timeout=60
        )
        assert answer.status_code == 404, answer.text
    assert _files(served.temp) == before


def test_one_account_cannot_hold_the_uploads_of_everyone(served: Served) -> None:
    url = f"{served.api}/upload"
    mallory = signed_in("mallory")
    for k in range(limits.CLIENT_FILES):
        upload = {"files": (f"m{k}.csv", b"item_id,score\n")}
        assert httpx.post(url, files=upload, headers=mallory, timeout=60).status_code == 200
    refused = httpx.post(url, files={"files": ("x.csv", b"x")}, headers=mallory, timeout=60)
    assert refused.status_code == 503 and refused.text.startswith("refused: you hold")
    ok = httpx.post(url, files={"files": ("a.csv", b"item_id,score\n")}, headers=signed_in())
    assert ok.status_code == 200, ok.text


def test_stalled_uploads_of_one_account_are_refused_and_block_no_one(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "IDLE_SECONDS", 2.0)
    stalled = []
    for _ in range(limits.CLIENT_FILES):
        connection = _connect(served)
        connection.sendall(_head(served, 1 << 20, "staller"))
        stalled.append(connection)
    try:
        ok = httpx.post(
            f"{served.api}/upload", files={"files": ("b.csv", b"x")}, headers=signed_in("bob")
        )
        assert ok.status_code == 200, ok.text
        for connection in stalled:
            answer = _answer(connection)
            assert answer.startswith(b"HTTP/1.1 408"), answer
    finally:
        for connection in stalled:
            connection.close()


def test_an_abandoned_upload_leaves_nothing_on_disk(served: Served) -> None:
    before = _files(served.temp)
    for _ in range(3):
        connection = _connect(served)
        connection.sendall(_head(served, 8 << 20, "leaver") + b"0" * (4 << 20))
        connection.close()
    deadline = time.monotonic() + DEADLINE_S
    while _files(served.temp) - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _files(served.temp) - before, sorted(_files(served.temp) - before)
