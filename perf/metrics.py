"""Metric throughput on a real benchmark, against the plain per-item loop of each wrapped library.

    COMPERBENCH_DATA=/work/shared/data python3 perf/metrics.py [--benchmark dstc7]
        [--sample 300] [--bertscore-sample 300] [--only-bertscore] [--only-length] [--repeat 3]

1. On a sample of whole contexts (all systems' responses to them): items/s of each metric (cold: no score cache,
   no memo) and of the library's own per-item loop on the same items (sacrebleu
   `sentence_score`, rouge-score `score_multi`, nltk `meteor_score`; for BERTScore, bert-score's
   `BERTScorer.score` called once on all the items, in its default batches of 64), with the
   ratio; models are loaded outside the timing on both sides, and both sides must give equal
   scores (BERTScore: P, R and F1, against bert-score without padding, whose batches count a
   negative best match 0 for a padded pair; CPU seconds, printed as a speed row too).
2. `length` on every response of the benchmark against sacrebleu's 13a tokenizer called per
   response (both cold, CPU seconds, fastest of --repeat, equal counts checked).
3. The n-gram suite over the whole benchmark, cold (empty score cache), in one process and in
   one worker process per CPU (the runner's default), with the ratio; the word-vector metrics
   cold; then the whole run again from the cache.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from comperbench.metrics.runner import NGRAM_SUITE

sys.path.insert(0, str(Path(__file__).parent))
from rows import print_row

WORD_VECTORS = ["embedding-average", "greedy-matching", "vector-extrema"]
CPU = time.process_time


MODEL_LOADERS = frozenset({"_load_encoder", "bert_model", "_joined_13a"})
"""Cached loaders of models and tokenizers (no scores), kept: they load outside the timing on
both sides."""


def _clear_memos() -> None:
    """Empty every memo, ours and sacrebleu's tokenizer cache, so no timing starts warm."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from comperbench.metrics.embeddings import bertscore, embedding
    from comperbench.metrics.lexical import bleu, chrf, f1, rouge
    from comperbench.metrics.lexical.common import tokens
    from comperbench.metrics.lexical.meteor import alignment

    Tokenizer13a.__call__.cache_clear()
    modules = (tokens, bleu, chrf, rouge, f1, alignment, embedding, bertscore)
    named = [item for module in modules for item in vars(module).items()]
    memos = [*(m for n, m in named if n not in MODEL_LOADERS), *rouge._ROUGE.values()]
    for memo in memos:
        if hasattr(memo, "cache_clear") and not isinstance(memo, type):
            memo.cache_clear()
    tokens._TOKEN_IDS.clear()


def _timed(work: Callable[[], object]) -> float:
    return _timed_values(work)[0]


def _timed_values(
    work: Callable[[], object], clock: Callable[[], float] = time.perf_counter
) -> tuple[float, object]:
    start = clock()
    out = work()
    return clock() - start, out


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

    from comperbench.metrics.lexical.wordnet import wordnet_reader

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


def _bertscore_reference() -> Callable[[list, int], list[list[float]]]:
    """bert-score's own scorer, its model loaded (and run once) here, outside any timing: P, R
    and F1 of all the items from one `BERTScorer.score` call in batches of the given size."""
    from bert_score import BERTScorer

    from comperbench.metrics.embeddings.embedding import resolve_encoder

    scorer = BERTScorer(model_type=str(resolve_encoder(None).path), num_layers=6, batch_size=64)
    scorer.score(["warm up"], [["warm up"]])

    def scores(items: list, batch_size: int) -> list[list[float]]:
        responses, references = [i.response for i in items], [list(i.references) for i in items]
        p, r, f = scorer.score(responses, references, batch_size=batch_size)
        return [p.tolist(), r.tolist(), f.tolist()]

    return scores


