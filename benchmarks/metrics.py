"""Metric throughput on a real benchmark, against the plain per-item loop of each wrapped library.

    COMPERBENCH_DATA=/work/shared/data python3 benchmarks/metrics.py [--benchmark dstc7]
        [--sample 300] [--bertscore-sample 100]

1. On a sample of whole contexts (all systems' responses to them): items/s of each metric (cold: no score cache,
   no memo) and of the library's own per-item loop on the same items (sacrebleu
   `sentence_score`, rouge-score `score_multi`, nltk `meteor_score`, and bert-score's
   `BERTScorer.score`, its documented way to score repeatedly with one loaded model), with the
   ratio; models are loaded outside the timing on both sides, and both sides must give equal
   scores.
2. The n-gram suite over the whole benchmark, cold (empty score cache), in one process and in
   one worker process per CPU (the runner's default), with the ratio; the word-vector metrics
   cold; then the whole run again from the cache.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from comperbench.metrics.runner import NGRAM_SUITE

WORD_VECTORS = ["embedding-average", "greedy-matching", "vector-extrema"]


def _clear_memos() -> None:
    """Empty every memo, ours and sacrebleu's tokenizer cache, so no timing starts warm."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from comperbench.metrics import embedding, ngram

    Tokenizer13a.__call__.cache_clear()
    memos = [*vars(ngram).values(), *ngram._ROUGE.values(), *vars(embedding).values()]
    for memo in memos:
        if hasattr(memo, "cache_clear"):
            memo.cache_clear()
    ngram._TOKEN_IDS.clear()


def _timed(work: Callable[[], object]) -> float:
    return _timed_values(work)[0]


def _timed_values(work: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


def _assert_equal(name: str, ours: object, theirs: object, atol: float) -> None:
    """Both sides scored every item alike (to `atol`), or the comparison means nothing."""
    a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    if a.shape != b.shape or not np.allclose(a, b, rtol=0, atol=atol):
        worst = float(np.nanmax(np.abs(a - b))) if a.shape == b.shape else math.nan
        raise AssertionError(f"{name}: scores differ from the library's (max difference {worst})")


def _references() -> dict[str, Callable[[list], list[float]]]:
    """The plain per-item loop of each wrapped library, on our 0-1 scale."""
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.translate.meteor_score import meteor_score
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU, CHRF

    from comperbench.metrics.wordnet import wordnet_reader

    bleu = BLEU(max_ngram_order=4, smooth_method="exp", effective_order=True)
    chrf = CHRF()
    rouge = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    tok, reader = NLTKWordTokenizer().tokenize, wordnet_reader()
    return {
        "bleu-4": lambda items: [
            bleu.sentence_score(i.response, list(i.references)).score / 100 for i in items
        ],
        "chrf": lambda items: [
            chrf.sentence_score(i.response, list(i.references)).score / 100 for i in items
        ],
        "rouge-l": lambda items: [
            rouge.score_multi(list(i.references), i.response)["rougeL"].fmeasure for i in items
        ],
        "meteor": lambda items: [
            meteor_score([tok(r) for r in i.references], tok(i.response), wordnet=reader)
            for i in items
        ],
    }


def _bertscore_reference() -> Callable[[list], list[float]]:
    """bert-score's own scorer, its model loaded (and run once) here, outside any timing."""
    from bert_score import BERTScorer

    from comperbench.metrics.embedding import resolve_encoder

    scorer = BERTScorer(model_type=str(resolve_encoder(None).path), num_layers=6, batch_size=64)
    scorer.score(["warm up"], [["warm up"]])

    def f1(items: list) -> list[float]:
        _, _, f = scorer.score([i.response for i in items], [list(i.references) for i in items])
        return f.tolist()

    return f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--bertscore-sample", type=int, default=100)
    args = parser.parse_args()

    from comperbench import load_benchmark
    from comperbench.metrics import get
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import benchmark_items, run_metrics
    from comperbench.metrics.workers import default_workers

    bench = load_benchmark(args.benchmark)
    items = [i for i in benchmark_items(bench) if i.references and i.response.strip()]
    # whole contexts (every system's response to them), as a benchmark is laid out
    by_references: dict[tuple[str, ...], list] = {}
    for item in items:
        by_references.setdefault(item.references, []).append(item)
    sample = []
    for group in by_references.values():
        if len(sample) >= args.sample:
            break
        sample += group
    pairs = sum(len(i.references) for i in sample)
    print(
        f"{bench.name}: {len(bench)} items; sample of {len(sample)} items with "
        f"{pairs / len(sample):.1f} references on average; {os.cpu_count()} CPUs\n"
    )

    references = _references()
    print(f"{'metric':<20} {'items/s':>10} {'library items/s':>16} {'ratio':>7}")
    for name in [*NGRAM_SUITE, *WORD_VECTORS]:
        metric = get(name)
        metric.score(sample[-2:])  # load models and data files outside the timing
        _clear_memos()
        seconds, values = _timed_values(lambda metric=metric: metric.score(sample))
        line = f"{name:<20} {len(sample) / seconds:>10.1f}"
        if name in references:
            library_s, library = _timed_values(lambda name=name: references[name](sample))
            _assert_equal(name, values, library, atol=1e-9)
            line += f" {len(sample) / library_s:>16.1f} {library_s / seconds:>6.2f}x  equal"
        print(line)

    bert_items = sample[: args.bertscore_sample]
    bert_pairs = sum(len(i.references) for i in bert_items)
    bertscore = get("bertscore-f1")
    bertscore.score(bert_items[-2:])  # load the model outside the timing
    library_f1 = _bertscore_reference()
    _clear_memos()
    ours, values = _timed_values(lambda: bertscore.score(bert_items))
    theirs, library = _timed_values(lambda: library_f1(bert_items))
    _assert_equal("bertscore-f1", values, library, atol=1e-5)
    print(
        f"{'bertscore-f1':<20} {len(bert_items) / ours:>10.1f} {len(bert_items) / theirs:>16.1f} "
        f"{theirs / ours:>6.2f}x  equal ({bert_pairs / ours:.0f} candidate-reference pairs/s; "
        f"BERTScorer.score {bert_pairs / theirs:.0f} pairs/s)"
    )
    context = get("context-cosine")
    context.score(sample[-2:])
    _clear_memos()
    print(f"{'context-cosine':<20} {len(sample) / _timed(lambda: context.score(sample)):>10.1f}")

    ngram = [get(name) for name in NGRAM_SUITE]
    vectors = [get(name) for name in WORD_VECTORS]
    workers = default_workers()
    with tempfile.TemporaryDirectory() as folder:
        _clear_memos()
        serial = _timed(
            lambda: run_metrics(bench, ngram, cache=ScoreCache(Path(folder) / "1"), workers=1)
        )
        _clear_memos()
        cache = ScoreCache(Path(folder) / "n")
        parallel = _timed(lambda: run_metrics(bench, ngram, cache=cache, workers=workers))
        _clear_memos()
        word_vectors = _timed(lambda: run_metrics(bench, vectors, cache=cache))
        _clear_memos()
        warm = _timed(lambda: run_metrics(bench, [*ngram, *vectors], cache=cache))
    print(
        f"\nn-gram suite ({len(ngram)} metrics) over all {len(bench)} items, cold: "
        f"{serial:.1f} s in one process, {parallel:.1f} s in {workers} worker processes "
        f"({serial / parallel:.2f}x)\nword-vector metrics ({len(vectors)}), cold: "
        f"{word_vectors:.1f} s\nall {len(ngram) + len(vectors)} again from the cache: {warm:.2f} s"
    )


if __name__ == "__main__":
    main()
