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
import time
from collections.abc import Sequence

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

from goals import BY_WORK
from metrics import _assert_equal, _bertscore_reference, _sample  # perf/metrics.py
from rows import print_goal_row

from comperbench.benchmark import load_benchmark
from comperbench.metrics import get
from comperbench.metrics.embeddings import bertscore, embedding

GOAL = BY_WORK["BERTScore, 300 dstc7 items"]
TOLERANCE = 1e-6


def scored(items: list, batches: list[list[list[int]]] | None = None) -> list[list[float]]:
    """Our P, R and F1 of the items from a cold memo; each forward batch appended to `batches`."""
    bertscore.text_memo.cache_clear()
    embedding._bertscore_memo.cache_clear()
    forward = bertscore._forward
    if batches is not None:

        def recording(bert: bertscore.Bert, ids: Sequence[list[int]]) -> list:
            batches.append([list(i) for i in ids])
            return forward(bert, ids)

        bertscore._forward = recording
    try:
        return [get(f"bertscore-{part}").score(items) for part in ("p", "r", "f1")]
    finally:
        bertscore._forward = forward


def bare_passes(bert: bertscore.Bert, batches: list[list[list[int]]]) -> None:
    """The model alone over the recorded batches: padding, mask and the forward pass."""
    import torch

    for ids in batches:
        tokens, mask = bertscore.right_padded(ids, bert.tokenizer.pad_token_id)
        with torch.inference_mode():
            bert.model(tokens, attention_mask=mask)


def fastest(work, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    items = _sample(load_benchmark("dstc7"), args.sample)[: args.sample]
    batches: list[list[list[int]]] = []
    ours = scored(items, batches)
    library = _bertscore_reference()(items, 1)  # unpadded: its padded batches move values
    _assert_equal("bertscore-p/r/f1", ours, library, atol=TOLERANCE)
    metric = get("bertscore-f1")
    key = (str(metric.encoder.path), metric.layers, metric.encoder.provenance)  # type: ignore[attr-defined]
    bert = bertscore.bert_model(*key)
    texts = sum(len(b) for b in batches)
    tokens = sum(len(i) for b in batches for i in b)
    print(f"{len(items)} items: {texts} distinct texts, {tokens} tokens, {len(batches)} batches")
    metric_s = fastest(lambda: scored(items), args.repeat)
    floor_s = fastest(lambda: bare_passes(bert, batches), args.repeat)
    ratio = metric_s / floor_s
    print(f"metric {metric_s:.2f} s CPU, its forward passes alone {floor_s:.2f} s: {ratio:.2f}x")
    print_goal_row(
        GOAL.work,
        f"{metric_s:.3g} s ({ratio:.2f}x its floor)",
        metric_s,
        floor_s,
        "its forward passes alone",
        GOAL.stated(floor_s),
        GOAL.met(ratio, floor_s=1.0),
    )


if __name__ == "__main__":
    main()
