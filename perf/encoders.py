"""The sentence-encoder metrics against their floor: the bare forward passes of the same model over
the same texts in the same batches.

`context-cosine` on 300 usr-topical items (whole contexts, as a benchmark is laid out; dstc7's
items carry no context turns) and `dialogue-coherence` on every fed-dialogue dialogue are scored,
with every batch the encoder is given recorded; then those very batches go through the model
alone (padding, mask and the forward pass: no tokenising, pooling or cosines), in the same
process. Neither metric keeps a memo of its own (only the model, loaded outside the timing), so
every run is cold. The ratio of the two CPU times (fastest of --repeat each) says how far each
metric is from what its model costs. Before timing, every value is checked against the cosines
of sentence-transformers' own `SentenceTransformer.encode` of the same model, to 1e-6.

Run: COMPERBENCH_DATA=/work/shared/data python perf/encoders.py [--sample 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from itertools import pairwise

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

import numpy as np
from floor import Batch, describe, fastest, print_floor_rows, recording
from goals import BY_WORK, Goal
from metrics import _assert_equal, _sample  # perf/metrics.py

from comperbench.benchmark import load_benchmark
from comperbench.metrics import get
from comperbench.metrics.base import DialogueItem, Item, Metric, TurnItem
from comperbench.metrics.embeddings import embedding
from comperbench.metrics.llm.cpdscore import SYSTEM_SPEAKER
from comperbench.metrics.models import right_padded
from comperbench.metrics.runner import benchmark_items

TOLERANCE = 1e-6
Vectors = dict[str, np.ndarray]


def scored(metric: Metric, items: Sequence[Item], batches: list[Batch] | None = None) -> list:
    """The metric's scores of the items; each forward batch appended to `batches`."""
    with nullcontext() if batches is None else recording(embedding, "_mean_pooled", batches):
        return metric.score(items)


def bare_passes(model: object, pad_id: int, batches: list[Batch]) -> None:
    """The model alone over the recorded batches: padding, mask and the forward pass."""
    import torch

    for ids in batches:
        tokens, mask = right_padded(ids, pad_id)
        with torch.inference_mode():
            model(input_ids=tokens, attention_mask=mask)  # type: ignore[operator]


def library_vectors(texts: set[str]) -> Vectors:
    """Each text's embedding by sentence-transformers' `encode` of the shipped model."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(embedding.resolve_encoder(None).path), device="cpu")
    ordered = sorted(texts)
    vectors = model.encode(ordered, convert_to_numpy=True, show_progress_bar=False)
    return dict(zip(ordered, vectors.astype(np.float64), strict=True))


def cosine(vectors: Vectors, a: str, b: str) -> float:
    x, y = vectors[a], vectors[b]
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def context_cosines(items: Sequence[TurnItem]) -> list[float]:
    """context-cosine by definition: NaN without a context turn, 0 for a blank response, else
    the cosine of the last context turn's embedding and the response's."""
    said = [i for i in items if i.context and i.response.strip()]
    vectors = library_vectors({t for i in said for t in (i.context[-1].text, i.response)})
    return [
        math.nan
        if not i.context
        else cosine(vectors, i.context[-1].text, i.response)
        if i.response.strip()
        else 0.0
        for i in items
    ]


def coherences(dialogues: Sequence[DialogueItem]) -> list[float]:
    """dialogue-coherence by definition: the mean over the system's turns that follow a
    non-blank turn of each one's context-cosine; NaN when there is none."""
    followed = [
        [
            (b.text, t.text)
            for b, t in pairwise(d.turns)
            if t.speaker == SYSTEM_SPEAKER and b.text.strip()
        ]
        for d in dialogues
    ]
    vectors = library_vectors(
        {x for pairs in followed for b, t in pairs if t.strip() for x in (b, t)}
    )
    return [
        float(np.mean([cosine(vectors, b, t) if t.strip() else 0.0 for b, t in pairs]))
        if pairs
        else math.nan
        for pairs in followed
    ]


def measure(
    goal: Goal, name: str, items: Sequence[Item], expected: Callable[..., list[float]], repeat: int
) -> None:
    """One metric's values checked, then its CPU time against its forward passes alone."""
    metric = get(name)
    encoder = embedding.resolve_encoder(None)
    model, tokenizer = embedding._load_encoder(str(encoder.path), encoder.provenance)
    batches: list[Batch] = []
    ours = scored(metric, items, batches)
    _assert_equal(name, ours, expected(items), atol=TOLERANCE)
    print(f"{name}, {len(items)} items: {describe(batches)}")
    metric_s = fastest(lambda: scored(metric, items), repeat)
    floor_s = fastest(lambda: bare_passes(model, tokenizer.pad_token_id, batches), repeat)
    print_floor_rows(goal, metric_s, floor_s)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    turns = _sample(load_benchmark("usr-topical"), args.sample)[: args.sample]
    goal = BY_WORK["context-cosine, 300 usr-topical items"]
    measure(goal, "context-cosine", turns, context_cosines, args.repeat)
    dialogues = benchmark_items(load_benchmark("fed-dialogue"))
    goal = BY_WORK["dialogue-coherence, 125 fed-dialogue dialogues"]
    measure(goal, "dialogue-coherence", dialogues, coherences, args.repeat)


if __name__ == "__main__":
    main()
