"""`comperbench leaderboard deploy`: the Space folder, a push the Hub cannot take, and (slow) the
folder installed in a fresh virtual environment and served to Chromium."""

from __future__ import annotations

import importlib.metadata
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deadlines import DEADLINE_MS
from packaging.requirements import Requirement

from comperbench import __version__
from comperbench.cli import main
from comperbench.leaderboard.web.deploy import FILES, deploy, space, write_folder

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
GRADIO = importlib.metadata.version("gradio")


def _header(readme: str) -> dict[str, Any]:
    """The README's YAML header, parsed with PyYAML when installed, else line by line."""
    assert readme.startswith("---\n")
    text = readme.split("---\n")[1]
    try:
        import yaml
    except ImportError:
        header: dict[str, Any] = {}
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if line.startswith("  - "):
                header.setdefault("datasets", []).append(line[4:])
            elif value.strip():
                header[key] = {"true": True, "false": False}.get(value.strip(), value.strip())
        return header
    return yaml.safe_load(text)


def test_the_space_folder_has_the_app_its_requirements_and_the_space_header(
    tmp_path: Path,
) -> None:
    folder = write_folder(space("org/board"), tmp_path / "space")
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)
    app = (folder / "app.py").read_text()
    compile(app, "app.py", "exec")
    assert "from comperbench.leaderboard.web.app import serve" in app
    package, gradio = (folder / "requirements.txt").read_text().splitlines()
    assert package == f"comperbench=={__version__}"
    # the app extra as declared: gradio with its oauth extra, in a range that holds this gradio
    declared = Requirement(gradio)
    assert (declared.name, declared.extras) == ("gradio", {"oauth"})
    assert declared.specifier.contains(GRADIO)
    readme = (folder / "README.md").read_text()
    header = _header(readme)
    assert header["title"] == "comperbench leaderboard"
    assert header["sdk"] == "gradio" and str(header["sdk_version"]) == GRADIO
    assert header["app_file"] == "app.py" and header["hf_oauth"] is True
    assert header["datasets"] == ["org/board-results"]
    body = readme.split("---\n", 2)[2]
    assert "[org/board-results](https://huggingface.co/datasets/org/board-results)" in body
    assert "COMPERBENCH_RESULTS_REPO" in body


def test_a_local_wheel_is_required_by_its_absolute_path(tmp_path: Path) -> None:
    wheel = tmp_path / f"comperbench-{__version__}-py3-none-any.whl"
    wheel.write_bytes(b"")
    spec = space("org/board", "org/kept", str(wheel))
    assert spec.results_repo == "org/kept" and spec.package == str(wheel.resolve())
    assert space("org/board", package="comperbench>=0.1").package == "comperbench>=0.1"


class FakeHub:
    """The HfApi calls a push makes, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> str:
            self.calls.append((name, args, kwargs))
            return f"https://huggingface.co/spaces/{args[0]}" if args else ""

        return call


def test_a_push_creates_the_space_and_the_results_dataset_then_uploads_and_sets_the_variable(
    tmp_path: Path,
) -> None:
    hub = FakeHub()
    done = deploy(space("org/board"), tmp_path, api=hub)  # type: ignore[arg-type]
    assert done.url == "https://huggingface.co/spaces/org/board" and done.not_pushed is None
    assert [(name, args) for name, args, _ in hub.calls] == [
        ("create_repo", ("org/board",)),
        ("create_repo", ("org/board-results",)),
        ("upload_folder", ()),
        ("add_space_variable", ("org/board", "COMPERBENCH_RESULTS_REPO", "org/board-results")),
    ]
    kinds = [kwargs for name, _, kwargs in hub.calls if name == "create_repo"]
    assert kinds[0]["repo_type"] == "space" and kinds[0]["space_sdk"] == "gradio"
    assert kinds[1] == {"repo_type": "dataset", "exist_ok": True}
    upload = hub.calls[2][2]
    assert upload["repo_id"] == "org/board" and upload["folder_path"] == tmp_path
    assert upload["repo_type"] == "space"


def test_an_offline_push_writes_the_folder_and_says_why_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    folder = tmp_path / "space"
    assert main(["leaderboard", "deploy", "org/board", "--folder", str(folder)]) == 1
    out, err = capsys.readouterr()
    assert f"wrote {folder}: app.py, requirements.txt, README.md" in out
    assert err.startswith("comperbench: error: could not push org/board: OfflineModeIsEnabled: ")
    assert "offline mode is enabled" in err and err.count("\n") == 1
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)


def test_folder_only_does_not_push(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard", "deploy", "org/board", "--folder-only"]) == 0
    out = capsys.readouterr().out
    assert "wrote board-space: " in out and "not pushed: the folder only was asked for" in out
    assert (tmp_path / "board-space" / "README.md").is_file()


def test_a_space_id_without_its_owner_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", "deploy", "board", "--folder-only"]) == 2
    assert "comperbench: error: Space 'board' must be ORG/NAME" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(command: list[str], timeout: float, **kwargs: Any) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr[-3000:]}"


@pytest.fixture
def space_server(data_root: Path, tmp_path: Path) -> Iterator[str]:
    """The Space folder, with a wheel of this checkout as its comperbench requirement, installed
    in a fresh virtual environment (no system site-packages; pip's configured index) and served
    by `python app.py` on a free port."""
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"{CHROMIUM} is not installed")
    pip = [sys.executable, "-m", "pip"]
    _run([*pip, "wheel", "--quiet", "--no-deps", "-w", str(tmp_path / "dist"), str(ROOT)], 600)
    [wheel] = (tmp_path / "dist").glob("comperbench-*.whl")
    folder = write_folder(space("test/board", package=str(wheel)), tmp_path / "space")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], 300)
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "--quiet", "-r", "requirements.txt"], 1800, cwd=folder)
    where = [python, "-c", "import comperbench; print(comperbench.__file__)"]
    installed = subprocess.run(where, capture_output=True, text=True, check=True, cwd=folder)
    assert Path(installed.stdout.strip()).is_relative_to(venv)
    port = _free_port()
    env = {
        **os.environ,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "COMPERBENCH_LEADERBOARD_DB": str(tmp_path / "lb.sqlite"),
        "GRADIO_TEMP_DIR": str(tmp_path / "gradio"),
    }
    env.pop("COMPERBENCH_RESULTS_REPO", None)
    log = (tmp_path / "app.log").open("w")
    app = subprocess.Popen([python, "app.py"], cwd=folder, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url, app, tmp_path / "app.log")
        yield url
    finally:
        app.terminate()
        app.wait(timeout=30)
        log.close()


def _wait_for(url: str, app: subprocess.Popen[bytes], log: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert app.poll() is None, f"app.py exited:\n{log.read_text()[-3000:]}"
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(1)
    pytest.fail(f"app.py did not serve {url} in {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.mark.slow
@pytest.mark.browser
def test_the_space_folder_installs_in_a_fresh_venv_and_serves_the_leaderboard(
    space_server: str,
) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page()
            page.goto(space_server)
            heading = page.get_by_role("heading", name=re.compile(r"^comperbench leaderboard"))
            heading.wait_for(timeout=DEADLINE_MS)
            assert page.title() == "comperbench leaderboard"
        finally:
            browser.close()
