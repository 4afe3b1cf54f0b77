"""Every API-callable event of the served app, called with values it does not offer (unknown
names, wrong types, missing or extra values), answers a client error or a visible message:
never a 500. Requests are real HTTP on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hostile_server import Served, signed_in

pytestmark = [
    pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),  # Gradio's queue
    pytest.mark.filterwarnings("ignore:'future.no_silent_downcasting' is deprecated"),
]

HOSTILE_VALUES: list[Any] = [
    "no-such-value",
    "",
    None,
    12,
    -1.5,
    True,
    ["a", "b"],
    {"path": "/etc/passwd"},
    "$\\foo$",
    "\u202egpj.csv",
    "x" * 10_000,
]


def _endpoints(served: Served) -> dict[str, set[int]]:
    """Each named endpoint of the app and how many values it takes: its documented parameters
    and all its inputs (the page's state included)."""
    info = httpx.get(f"{served.api}/info", timeout=60).json()
    counts = {
        name.lstrip("/"): {len(spec["parameters"])}
        for name, spec in info["named_endpoints"].items()
    }
    for fn in served.app.fns.values():
        counts.setdefault(str(fn.api_name), set()).add(len(fn.inputs))
    return counts


def test_every_event_answers_bad_values_without_a_server_error(served: Served) -> None:
    endpoints = _endpoints(served)
    assert {"choose", "refresh", "ranking", "on_upload"} <= set(endpoints), endpoints
    failures = []
    with httpx.Client(timeout=120, headers=signed_in()) as client:
        for name, counts in sorted(endpoints.items()):
            shapes = [[value] * n for value in HOSTILE_VALUES for n in counts]
            shapes += [[], ["x"] * (max(counts) + 3)]
            calls = [{"data": data} for data in shapes]
            calls += [{"data": [None] * n, "session_hash": "hostile"} for n in counts]
            for call in calls:
                data = call["data"]
                for route in ("run", "call"):
                    answer = client.post(f"{served.api}/{route}/{name}", json=call)
                    if answer.status_code >= 500:
                        shown = (
                            route,
                            name,
                            repr(data)[:80],
                            answer.status_code,
                            answer.text[:200],
                        )
                        failures.append(shown)
    assert not failures, "\n".join(map(str, failures))


def test_a_view_outside_the_choices_is_a_client_error_with_one_line(served: Served) -> None:
    calls = {
        "choose": ["no-such-benchmark", "turn", "overall", "spearman"],
        "redrawn": ["usr-topical", "turn", "overall", 12],
        "ranking": ["usr-topical\n", "turn", "overall", "spearman"],
        "switched": [None],
    }
    for name, data in calls.items():
        answer = httpx.post(f"{served.api}/run/{name}", json={"data": data}, timeout=60)
        assert answer.status_code == 422, (name, answer.text)
        error = answer.json()["error"]
        assert error and "\n" not in error and len(error) <= 300, (name, error)
    wrong = httpx.post(f"{served.api}/run/choose", json={"data": [], "fn_index": 10**6}, timeout=60)
    assert wrong.status_code == 404


def test_hostile_multipart_uploads_are_client_errors(served: Served) -> None:
    """A file named only by its extension, and a boundary of 10,000 characters."""
    url = f"{served.api}/upload"
    named = httpx.post(url, files={"files": (".csv", b"item_id,score\n")}, headers=signed_in())
    assert named.status_code < 500, named.text
    boundary = "b" * 10_000
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="m.csv"\r\n'
        f"Content-Type: text/csv\r\n\r\nitem_id,score\n\r\n--{boundary}--\r\n"
    ).encode()
    headers = {**signed_in(), "Content-Type": f"multipart/form-data; boundary={boundary}"}
    answer = httpx.post(url, content=body, headers=headers, timeout=60)
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:200])
