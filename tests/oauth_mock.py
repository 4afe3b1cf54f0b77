"""The signed-in account that Gradio's local mock OAuth reports in the leaderboard tests."""

from __future__ import annotations

import base64
import hashlib
import json
import time

ACCOUNT = "alice"
MOCK_OAUTH = {
    "access_token": "mock-oauth-token-for-local-dev",
    "token_type": "bearer",
    "scope": "openid profile",
    "expires_at": int(time.time()) + 8 * 3600,
    "userinfo": {
        "name": "Alice",
        "preferred_username": ACCOUNT,
        "profile": f"https://huggingface.co/{ACCOUNT}",
        "picture": "",
    },
}
SESSION_SECRET = "a-long-random-secret-for-the-tests"
"""The OAUTH_CLIENT_SECRET the served test apps sign their session cookies with."""


def session_cookie(client_secret: str, account: str) -> str:
    """A session cookie that Gradio's OAuth (whose key is derived from `client_secret`) reads
    as signed in as `account`, made as starlette's SessionMiddleware makes it."""
    from itsdangerous import TimestampSigner

    key = hashlib.sha256(f"{client_secret}-v4".encode()).hexdigest()
    userinfo = {**MOCK_OAUTH["userinfo"], "preferred_username": account}  # type: ignore[dict-item]
    session = {"oauth_info": {**MOCK_OAUTH, "userinfo": userinfo}}
    data = base64.b64encode(json.dumps(session).encode())
    return TimestampSigner(key).sign(data).decode()
