"""Google-style docstrings on the public names of comperbench.metrics: a function with
parameters says them under `Args:`, one that returns something says it under `Returns:`."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator

import pytest

import comperbench.metrics

MODULES = (
    "comperbench.common.registry",
    "comperbench.metrics.base",
    "comperbench.metrics.registry",
    "comperbench.metrics.about.info",
    "comperbench.metrics.about.cards",
    "comperbench.metrics.hf_modules",
    "comperbench.metrics.lexical.common.tokens",
    "comperbench.metrics.lexical.common.overlap",
    "comperbench.metrics.lexical.common.reference",
    "comperbench.metrics.lexical.bleu",
    "comperbench.metrics.lexical.corpus_bleu",
    "comperbench.metrics.lexical.chrf",
    "comperbench.metrics.lexical.rouge",
    "comperbench.metrics.lexical.meteor",
    "comperbench.metrics.lexical.meteor.alignment",
    "comperbench.metrics.lexical.f1",
    "comperbench.metrics.lexical.distinct",
    "comperbench.metrics.lexical.length",
)
"""The package's API (`comperbench.metrics.__all__` lives in these, the Registry of `METRICS`
too) and the n-gram modules."""


def _public(module: str) -> Iterator[tuple[str, Callable[..., object]]]:
    """Functions and classes defined in `module`, and the public methods of its classes."""
    found = importlib.import_module(module)
    for name, obj in vars(found).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module:
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield f"{module}.{name}", obj
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(member):
                    yield f"{module}.{name}.{attr}", getattr(obj, attr)


def missing_sections(obj: Callable[..., object]) -> list[str]:
    """The sections a docstring lacks: "docstring", "Args" or "Returns"."""
    doc = inspect.getdoc(obj) or ""
    if not doc:
        return ["docstring"]
    if inspect.isclass(obj):
        declared = "__init__" in vars(obj) or "__dataclass_fields__" in vars(obj)
        params = list(inspect.signature(obj).parameters) if declared else []
        returns = False
    else:
        signature = inspect.signature(obj)
        params = [p for p in signature.parameters if p not in ("self", "cls")]
        returns = signature.return_annotation not in ("None", None, inspect.Signature.empty)
    needed = [("Args", bool(params)), ("Returns", returns)]
    return [section for section, wanted in needed if wanted and f"{section}:" not in doc]


def test_the_package_api_is_defined_in_the_checked_modules() -> None:
    for name in comperbench.metrics.__all__:
        obj = getattr(comperbench.metrics, name)
        if name == "Item":  # TurnItem | DialogueItem
            continue
        defined = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
        assert defined.__module__ in MODULES, name


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_has_its_sections(module: str) -> None:
    lacking = {name: missing_sections(obj) for name, obj in _public(module)}
    assert {name: gaps for name, gaps in lacking.items() if gaps} == {}


def test_a_docstring_without_its_sections_is_found() -> None:
    def scored(items: list[str]) -> float:
        """A score."""
        return 0.0

    def documented(items: list[str]) -> float:
        """A score.

        Args:
            items: what is scored.

        Returns:
            The score.
        """
        return 0.0

    assert missing_sections(scored) == ["Args", "Returns"]
    assert missing_sections(documented) == []
