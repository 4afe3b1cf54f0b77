"""Scoring on a warm Dask cluster against one process: bleu-4 and rouge-l over all of dstc7.

    COMPERBENCH_DATA=/work/shared/data python perf/cluster.py [--repeat 3] [--workers 2]

A real cluster on this machine, kept warm as a user keeps one: `dask scheduler` and `--workers`
single-threaded `dask worker` processes on 127.0.0.1, started once and warmed (a small chunk
scored on every worker: its imports done, its metrics built). Then, alternately, `--repeat` times:
the benchmark's 10,000 items scored in this process (`run_metrics(..., workers=1)`, the anchor)
and on the cluster (`run_metrics(..., client=...)`), no score cache, every memo emptied before
each run on both sides (here, and in every worker), the scores of the two compared bit for bit.

The work runs in other processes, so this process's CPU time would flatter the cluster: the row
compares wall times, the best of the alternating runs, and says this process's CPU beside it.
The lines before it give the one process's CPU, the workers' CPU and how many of them ran at
once on average (their CPU over the wall time), how many chunks were being scored at once (from
Dask's task stream: that the workers score side by side, whatever share of the cores they get)
and how many chunks a run sends. Other processes share the machine's cores, so wall times vary
with its load: believe the best of several runs, not one. Where Linux groups a session's processes
for CPU shares (autogroup), the cluster started here shares this session's one share: on a machine
busy with other sessions it gets about the CPU one process gets, and wins only on less CPU in all.
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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import cloudpickle
import metrics as metric_bench  # perf/metrics.py, beside this file: _clear_memos
import numpy as np
from distributed import get_task_stream
from rows import print_goal_row

METRICS = "bleu-4,rouge-l"
NEEDS = {"response", "references"}
"""What the two metrics read of an item."""
STARTUP_S = 120.0

cloudpickle.register_pickle_by_value(metric_bench)  # the workers cannot import it


@contextmanager
def dask_cluster(workers: int) -> Iterator[str]:
    """The address of a `dask scheduler` with `workers` `dask worker` processes (one thread
    each) on 127.0.0.1, stopped on exit."""
    import distributed

    with tempfile.TemporaryDirectory(prefix="comperbench-cluster-") as folder:
        file = Path(folder) / "scheduler.json"
        dask = [sys.executable, "-m", "dask"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        host = ["--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(file)]
        scheduler = subprocess.Popen([*dask, "scheduler", *host, "--no-dashboard"], **quiet)
        processes = [scheduler]
        try:
            deadline = time.monotonic() + STARTUP_S
            while (address := _written_address(file)) is None and time.monotonic() < deadline:
                time.sleep(0.1)
            if address is None:
                raise SystemExit(f"the scheduler wrote no address in {STARTUP_S:g} s")
            processes += [
                subprocess.Popen(
                    [*dask, "worker", address, "--nthreads", "1", "--no-dashboard"], **quiet
                )
                for _ in range(workers)
            ]
            with distributed.Client(address, timeout="60s") as client:
                client.wait_for_workers(workers, timeout=STARTUP_S)
            yield address
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=30)


def _written_address(file: Path) -> str | None:
    """The scheduler's address once its file is written whole (it exists, empty, before that)."""
    try:
        return json.loads(file.read_text())["address"]
    except (FileNotFoundError, json.JSONDecodeError, KeyError):
        return None


def _cpu_s() -> float:
    """CPU seconds of the process this runs in (a worker, through `client.run`)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed(run) -> tuple[float, float, object]:
    """Wall seconds, this process's CPU seconds and the result of `run()`."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _chunks_at_once(tasks: list[dict]) -> float:
    """How many chunks were being scored at once, on average, from the first chunk's start to
    the last one's end (Dask's task stream): 2.0 when two workers score side by side throughout,
    whatever share of the cores they get."""
    spans = [s for task in tasks for s in task["startstops"] if s["action"] == "compute"]
    start, stop = min(s["start"] for s in spans), max(s["stop"] for s in spans)
    return sum(s["stop"] - s["start"] for s in spans) / (stop - start)


