"""The cold default evaluate of every benchmark in one process, `comperbench evaluate --benchmark
all` from an empty cache, against its two floors:

1. the encoder metrics (BERTScore, context-cosine, dialogue-coherence): their CPU time over that
   of their models' bare forward passes over the very batches they gave them (recorded during
   the run, replayed after it in the same process); goal at most 1.15x;
2. everything else (loading, the n-gram and word-vector metrics with their worker processes, the
   statistics, the human ceilings, writing): goal under 60 s of CPU in total.

Before the rows are printed, every benchmark is evaluated again alone, each in a fresh process
from an empty cache of its own, as a user running them one by one: each benchmark's scores
(`scores.parquet`) and table rows (`table.json`) are asserted equal to the one-process run's,
an encoder's scores within 1e-6 (`ENCODER_TOLERANCE`) and the table's numbers with them
(`--no-check` skips this, halving the time).

Minutes of CPU from an empty cache, so it is not part of `make bench`; run it apart. CPU time,
not wall time: the machine may be shared.
Run: COMPERBENCH_DATA=/work/shared/data python perf/cold.py [--benchmarks a,b] [--no-check]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
# one BLAS thread, as the CLI starts (`comperbench.stats.blas`), before pyarrow loads numpy
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from goals import BY_WORK
from rows import print_goal_row

ENCODERS = BY_WORK["cold `evaluate --benchmark all`: the encoder metrics"]
THE_REST = BY_WORK["cold `evaluate --benchmark all`: all but the encoder metrics"]
ENCODER_METRICS = ("bertscore-p", "bertscore-r", "bertscore-f1", "context-cosine")
ENCODER_METRICS += ("dialogue-coherence",)
"""The default metrics that run an encoder's forward pass (the word-vector ones read its input
embeddings only)."""


@dataclass(frozen=True)
class Run:
    """A run's CPU time with its workers, its peak memory (its largest process) and its outputs."""

    cpu: float
    peak_mb: float
    out: Path


def _env(cache: Path) -> dict[str, str]:
    # one hash seed for every run: nothing should depend on it, and this checks nothing does
    return {**os.environ, "COMPERBENCH_CACHE": str(cache), "PYTHONHASHSEED": "0"}


def alone(name: str, folder: Path) -> Run:
    """`comperbench evaluate --benchmark NAME` in a fresh process, from an empty cache."""
    out = folder / name
    command = [sys.executable, "-m", "comperbench", "evaluate", "--benchmark", name]
    with open(folder / f"{name}.log", "w") as log:
        child = subprocess.Popen(
            [*command, "--out", str(out)],
            env=_env(folder / f"cache-{name}"),
            stdout=log,
            stderr=log,
        )
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"evaluate {name} failed: see {folder / f'{name}.log'}")
    return Run(usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out)


@contextmanager
def timed_metrics(cpu: dict[str, float], loading: dict[str, float]) -> Iterator[None]:
    """Within it, the CPU time of each metric scored in this process is added to `cpu`, less
    the loading of a model that happened within it (`loading`, kept by `timed_loading`): a model
    loaded during a word-vector metric is not taken from the encoders' time."""
    from comperbench.metrics import runner

    original = runner._compute

    def compute(pending: Any, items: Any, batch_size: int) -> Any:
        start, loaded = time.process_time(), loading["loading"]
        try:
            return original(pending, items, batch_size)
        finally:
            spent = time.process_time() - start - (loading["loading"] - loaded)
            cpu[pending.metric.name.split("[")[0]] += spent

    runner._compute = compute
    try:
        yield
    finally:
        runner._compute = original


@contextmanager
def recorded_forwards(calls: list[tuple[Any, ...]]) -> Iterator[None]:
    """Within it, every forward pass of BERTScore's and of the sentence encoder's is appended
    to `calls` (what it needs to be run again alone)."""
    from comperbench.metrics.embeddings import bertscore, embedding

    bert_forward, pooled = bertscore._forward, embedding._mean_pooled

    def bert(model: Any, ids: Any) -> Any:
        calls.append(("bert", model, [list(i) for i in ids]))
        return bert_forward(model, ids)

    def sentence(model: Any, ids: Any, pad_id: int) -> Any:
        calls.append(("sentence", model, [list(i) for i in ids], pad_id))
        return pooled(model, ids, pad_id)

    bertscore._forward, embedding._mean_pooled = bert, sentence
    try:
        yield
    finally:
        bertscore._forward, embedding._mean_pooled = bert_forward, pooled


