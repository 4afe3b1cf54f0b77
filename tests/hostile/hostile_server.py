"""The hostile suite's served app (the `served` fixture of `conftest`) and signed-in request headers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oauth_mock import ACCOUNT, SESSION_SECRET, session_cookie


@dataclass
class Served:
    url: str
    """The app's root, ending in '/'."""
    store: Any
    temp: Path
    """Gradio's temporary folder: uploads and downloads."""
    app: Any

    @property
    def api(self) -> str:
        return f"{self.url}gradio_api"


def signed_in(account: str = ACCOUNT) -> dict[str, str]:
    """The headers of a request from a session signed in as `account`."""
    return {"Cookie": f"session={session_cookie(SESSION_SECRET, account)}"}