def _assert_identical(ours, anchor) -> None:
    for run, alone in zip(ours.runs, anchor.runs, strict=True):
        if not np.array_equal(run.scores, alone.scores, equal_nan=True):
            raise AssertionError(
                f"{run.metric.name}: the cluster's scores differ from one process's"
            )


def _warm(client, bench) -> None:
    """Every worker, and this process, scores a small chunk: imports done, metrics built."""
    from comperbench.metrics.runner import benchmark_items, resolve_metrics
    from comperbench.metrics.workers import pack, score_chunk

    items = benchmark_items(bench.sample(50, 1))
    for metric in resolve_metrics(METRICS, "turn"):
        metric.score(items)
    every_position = [list(range(len(items)))] * len(METRICS.split(","))
    client.run(score_chunk, METRICS.split(","), pack(items, NEEDS), every_position, len(items))


def _alternate(client, bench, repeat: int) -> dict[str, float]:
    """One process and the cluster in turn, `repeat` times, memos emptied before each run and
    scores compared: the best wall time of each, with the CPU figures of that run."""
    from comperbench.metrics.runner import resolve_metrics, run_metrics

    metrics = resolve_metrics(METRICS, "turn")
    best = {"one s": float("inf"), "cluster s": float("inf")}
    for _ in range(repeat):
        metric_bench._clear_memos()
        wall, cpu, anchor = _timed(lambda: run_metrics(bench, metrics, workers=1))
        if wall < best["one s"]:
            best.update({"one s": wall, "one CPU s": cpu})
        client.run(metric_bench._clear_memos)
        before = client.run(_cpu_s)
        with get_task_stream(client) as stream:
            wall, cpu, ours = _timed(lambda: run_metrics(bench, metrics, client=client))
        workers_cpu = sum(client.run(_cpu_s)[w] - s for w, s in before.items())
        _assert_identical(ours, anchor)
        if wall < best["cluster s"]:
            best.update({"cluster s": wall, "client CPU s": cpu, "workers CPU s": workers_cpu})
            best["chunks at once"] = _chunks_at_once(stream.data)
    return best


def _chunk_count(bench, workers: int) -> int:
    """How many chunks a run of the benchmark sends to `workers` workers."""
    from comperbench.metrics.cache import item_keys
    from comperbench.metrics.runner import DEFAULT_BATCH, benchmark_items
    from comperbench.metrics.workers import chunk_size

    distinct = len(set(item_keys(benchmark_items(bench), NEEDS)))
    return -(-distinct // chunk_size(distinct, workers, DEFAULT_BATCH))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs per side")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    from comperbench import load_benchmark
    from comperbench.metrics import cluster

    bench = load_benchmark(args.benchmark)
    with dask_cluster(args.workers) as address, cluster.connect(address) as client:
        _warm(client, bench)
        best = _alternate(client, bench, args.repeat)
    listed = METRICS.replace(",", " + ")
    busy = best["workers CPU s"] / best["cluster s"]
    print(
        f"{args.benchmark}: {len(bench)} items, {listed}, {os.cpu_count()} CPUs; cluster: "
        f"{args.workers} single-threaded workers, {_chunk_count(bench, args.workers)} chunks per "
        f"run\nbest of {args.repeat}, wall: one process {best['one s']:.2f} s (its CPU "
        f"{best['one CPU s']:.2f} s); cluster {best['cluster s']:.2f} s, its workers' CPU "
        f"{best['workers CPU s']:.2f} s ({busy:.2f} workers busy on average; "
        f"{best['chunks at once']:.2f} chunks scored at once), this process's CPU "
        f"{best['client CPU s']:.2f} s; every score bit-identical"
    )
    print_goal_row(
        f"`evaluate --scheduler` on a warm {args.workers}-worker Dask cluster, {listed} on all "
        f"{len(bench):,} {args.benchmark} items (wall s, runs alternating, best of {args.repeat})",
        f"{best['cluster s']:.3g} s wall (this process {best['client CPU s']:.3g} s CPU)",
        best["cluster s"],
        best["one s"],
        "one process, wall",
        "never slower than one process (wall)",
        best["cluster s"] <= best["one s"],
    )


if __name__ == "__main__":
    main()