@contextmanager
def timed_loading(cpu: dict[str, float]) -> Iterator[None]:
    """Within it, the CPU time of loading each encoder (once a process) is added to
    `cpu["loading"]`: a cost of the run, not of the metric's work per text."""
    from comperbench.metrics.embeddings import bertscore, embedding

    loaders = {(bertscore, "bert_model"): bertscore.bert_model}
    loaders[(embedding, "_load_encoder")] = embedding._load_encoder

    def timing(load: Any) -> Any:
        def loaded(*args: Any) -> Any:
            start = time.process_time()
            try:
                return load(*args)
            finally:
                cpu["loading"] += time.process_time() - start

        return loaded

    for (module, name), load in loaders.items():
        setattr(module, name, timing(load))
    try:
        yield
    finally:
        for (module, name), load in loaders.items():
            setattr(module, name, load)


def bare_forwards(calls: list[tuple[Any, ...]]) -> float:
    """CPU seconds of the recorded forward passes run again alone: padding, mask and model."""
    import torch

    from comperbench.metrics.models import right_padded

    start = time.process_time()
    with torch.inference_mode():
        for call in calls:
            if call[0] == "bert":
                bert, ids = call[1], call[2]
                tokens, mask = right_padded(ids, bert.tokenizer.pad_token_id)
                bert.model(tokens, attention_mask=mask)
            else:
                model, ids, pad_id = call[1], call[2], call[3]
                tokens, mask = right_padded(ids, pad_id)
                model(input_ids=tokens, attention_mask=mask)
    return time.process_time() - start


def child(names: list[str], out: Path, report: Path) -> None:
    """The one-process run, in this process: its figures written to `report` as JSON."""
    from comperbench.cli import main

    cpu: dict[str, float] = defaultdict(float)
    calls: list[tuple[Any, ...]] = []
    loading: dict[str, float] = defaultdict(float)
    with timed_metrics(cpu, loading), timed_loading(loading), recorded_forwards(calls):
        status = main(["evaluate", "--benchmark", ",".join(names), "--out", str(out)])
    if status:
        raise SystemExit(f"evaluate --benchmark {','.join(names)} exited {status}")
    mine, workers = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    total = mine.ru_utime + mine.ru_stime + workers.ru_utime + workers.ru_stime
    peak = max(mine.ru_maxrss, workers.ru_maxrss) / 1024
    encoders = sum(cpu[name] for name in ENCODER_METRICS)
    figures = {
        "loading": loading["loading"],
        "total": total,
        "workers": workers.ru_utime + workers.ru_stime,
        "peak_mb": peak,
        "encoders": encoders,
        "floor": bare_forwards(calls),
        "batches": len(calls),
        "metrics": dict(cpu),
    }
    report.write_text(json.dumps(figures))


def one_process(names: list[str], folder: Path) -> dict[str, Any]:
    """`child` in a fresh process from an empty cache."""
    report, out = folder / "one-process.json", folder / "one-process"
    command = [sys.executable, __file__, "--child", str(out), str(report), ",".join(names)]
    with open(folder / "one-process.log", "w") as log:
        done = subprocess.run(command, env=_env(folder / "cache"), stdout=log, stderr=log)
    if done.returncode:
        raise SystemExit(f"the one-process run failed: see {folder / 'one-process.log'}")
    return {**json.loads(report.read_text()), "out": out}


def folders(out: Path) -> dict[str, Path]:
    """Each benchmark's output folder under `out`, by the benchmark its table names."""
    found = {}
    for table in out.glob("*/table.json"):
        tag = json.loads(table.read_text())["run"]["benchmark"]
        found[tag.partition("@")[0]] = table.parent
    return found


