"""Every public function of `comperbench`, `comperbench.stats` and `comperbench.metrics` says what
it takes and gives (Google style: Args and Returns), so the API reference pages are complete."""

from __future__ import annotations

import importlib
import inspect
import warnings

import pytest

ROOTS = ("comperbench", "comperbench.stats", "comperbench.metrics")


def _public() -> list[tuple[str, object]]:
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for root in ROOTS:
            module = importlib.import_module(root)
            for name in module.__all__:
                value = getattr(module, name)
                if inspect.isfunction(value) or inspect.isclass(value):
                    found.append((f"{root}.{name}", value))
    return found


def _missing(value: object) -> list[str]:
    doc = inspect.getdoc(value) or ""
    if not doc:
        return ["a docstring"]
    if not inspect.isfunction(value):
        return []
    signature = inspect.signature(value)
    missing = []
    if signature.parameters and "Args:" not in doc:
        missing.append("Args")
    if signature.return_annotation not in (None, "None") and not (
        "Returns:" in doc or "Yields:" in doc
    ):
        missing.append("Returns")
    return missing


@pytest.mark.parametrize("where, value", _public(), ids=[w for w, _ in _public()])
def test_each_public_name_has_args_and_returns(where: str, value: object) -> None:
    assert not _missing(value), f"{where} lacks {', '.join(_missing(value))}"


def test_the_check_finds_a_function_without_args() -> None:
    def bare(x: int) -> int:
        """Something."""
        return x

    assert _missing(bare) == ["Args", "Returns"]
