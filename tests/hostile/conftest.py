"""The hostile suite's server: the leaderboard app served on 127.0.0.1 with sign-in required
(Gradio's mock OAuth, sessions signed with `oauth_mock.SESSION_SECRET`), on its own store and
temporary folder, one per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_server import Served
from oauth_mock import ACCOUNT, SESSION_SECRET


@pytest.fixture(scope="module")
def served(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    pytest.importorskip("gradio")
    from comperbench.leaderboard.service import SIGN_IN_ENV
    from comperbench.leaderboard.store import Store
    from comperbench.leaderboard.web.access.sign_in import LOCAL_LOGIN_ENV
    from comperbench.leaderboard.web.app import build, launch_options

    folder = tmp_path_factory.mktemp("hostile")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SIGN_IN_ENV, "1")
        patch.setenv(LOCAL_LOGIN_ENV, ACCOUNT)
        patch.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", SESSION_SECRET)
        patch.setenv("GRADIO_TEMP_DIR", str(folder / "gradio"))
        store = Store(folder / "lb.sqlite")
        app = build(store.path)
        _, url, _ = app.launch(
            server_name="127.0.0.1", prevent_thread_lock=True, quiet=True, **launch_options()
        )
        try:
            yield Served(url, store, folder / "gradio", app)
        finally:
            app.close()
