"""The leaderboard as a Hugging Face Space: its folder, and its push with huggingface_hub.

The folder holds `app.py` (builds and serves the app), `requirements.txt` (comperbench and what
its `app` extra needs) and `README.md` (the Space header: gradio SDK at the installed gradio
version, sign-in with Hugging Face, the results dataset). Pushing creates the Space and its
results dataset when they do not exist, uploads the folder and sets COMPERBENCH_RESULTS_REPO as a
Space variable, so that the app keeps every submission in that dataset (see `mirror`).
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.leaderboard.mirror import REPO_ENV

if TYPE_CHECKING:
    from huggingface_hub import HfApi

TITLE = "comperbench leaderboard"
APP = '''"""Hugging Face Space entry point: the comperbench leaderboard."""

import os

from comperbench.leaderboard.web.app import serve

if __name__ == "__main__":
    serve(
        host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
    )
'''
FILES = ("app.py", "requirements.txt", "README.md")


def _push_errors() -> tuple[type[Exception], ...]:
    """What a push raises when the Hub cannot be reached or refuses (offline, no token,
    no network, HTTP errors)."""
    from huggingface_hub.errors import HTTPError

    return OSError, ValueError, HTTPError


@dataclass(frozen=True)
class Space:
    """A Space to deploy: its id, the dataset that keeps its results, and the pip requirement
    that installs comperbench in it."""

    space_id: str
    results_repo: str
    package: str


def _checked_repo_id(repo_id: str, what: str) -> str:
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except ValueError as exc:
        raise ComperbenchError(f"{what} {repo_id!r}: {exc}") from None
    if repo_id.count("/") != 1:
        raise ComperbenchError(f"{what} {repo_id!r} must be ORG/NAME")
    return repo_id


def package_requirement(package: str | None) -> str:
    """comperbench's line of requirements.txt: `comperbench==<this version>` by default; a local
    wheel or sdist as its absolute path; any other text as it is."""
    if package is None:
        return f"comperbench=={__version__}"
    path = Path(package)
    return str(path.resolve()) if path.is_file() else package


def space(space_id: str, results_repo: str | None = None, package: str | None = None) -> Space:
    """The Space `space_id` (ORG/NAME); its results dataset defaults to ORG/NAME-results."""
    space_id = _checked_repo_id(space_id, "Space")
    results = _checked_repo_id(results_repo or f"{space_id}-results", "results dataset")
    return Space(space_id, results, package_requirement(package))


def _installed(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        raise ComperbenchError(
            f"{name} is not installed: install comperbench[app] to deploy the app"
        ) from None


def app_requirements() -> list[str]:
    """The requirements of comperbench's `app` extra, as the installed package declares them
    (gradio with its `oauth` extra: the Space signs in with Hugging Face)."""
    from packaging.requirements import Requirement

    out = []
    for line in importlib.metadata.requires("comperbench") or []:
        requirement = Requirement(line)
        if requirement.marker is None or not requirement.marker.evaluate({"extra": "app"}):
            continue
        requirement.marker = None
        out.append(str(requirement))
    return out


def requirements_txt(spec: Space) -> str:
    return "\n".join([spec.package, *app_requirements()]) + "\n"


def readme(spec: Space) -> str:
    """The Space card: the YAML header Spaces read, then what the Space is."""
    results_url = f"https://huggingface.co/datasets/{spec.results_repo}"
    return f"""---
title: {TITLE}
emoji: 💬
colorFrom: blue
colorTo: green
sdk: gradio
sdk_version: {_installed("gradio")}
python_version: "3.11"
app_file: app.py
hf_oauth: true
pinned: false
license: apache-2.0
datasets:
  - {spec.results_repo}
---

# {TITLE}

How well do dialogue metrics agree with people? Correlations of automatic dialogue metrics with
human judgments, served by [comperbench](https://pypi.org/project/comperbench/) {__version__}.

Every accepted submission is kept in the results dataset [{spec.results_repo}]({results_url})
(Space variable `{REPO_ENV}`); the Space rebuilds its leaderboard from it on start. The Space
needs a secret `HF_TOKEN` with write access to that dataset.
"""


def space_files(spec: Space) -> dict[str, str]:
    """The Space folder's files by name."""
    return {"app.py": APP, "requirements.txt": requirements_txt(spec), "README.md": readme(spec)}


def write_folder(spec: Space, folder: str | Path) -> Path:
    """Write the Space's files into `folder` (created if needed; other files are left alone)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in space_files(spec).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def push(spec: Space, folder: Path, api: HfApi | None = None) -> str:
    """Create the Space (gradio SDK) and its results dataset unless they exist, upload the
    folder and set the results repository as a Space variable; the Space's URL."""
    from huggingface_hub import HfApi

    api = api or HfApi()
    url = api.create_repo(spec.space_id, repo_type="space", space_sdk="gradio", exist_ok=True)
    api.create_repo(spec.results_repo, repo_type="dataset", exist_ok=True)
    api.upload_folder(
        repo_id=spec.space_id,
        folder_path=folder,
        repo_type="space",
        commit_message=f"comperbench {__version__} leaderboard",
    )
    api.add_space_variable(
        spec.space_id, REPO_ENV, spec.results_repo, description="where submissions are kept"
    )
    return str(url)


@dataclass(frozen=True)
class Deployment:
    """What `deploy` did: the folder written, and the Space's URL or why it was not pushed."""

    folder: Path
    url: str | None = None
    not_pushed: str | None = None


def _one_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def deploy(
    spec: Space, folder: str | Path, push_it: bool = True, api: HfApi | None = None
) -> Deployment:
    """Write the Space folder, then push it unless `push_it` is false; a push the Hub cannot
    take is reported with the reason in one line."""
    written = write_folder(spec, folder)
    if not push_it:
        return Deployment(written, not_pushed="the folder only was asked for")
    try:
        return Deployment(written, url=push(spec, written, api))
    except _push_errors() as exc:
        return Deployment(written, not_pushed=f"{type(exc).__name__}: {_one_line(exc)}")
