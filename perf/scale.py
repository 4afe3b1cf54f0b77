"""Scale: a benchmark of SODA-EVAL's size through every stage a user runs, each timed alone.

    COMPERBENCH_DATA=/work/shared/data python perf/scale.py [--responses 120000]

A synthetic benchmark is written in SODA-EVAL's published layout (the dataset card with its split
sizes and parquet shards, read by the real `soda-eval` loader): `--responses` rows whose texts are
real dialogue (dstc7's contexts and responses, drawn with replacement), with one dstc7 reference
each, and GPT-4-style 1-5 scores that follow the response's word overlap with its reference plus
noise (so metrics correlate about as weakly as they do on real data). Then, each in a fresh
process so that its peak memory is its own:

1. load: the loader from raw files to the verified, cached table (cold), then again (warm);
2. score: the n-gram suite on a local Dask cluster (one worker per CPU), from an empty cache;
   then on a 5,000-item sample in this process and on a fresh cluster, with the ratio (the
   workers' start-up and first imports included);
3. table: Pearson, Spearman and Kendall with 1,000-resample bootstrap intervals (every score
   from the cache, as a warm `evaluate`);
4. compare: PERM-BOTH between every pair of the suite's metrics, 1,000 resamples;
5. submit: one metric's scores for every item, as a leaderboard submission file (validated,
   scored with intervals, stored).

The statistics alone at 10^4, 10^5 and 10^6 items are `perf/stats_scale.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from usage import resident_mb  # perf/usage.py, beside this file

SUITE = "bleu-1,bleu-2,bleu-3,bleu-4,chrf,chrf++,rouge-1,rouge-2,rouge-l,meteor,f1,length"
SHARD_ROWS = 20_000
RATIO_SAMPLE = 5_000
STAGES = ("load", "score", "table", "compare", "submit")


def _card(rows: dict[str, int]) -> str:
    """A dataset card in the layout of Johndfm/soda_eval's (features, split sizes, patterns)."""
    features = "\n".join(
        [
            "  - name: dialog_id\n    dtype: int64",
            "  - name: dialog_history\n    dtype: string",
            "  - name: response\n    dtype: string",
            "  - name: overall_comment\n    dtype: string",
            "  - name: score\n    dtype: int64",
            "  - name: issues\n    list:\n    - name: comment\n      dtype: string\n"
            "    - name: type\n      dtype: string",
            "  - name: split\n    dtype: string",
        ]
    )
    splits = "\n".join(f"  - name: {s}\n    num_examples: {n}" for s, n in rows.items())
    files = "\n".join(f"  - split: {s}\n    path: data/{s}-*" for s in rows)
    return (
        f"---\nlicense: cc-by-4.0\ndataset_info:\n  features:\n{features}\n  splits:\n{splits}\n"
        f"configs:\n- config_name: default\n  data_files:\n{files}\n---\n\n"
        "Synthetic rows in the layout of Johndfm/soda_eval, for perf/scale.py.\n"
    )


def _overlap(response: str, reference: str) -> float:
    words, other = set(response.lower().split()), set(reference.lower().split())
    return len(words & other) / max(1, len(words | other))


