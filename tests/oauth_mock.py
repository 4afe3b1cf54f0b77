"""The signed-in account that Gradio's local mock OAuth reports in the leaderboard tests."""

from __future__ import annotations

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
