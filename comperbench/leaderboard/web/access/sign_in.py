"""Where the leaderboard app's sign-in is real, and refusing to serve where it would not be.

Where sign-in is required (`service.sign_in_required`), the Upload tab has Gradio's LoginButton.
On a Hugging Face Space (Gradio's `get_space`) it signs in with Hugging Face. Elsewhere Gradio
mocks it, signing every visitor in as the machine's own Hugging Face account. So off a Space the
app refuses to start with sign-in required unless COMPERBENCH_LOCAL_LOGIN names the one account
every local sign-in gets (for trying sign-in and the daily limit on one's own machine), and then
only on a loopback address, with a banner on the page that says so.

Gradio signs the session cookie with a key derived from OAUTH_CLIENT_SECRET, and without one
from a public constant, with which anyone could sign a cookie for any account: where sign-in is
required, the app refuses to start without it (a Space with `hf_oauth: true` sets it).
"""

from __future__ import annotations

import ipaddress
import os
import re
import time
from typing import Any

from comperbench.common.errors import ComperbenchError
from comperbench.leaderboard.service import SIGN_IN_ENV, sign_in_required

SECRET_ENV = "OAUTH_CLIENT_SECRET"
"""The secret Gradio derives the session cookie's signing key from."""
LOCAL_LOGIN_ENV = "COMPERBENCH_LOCAL_LOGIN"
"""Off a Space: the account every sign-in gets."""
ACCOUNT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
LOCAL_SESSION_SECONDS = 8 * 3600


def check_session_secret() -> None:
    """Where sign-in is required, refuse to go on without a session secret (see the module)."""
    from gradio import oauth

    if sign_in_required() and not oauth.OAUTH_CLIENT_SECRET:
        raise ComperbenchError(
            f"sign-in is required (on a Space, or {SIGN_IN_ENV}=1) but {SECRET_ENV} is not set,"
            f" so anyone could sign a session cookie for any account: set {SECRET_ENV} to a"
            f" long random secret (a Space with hf_oauth: true sets it) or {SIGN_IN_ENV}=0"
        )


def local_account() -> str | None:
    """COMPERBENCH_LOCAL_LOGIN, the account of every local sign-in; None when it is unset."""
    name = os.environ.get(LOCAL_LOGIN_ENV, "").strip()
    if not name:
        return None
    if not ACCOUNT_NAME.fullmatch(name):
        raise ComperbenchError(
            f"{LOCAL_LOGIN_ENV}={name!r} is not an account name: use letters, digits, '-', '_'"
            " or '.' (at most 96 characters)"
        )
    return name


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_sign_in(host: str | None = None) -> str | None:
    """Check that sign-in, where required, is real: refuse (ComperbenchError) without a session
    secret, and off a Space without COMPERBENCH_LOCAL_LOGIN or on a `host` other than a
    loopback address. The local account when local sign-in is used (Gradio's mock then gives
    it), else None."""
    from gradio.utils import get_space

    check_session_secret()
    if not sign_in_required() or get_space() is not None:
        return None
    name = local_account()
    if name is None:
        raise ComperbenchError(
            f"sign-in is required ({SIGN_IN_ENV}=1) but this is not a Hugging Face Space, where"
            " Gradio would sign every visitor in as this machine's own Hugging Face account:"
            f" deploy it as a Space, set {SIGN_IN_ENV}=0, or set {LOCAL_LOGIN_ENV}=NAME to try"
            " sign-in on 127.0.0.1 as NAME"
        )
    if host is not None and not is_loopback(host):
        raise ComperbenchError(
            f"{LOCAL_LOGIN_ENV} signs every visitor in as {name}, so it is served on a loopback"
            f" address only, not on {host}: use --host 127.0.0.1, or deploy it as a Space"
        )
    _mock_as(name)
    return name


def _mock_as(name: str) -> None:
    """Have Gradio's mock sign-in give `name`, instead of looking up the machine's own Hugging
    Face account (its one hook: the function it reads the profile from)."""
    from gradio import oauth

    def profile() -> dict[str, Any]:
        return {
            "access_token": "local-sign-in",
            "token_type": "bearer",
            "scope": "openid profile",
            "expires_at": int(time.time()) + LOCAL_SESSION_SECONDS,
            "userinfo": {
                "name": name,
                "preferred_username": name,
                "profile": f"https://huggingface.co/{name}",
                "picture": "",
            },
        }

    oauth._get_mocked_oauth_info = profile


def local_banner(name: str) -> str:
    """The page's warning that sign-in is local."""
    return (
        f"**Local sign-in** ({LOCAL_LOGIN_ENV}): everyone who signs in here is signed in as"
        f" **{name}**. This is for trying the app on this machine; on a Hugging Face Space each"
        " visitor signs in with their own account."
    )