def write_benchmark(root: Path, responses: int, seed: int) -> None:
    """The synthetic SODA-EVAL layout under root/soda_eval and each row's reference in
    root/references.parquet (by dialog id)."""
    from comperbench import load_benchmark

    source = load_benchmark("dstc7").table.select(["context", "response", "references"])
    source = source.filter(
        pa.compute.greater(pa.compute.list_value_length(source["references"]), 0)
    )
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, source.num_rows, responses)
    rows = source.take(pa.array(drawn)).to_pylist()
    history = ["\n".join(f"{u['speaker']}: {u['text']}" for u in r["context"]) for r in rows]
    reference = [r["references"][rng.integers(len(r["references"]))] for r in rows]
    overlap = np.array(
        [_overlap(r["response"], ref) for r, ref in zip(rows, reference, strict=True)]
    )
    score = np.clip(np.rint(3.6 + 4 * overlap + rng.normal(0, 1.0, responses)), 1, 5).astype(int)
    split = np.where(
        rng.random(responses) < 0.8, "train", np.where(rng.random(responses) < 0.5, "val", "test")
    )
    table = pa.table(
        {
            "dialog_id": pa.array(np.arange(responses), pa.int64()),
            "dialog_history": history,
            "response": [r["response"] for r in rows],
            "overall_comment": ["synthetic"] * responses,
            "score": pa.array(score, pa.int64()),
            "issues": pa.array(
                [[]] * responses,
                pa.list_(pa.struct([("comment", pa.string()), ("type", pa.string())])),
            ),
            "split": split.tolist(),
        }
    )
    folder = root / "soda_eval"
    (folder / "data").mkdir(parents=True, exist_ok=True)
    counts = {}
    for name in ("train", "val", "test"):
        part = table.filter(pa.compute.equal(table["split"], name))
        counts[name] = part.num_rows
        shards = max(1, -(-part.num_rows // SHARD_ROWS))
        for k in range(shards):
            piece = part.slice(k * SHARD_ROWS, SHARD_ROWS)
            pq.write_table(piece, folder / "data" / f"{name}-{k:05d}-of-{shards:05d}.parquet")
    (folder / "README.md").write_text(_card(counts))
    pq.write_table(
        pa.table({"dialog_id": [str(d) for d in range(responses)], "reference": reference}),
        root / "references.parquet",
    )


def _with_references(root: Path):
    """The synthetic benchmark (all splits) with each item's dstc7 reference attached."""
    from comperbench import load_benchmark
    from comperbench.benchmark import Benchmark

    bench = load_benchmark("soda-eval", data_dir=root)
    refs = pq.read_table(root / "references.parquet").to_pydict()
    by_dialogue = dict(zip(refs["dialog_id"], refs["reference"], strict=True))
    dialogue = bench.table.column("dialogue_id").to_pylist()
    column = pa.array([[by_dialogue[d]] for d in dialogue], pa.list_(pa.string()))
    table = bench.table.set_column(
        bench.table.schema.get_field_index("references"), "references", column
    )
    return Benchmark(bench.metadata, bench.level, table, bench.skipped)


def _suite():
    from comperbench.metrics.runner import resolve_metrics

    return resolve_metrics(SUITE, "turn")


def stage_load(root: Path) -> dict[str, object]:
    from comperbench import load_benchmark

    cold = _timed(lambda: load_benchmark("soda-eval", data_dir=root))
    warm = _timed(lambda: load_benchmark("soda-eval", data_dir=root))
    rows = load_benchmark("soda-eval", data_dir=root).table.num_rows
    return {"items": rows, "cold load": cold, "warm load": warm}


def stage_score(root: Path) -> dict[str, object]:
    from comperbench.metrics import cluster
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import run_metrics

    bench = _with_references(root)
    with cluster.connect(cluster.LOCAL) as client:
        full = _timed(
            lambda: run_metrics(bench, _suite(), cache=ScoreCache(root / "scores"), client=client)
        )
    sample = bench.sample(RATIO_SAMPLE, 1)
    with tempfile.TemporaryDirectory() as scratch:
        alone = _timed(
            lambda: run_metrics(sample, _suite(), cache=ScoreCache(Path(scratch) / "1"), workers=1)
        )
        with cluster.connect(cluster.LOCAL) as client:
            spread = _timed(
                lambda: run_metrics(
                    sample, _suite(), cache=ScoreCache(Path(scratch) / "2"), client=client
                )
            )
    return {
        f"{bench.table.num_rows} items, local cluster": full,
        f"{RATIO_SAMPLE} sampled items, one process": alone,
        f"{RATIO_SAMPLE} sampled items, a fresh local cluster": spread,
        "ratio": round(alone / spread, 2),
    }


def _scored(root: Path):
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import run_metrics

    return run_metrics(_with_references(root), _suite(), cache=ScoreCache(root / "scores"))


def stage_table(root: Path) -> dict[str, object]:
    from comperbench.evaluation.run import evaluate_run
    from comperbench.stats.settings import Resampling

    result = _scored(root)
    seconds = _timed(lambda: evaluate_run(result, "overall", resampling=Resampling(1000, 0)))
    return {"metrics": len(result.runs), "correlation table": seconds}


def stage_compare(root: Path) -> dict[str, object]:
    from comperbench.stats.metric_tests.significance import significance_matrix
    from comperbench.stats.settings import Resampling

    result = _scored(root)
    frame = result.item_frame()
    human = result.benchmark.human_scores("overall")
    scores = {run.metric.name: frame[run.metric.name].to_numpy() for run in result.runs}
    seconds = _timed(
        lambda: significance_matrix(
            scores, human, level="turn", statistic="pearson", resampling=Resampling(1000, 0)
        )
    )
    return {"pairs": len(scores) * (len(scores) - 1) // 2, "PERM-BOTH": seconds}


def stage_submit(root: Path) -> dict[str, object]:
    from comperbench.leaderboard.service import submit
    from comperbench.leaderboard.store import Store
    from comperbench.leaderboard.submission import SubmissionMeta

    frame = _scored(root).item_frame()
    lines = [
        json.dumps({"item_id": i, "score": s})
        for i, s in zip(frame["item_id"], frame["f1"], strict=True)
        if s == s
    ]
    raw = ("\n".join(lines) + "\n").encode()
    meta = SubmissionMeta(name="scale-f1", authors="perf/scale.py")
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "board.sqlite")
        seconds = _timed(lambda: submit("scores.jsonl", raw, meta, store))
    return {"items": len(lines), "MB": round(len(raw) / 1e6, 1), "submit": seconds}


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return round(time.perf_counter() - start, 2)


def _usage() -> dict[str, float]:
    """CPU seconds and peak MB of this process and of its finished children (the cluster's
    worker processes, started by this stage)."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return {
        "CPU s": round(own.ru_utime + own.ru_stime, 1),
        "workers' CPU s": round(children.ru_utime + children.ru_stime, 1),
        "peak MB": round(resident_mb("VmHWM")),
        "workers' peak MB": round(children.ru_maxrss / 1024),
    }


def _run_stage(name: str, root: Path) -> dict[str, object]:
    """The stage in a fresh process: its figures, wall seconds, CPU and peak memory."""
    env = {**os.environ, "COMPERBENCH_DATA": str(root), "COMPERBENCH_CACHE": str(root / "cache")}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--stage", name, "--root", str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"stage {name} failed:\n{done.stderr[-3000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {**figures, "wall s": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=120_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stage", choices=STAGES, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        stage = globals()[f"stage_{args.stage}"]
        print(json.dumps({**stage(args.root), **_usage()}))
        return
    with tempfile.TemporaryDirectory(prefix="comperbench-scale-") as folder:
        root = Path(folder)
        start = time.perf_counter()
        write_benchmark(root, args.responses, args.seed)
        print(
            f"wrote {args.responses} synthetic SODA-EVAL rows in {time.perf_counter() - start:.1f} s"
        )
        for name in STAGES:
            print(f"{name}: {json.dumps(_run_stage(name, root))}", flush=True)


if __name__ == "__main__":
    main()