ENCODER_TOLERANCE = 1e-6
"""How far an encoder metric's score may be from the one-process run's: a score already cached by
an earlier benchmark of the run (the same item content) is not computed again, which changes the
batches of that benchmark's other texts, and an encoder's last bits depend on its batches."""


def _same_value(a: object, b: object, tolerance: float = 0.0) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= tolerance or a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            _same_value(x, y, tolerance) for x, y in zip(a, b, strict=True)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k], tolerance) for k in a)
    return a == b


def _encoder_gap(one: pa.Table, other: pa.Table) -> float:
    """The largest difference between the two runs' encoder scores; every other column equal."""
    assert one.column_names == other.column_names, "the score columns differ"
    gap = 0.0
    for column in one.column_names:
        a, b = (t[column].to_numpy(zero_copy_only=False) for t in (one, other))
        if not column.startswith(ENCODER_METRICS):
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f"{column} differs"
        elif not np.array_equal(a, b, equal_nan=True):
            assert np.array_equal(np.isnan(a), np.isnan(b)), f"{column}: NaN elsewhere"
            gap = max(gap, float(np.nanmax(np.abs(a - b))))
    return gap


def assert_same(name: str, one: Path, other: Path) -> None:
    """Equal scores and equal table rows (values, p-values, intervals) of one benchmark; where an
    encoder's scores differ within ENCODER_TOLERANCE, the table's numbers within it too."""
    scores = [pq.read_table(f / "scores.parquet") for f in (one, other)]
    gap = _encoder_gap(*scores)
    assert gap <= ENCODER_TOLERANCE, f"{name}: an encoder's scores differ by {gap:.3g}"
    rows = [json.loads((f / "table.json").read_text())["rows"] for f in (one, other)]
    tolerance = ENCODER_TOLERANCE if gap else 0.0
    assert _same_value(*rows, tolerance), f"{name}: the table rows differ"
    if gap:
        print(f"  {name}: encoder scores within {gap:.2g} of the one-process run's")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmarks", help="comma-separated (default: every one present)")
    parser.add_argument("--no-check", action="store_true", help="skip the runs of each alone")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        out, report, names = args.child
        child(names.split(","), Path(out), Path(report))
        return
    from comperbench.benchmark import list_benchmarks

    names = args.benchmarks.split(",") if args.benchmarks else list_benchmarks(present=True)
    folder = Path(tempfile.mkdtemp(prefix="comperbench-cold-"))
    started = time.perf_counter()
    print(f"cold default evaluate of {len(names)} benchmarks in one process, empty cache:")
    run = one_process(names, folder)
    print(
        f"  CPU {run['total']:.0f} s with its workers ({run['workers']:.0f} s in the worker "
        f"processes), peak {run['peak_mb']:.0f} MB"
    )
    if not args.no_check:
        one = folders(run["out"])
        (folder / "alone").mkdir()
        runs = {name: alone(name, folder / "alone") for name in names}
        for name, each in runs.items():
            assert_same(name, one[name], each.out)
        cpu = sum(r.cpu for r in runs.values())
        print(f"  each alone in a fresh process: CPU {cpu:.0f} s in all; scores and tables equal")
    encoders, floor = run["encoders"], run["floor"]
    rest = run["total"] - encoders
    print(
        f"  encoder metrics {encoders:.0f} s (loading their models, {run['loading']:.1f} s, is "
        f"counted with the rest), their {run['batches']} forward passes alone {floor:.0f} s"
    )
    print_goal_row(
        ENCODERS.work,
        f"{encoders:.0f} s ({encoders / floor:.2f}x its floor)",
        encoders,
        floor,
        "their forward passes alone",
        ENCODERS.stated(floor),
        ENCODERS.met(encoders / floor, floor_s=1.0),
    )
    print_goal_row(
        THE_REST.work,
        f"{rest:.0f} s, peak {run['peak_mb']:.0f} MB",
        rest,
        run["total"],
        "the whole run",
        THE_REST.text,
        THE_REST.met(rest),
    )
    print(f"({time.perf_counter() - started:.0f} s of wall time)")


if __name__ == "__main__":
    main()
