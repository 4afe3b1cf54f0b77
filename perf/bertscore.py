"""BERTScore against its floor: the bare forward passes of the same model over the same texts.

Our P/R/F1 of 300 dstc7 items (whole contexts, as a benchmark is laid out) are scored from a cold
memo, with every batch the model is given recorded; then those very batches go through the model
alone (no tokenising, no matching, no memo), in the same process. The ratio of the two CPU times
(fastest of --repeat each) says how far the metric is from what its model costs. Before timing,
every value is checked against bert-score's own `BERTScorer.score` on the same model, one text
per batch (its padded batches move values by up to 4e-3), to 1e-6.

Run: COMPERBENCH_DATA=/work/shared/data python perf/bertscore.py [--sample 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from contextlib import nullcontext

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

from floor import Batch, describe, fastest, print_floor_rows, recording
from goals import BY_WORK
from metrics import _assert_equal, _bertscore_reference, _sample  # perf/metrics.py

from comperbench.benchmark import load_benchmark
from comperbench.metrics import get
from comperbench.metrics.embeddings import bertscore, embedding

GOAL = BY_WORK["BERTScore, 300 dstc7 items"]
TOLERANCE = 1e-6


def scored(items: list, batches: list[Batch] | None = None) -> list[list[float]]:
    """Our P, R and F1 of the items from a cold memo; each forward batch appended to `batches`."""
    bertscore.text_memo.cache_clear()
    embedding._bertscore_memo.cache_clear()
    with nullcontext() if batches is None else recording(bertscore, "_forward", batches):
        return [get(f"bertscore-{part}").score(items) for part in ("p", "r", "f1")]


def bare_passes(bert: bertscore.Bert, batches: list[Batch]) -> None:
    """The model alone over the recorded batches: padding, mask and the forward pass."""
    import torch

    for ids in batches:
        tokens, mask = bertscore.right_padded(ids, bert.tokenizer.pad_token_id)
        with torch.inference_mode():
            bert.model(tokens, attention_mask=mask)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    items = _sample(load_benchmark("dstc7"), args.sample)[: args.sample]
    batches: list[Batch] = []
    ours = scored(items, batches)
    library = _bertscore_reference()(items, 1)  # unpadded: its padded batches move values
    _assert_equal("bertscore-p/r/f1", ours, library, atol=TOLERANCE)
    metric = get("bertscore-f1")
    key = (str(metric.encoder.path), metric.layers, metric.encoder.provenance)  # type: ignore[attr-defined]
    bert = bertscore.bert_model(*key)
    print(f"{len(items)} items: {describe(batches)}")
    metric_s = fastest(lambda: scored(items), args.repeat)
    floor_s = fastest(lambda: bare_passes(bert, batches), args.repeat)
    print_floor_rows(GOAL, metric_s, floor_s)


if __name__ == "__main__":
    main()