def _bertscore(sample: list, bench: str, repeat: int) -> None:
    """Our three BERTScore metrics (one computation, shared) against one BERTScorer.score call in
    its default batches of 64, each timed `repeat` times in turn (CPU seconds), ours cold each
    time; the fastest of each is kept, as other jobs on the machine only ever slow a run down.
    Every value of ours must equal bert-score's without padding (batches of 1, untimed)."""
    from comperbench.metrics import get

    pairs = sum(len(i.references) for i in sample)
    metrics = [get(f"bertscore-{part}") for part in ("p", "r", "f1")]
    metrics[0].score(sample[-2:])  # load the model outside the timing
    library = _bertscore_reference()
    unpadded = library(sample, 1)
    ours = theirs = math.inf
    for _ in range(repeat):
        _clear_memos()
        seconds, values = _timed_values(lambda: [m.score(sample) for m in metrics], CPU)
        ours = min(ours, seconds)
        _assert_equal("bertscore-p/r/f1", values, unpadded, atol=1e-5)
        seconds, batched = _timed_values(lambda: library(sample, 64), CPU)
        theirs = min(theirs, seconds)
    padding = float(np.max(np.abs(np.asarray(batched) - np.asarray(unpadded))))
    print(
        f"{'bertscore-p/r/f1':<20} {len(sample) / ours:>10.1f} {len(sample) / theirs:>16.1f} "
        f"{theirs / ours:>6.2f}x  equal ({pairs / ours:.0f} candidate-reference pairs/s; "
        f"BERTScorer.score {pairs / theirs:.0f} pairs/s; fastest of {repeat}; its padded "
        f"batches differ from it without padding by up to {padding:.2g})"
    )
    print_row(
        f"BERTScore P/R/F1, {len(sample)} items of {bench}",
        ours,
        theirs,
        f"bert-score `BERTScorer.score`, batches of 64 (fastest of {repeat})",
        2,
    )


def _sample(bench: object, size: int) -> list:
    """Whole contexts (every system's response to them), as a benchmark is laid out."""
    from comperbench.metrics.runner import benchmark_items

    items = [i for i in benchmark_items(bench) if i.references and i.response.strip()]
    by_references: dict[tuple[str, ...], list] = {}
    for item in items:
        by_references.setdefault(item.references, []).append(item)
    sample: list = []
    for group in by_references.values():
        if len(sample) >= size:
            break
        sample += group
    return sample


def _per_metric(sample: list, bench_name: str, bertscore_sample: int, repeat: int) -> None:
    """Items/s of each metric on the sample, against its library's where one is wrapped."""
    from comperbench.metrics import get

    references = _references()
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
    _bertscore(sample[:bertscore_sample], bench_name, repeat)
    context = get("context-cosine")
    context.score(sample[-2:])
    _clear_memos()
    print(f"{'context-cosine':<20} {len(sample) / _timed(lambda: context.score(sample)):>10.1f}")


def _length(bench: object, repeat: int) -> None:
    """`length` on every response against sacrebleu's 13a tokenizer called per response, each
    side cold and timed `repeat` times in turn, the fastest kept (CPU seconds)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    from comperbench.metrics import get
    from comperbench.metrics.runner import benchmark_items

    items, metric, tokenize = list(benchmark_items(bench)), get("length"), Tokenizer13a()
    metric.score(items[:2])  # set up outside the timing
    ours_s = theirs_s = math.inf
    for _ in range(repeat):
        _clear_memos()
        TokenizerRegexp.__call__.cache_clear()
        start = time.process_time()
        expected = [len(tokenize(i.response).split()) for i in items]
        theirs_s = min(theirs_s, time.process_time() - start)
        start = time.process_time()
        ours = metric.score(items)
        ours_s = min(ours_s, time.process_time() - start)
        if ours != [float(n) for n in expected]:
            raise AssertionError("length differs from the count of sacrebleu's 13a tokens")
    print_row(
        f"`length`, every response of {bench.name} ({len(items)})",
        ours_s,
        theirs_s,
        f"sacrebleu's 13a tokenizer per response (fastest of {repeat})",
        2,
    )


def _whole_benchmark(bench: object) -> None:
    """The n-gram suite and the word-vector metrics over the whole benchmark, cold then cached."""
    from comperbench.metrics import get
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import run_metrics
    from comperbench.metrics.workers import default_workers

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--bertscore-sample", type=int, default=300)
    parser.add_argument(
        "--only-bertscore", action="store_true", help="time BERTScore only, not the other metrics"
    )
    parser.add_argument("--only-length", action="store_true", help="time `length` only")
    parser.add_argument(
        "--repeat", type=int, default=3, help="BERTScore and length timings per side"
    )
    args = parser.parse_args()

    from comperbench import load_benchmark

    bench = load_benchmark(args.benchmark)
    if args.only_length:
        _length(bench, args.repeat)
        return
    sample = _sample(bench, max(args.sample, args.bertscore_sample))
    pairs = sum(len(i.references) for i in sample)
    print(
        f"{bench.name}: {len(bench)} items; sample of {len(sample)} items with "
        f"{pairs / len(sample):.1f} references on average; {os.cpu_count()} CPUs\n"
    )
    print(f"{'metric':<20} {'items/s':>10} {'library items/s':>16} {'ratio':>7}")
    if args.only_bertscore:
        _bertscore(sample[: args.bertscore_sample], bench.name, args.repeat)
        return
    _per_metric(sample, bench.name, args.bertscore_sample, args.repeat)
    _length(bench, args.repeat)
    _whole_benchmark(bench)


if __name__ == "__main__":
    main()
