"""Speed of the learned and LLM-judge metrics with SmolLM2-135M-Instruct on this machine's CPU.

- FED: items/s of `fed-overall` (conversation encoded once, all follow-ups in one batch on its
  key/value cache) against the published procedure (every conversation + follow-up sequence run
  through the model on its own), on the same fed-turn items; the scores must agree.
- LLM judges, local backend: G-Eval (greedy, one token) with batches of 8 against batches of 1;
  CPDScore-simple (n=3 sampled calls per item); both again from the raw-output store (cache).
- The time a full run of each benchmark would take at the measured rates.

Run: COMPERBENCH_DATA=../shared/data python perf/learned.py [--items N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

import torch

from comperbench import load_benchmark, metrics
from comperbench.metrics.base import TurnItem
from comperbench.metrics.learned import fed
from comperbench.metrics.llm import backend_factory as llm_backends
from comperbench.metrics.llm.backends.local_model import LocalBackend
from comperbench.metrics.runner import benchmark_items

MODEL = "SmolLM2-135M"


def timed(fn, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def naive_fed_overall(scorer: fed.FollowUpLikelihood, item: TurnItem) -> float:
    """The published procedure: each (conversation + follow-up) sequence on its own, no cache."""
    tok, model = scorer.tokenizer, scorer.model
    utterances = [u.text for u in item.context] + [item.response]
    history = tok("".join(u + scorer.separator for u in utterances), add_special_tokens=False)[
        "input_ids"
    ]
    if tok.bos_token_id is not None:
        history = [tok.bos_token_id, *history]
    nll = {}
    texts = {f for ups in fed.TURN_FOLLOWUPS.values() for side in ups.values() for f in side}
    for text in texts:
        target = tok(text, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([history + target])
        with torch.inference_mode():
            logprobs = torch.log_softmax(model(ids).logits[0].float(), dim=-1)
        positions = torch.arange(len(history) - 1, len(history) + len(target) - 1)
        nll[text] = -logprobs[positions, torch.tensor(target)].mean().item()
    parts = [fed.quality_score(ups, nll) for ups in fed.TURN_FOLLOWUPS.values()]
    return sum(parts) / len(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=8)
    args = parser.parse_args()
    print(
        f"torch threads: {torch.get_num_threads()}; model: {MODEL}; items per measure: {args.items}"
    )
    sizes = {}
    for name in ("fed-turn", "fed-dialogue", "usr-topical"):
        sizes[name] = len(load_benchmark(name))
    turn_items = [i for i in benchmark_items(load_benchmark("fed-turn")) if isinstance(i, TurnItem)]
    sample = turn_items[: args.items]

    _, load_s = timed(fed._scorer, MODEL)
    print(f"model load (GGUF de-quantised to float32): {load_s:.1f} s")
    metric = metrics.get(f"fed-overall[{MODEL}]")
    fast, fast_s = timed(metric.score, sample)
    scorer = fed._scorer(MODEL)
    naive, naive_s = timed(lambda: [naive_fed_overall(scorer, i) for i in sample])
    gap = max(abs(a - b) for a, b in zip(fast, naive, strict=True))
    fed_rate = len(sample) / fast_s
    print(
        f"FED fed-overall: {fed_rate:.2f} items/s shared-prefix batch; "
        f"{len(sample) / naive_s:.2f} items/s one sequence at a time; "
        f"speed-up x{naive_s / fast_s:.1f}; max |difference| {gap:.2e}"
    )

    llm_backends._BACKENDS["local:" + MODEL] = LocalBackend(MODEL, batch_size=8)
    geval = metrics.get(f"geval[coherence,{MODEL}]")
    _, batched_s = timed(geval.score, sample)
    os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")
    llm_backends._BACKENDS["local:" + MODEL] = LocalBackend(MODEL, batch_size=1)
    _, single_s = timed(metrics.get(f"geval[coherence,{MODEL}]").score, sample)
    _, cached_s = timed(metrics.get(f"geval[coherence,{MODEL}]").score, sample)
    geval_rate = len(sample) / batched_s
    print(
        f"G-Eval (local, 1 token): {geval_rate:.2f} items/s batch 8; "
        f"{len(sample) / single_s:.2f} items/s batch 1; batching x{single_s / batched_s:.1f}; "
        f"from the raw-output store {len(sample) / cached_s:.0f} items/s (x{single_s / cached_s:.0f})"
    )

    cpd = metrics.get(f"cpdscore-simple[{MODEL}]")
    _, cpd_s = timed(cpd.score, sample)
    _, cpd_cached_s = timed(metrics.get(f"cpdscore-simple[{MODEL}]").score, sample)
    cpd_rate = len(sample) / cpd_s
    print(
        f"CPDScore-simple (local, n=3 sampled calls): {cpd_rate:.2f} items/s; cached "
        f"{len(sample) / cpd_cached_s:.0f} items/s (x{cpd_s / cpd_cached_s:.0f}); "
        f"unparsable calls {cpd.notes['unparsable_calls']} of {cpd.notes['calls']}"
    )

    print("full-run estimates at these rates (turn-level metrics; FED dialogue rate not measured):")
    for name, size in sizes.items():
        print(
            f"  {name} ({size} items): FED {size / fed_rate / 60:.1f} min, "
            f"G-Eval {size / geval_rate / 60:.1f} min, CPDScore {size / cpd_rate / 60:.1f} min"
        )


if __name__ == "__main__":
    main()
