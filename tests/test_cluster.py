"""Scoring on a real Dask cluster: a `dask scheduler` and `dask worker` processes on 127.0.0.1."""

from __future__ import annotations

import importlib
import json
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import distributed
import numpy as np
import pandas as pd
import pytest
from deadlines import DEADLINE_S

from comperbench import load_benchmark
from comperbench.cli import main
from comperbench.metrics import cluster, get, workers
from comperbench.metrics.base import TurnItem
from comperbench.metrics.cache import ScoreCache, item_key
from comperbench.metrics.runner import (
    _on_cluster,
    benchmark_items,
    resolve_metrics,
    run_metrics,
)
from comperbench.metrics.workers import by_shared_references, chunk_size, pack, rebuild_name
from comperbench.schema import Utterance

METRICS = "bleu-2,rouge-1,rouge-l,meteor,f1,length"


@dataclass
class DaskProcesses:
    """A scheduler and its worker processes; `address` is the scheduler's."""

    scheduler: subprocess.Popen
    workers: list[subprocess.Popen]
    address: str

    def stop(self) -> None:
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.workers, self.scheduler]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def _dask(*args: str, log: Path, code: Path | None = None) -> subprocess.Popen:
    """`python -m dask ARGS`; with `code`, run in that folder and importing comperbench from it."""
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        env=env | ({"PYTHONPATH": str(code)} if code else {}),
        cwd=code,
    )


def _written_address(file: Path) -> str | None:
    """The scheduler's address once its file is written whole (it exists, empty, before that)."""
    try:
        return json.loads(file.read_text())["address"]
    except (FileNotFoundError, json.JSONDecodeError, KeyError):
        return None


def _start(folder: Path, n_workers: int) -> DaskProcesses:
    """`dask scheduler` plus `n_workers` single-threaded `dask worker` processes (no nanny, so a
    killed worker stays dead)."""
    file = folder / "scheduler.json"
    scheduler = _dask(
        "scheduler",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--no-dashboard",
        "--scheduler-file",
        str(file),
        log=folder / "scheduler.log",
    )
    deadline = time.monotonic() + DEADLINE_S
    while (address := _written_address(file)) is None:
        assert scheduler.poll() is None, (folder / "scheduler.log").read_text()
        assert time.monotonic() < deadline, "the scheduler did not start"
        time.sleep(0.1)
    workers = [
        _dask(
            "worker",
            address,
            "--nthreads",
            "1",
            "--no-nanny",
            "--no-dashboard",
            "--name",
            f"w{k}",
            log=folder / f"worker{k}.log",
        )
        for k in range(n_workers)
    ]
    processes = DaskProcesses(scheduler, workers, address)
    if n_workers:
        with distributed.Client(address, timeout=f"{DEADLINE_S:g}s") as client:
            client.wait_for_workers(n_workers, timeout=DEADLINE_S)
    return processes


@pytest.fixture
def two_workers(tmp_path: Path) -> Iterator[DaskProcesses]:
    processes = _start(tmp_path, 2)
    yield processes
    processes.stop()


@pytest.fixture
def usr_persona(data_root: Path):
    return load_benchmark("usr-persona", data_dir=data_root)


def _connect(address: str) -> None:
    with cluster.connect(address):
        pass


def _kill_when_busy(client, worker: subprocess.Popen) -> threading.Thread:
    """A thread that kills `worker` once the scheduler has chunks processing on it."""

    def run() -> None:
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            if any(client.processing().values()):
                worker.send_signal(signal.SIGKILL)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_llm_judges_and_unnamed_metrics_stay_in_this_process(tmp_path: Path) -> None:
    assert _on_cluster(get("bleu-4"))
    assert not _on_cluster(get("cpdscore-simple[http:gpt-4o]"))
    assert rebuild_name(get(" bleu-4 ")) == "bleu-4"


def test_items_sharing_references_are_grouped_in_the_order_of_their_first_item() -> None:
    names = [f"reference {k}" for k in range(8)]
    order = [3, 0, 5, 3, 7, 1, 0, 6, 2, 4, 5, 1]  # reference set of each item
    items = [TurnItem(f"i{k}", "hi", references=(names[r],)) for k, r in enumerate(order)]
    expected = [0, 3, 1, 6, 2, 10, 4, 5, 11, 7, 8, 9]
    assert by_shared_references(range(12), items) == expected
    assert by_shared_references(set(range(12)), items) == expected
    assert by_shared_references([9, 3, 0], items) == [0, 3, 9]
    code = (
        "from comperbench.metrics.base import TurnItem\n"
        "from comperbench.metrics.workers import by_shared_references\n"
        "items = [TurnItem(str(k), 'hi', references=(f'r{k % 5}',)) for k in range(40)]\n"
        "print(by_shared_references(range(40), items))"
    )
    runs = {  # an ordering by the references' hash would differ between these processes
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1


def test_reference_sets_sharing_a_text_are_adjacent_in_the_order_of_their_first_item() -> None:
    sets = [("a", "b"), ("c",), ("b", "d"), ("e",), ("d", "f"), ("c", "g"), ("h",)]
    order = [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 4]  # reference set of each item
    items = [TurnItem(f"i{k}", "hi", references=sets[r]) for k, r in enumerate(order)]
    # families: sets 0, 2, 4 (through b, d); sets 1, 5 (through c); set 3; set 6
    expected = [0, 7, 2, 9, 4, 10, 1, 8, 5, 3, 6]
    assert by_shared_references(range(len(items)), items) == expected
    assert by_shared_references(reversed(range(len(items))), items) == expected
    assert by_shared_references([5, 3, 1], items) == [1, 5, 3]  # linked by c alone


def test_within_a_family_each_reference_set_is_followed_by_the_one_sharing_most_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sets = [("a", "b", "c"), ("c", "x"), ("a", "b", "y"), ("z", "p"), ("z", "w"), ("p", "q")]
    sets += [("z", "v")]
    items = [TurnItem(f"i{k}", "hi", references=refs) for k, refs in enumerate(sets)]
    # 0 shares a, b with 2 and c with 1: 2 next; 2 shares nothing left, so the family's
    # earliest unplaced set (1); then 3 shares z with 4 and 6 and p with 5: 4, the earliest
    assert by_shared_references(range(len(sets)), items) == [0, 2, 1, 3, 4, 6, 5]
    # z in three sets no longer chooses (it still makes one family): 3 is followed by 5 (p)
    monkeypatch.setattr(workers, "LINK_SETS", 2)
    assert by_shared_references(range(len(sets)), items) == [0, 2, 1, 3, 5, 4, 6]


def test_chunks_are_whole_batches_a_few_per_worker() -> None:
    assert chunk_size(10_000, 2, 256) == 1280  # 8 chunks: 4 per worker
    assert chunk_size(10_000, 1, 256) == 2560
    assert chunk_size(10_000, 2, 1000) == 2000
    assert chunk_size(300, 2, 256) == 256
    items = [TurnItem(str(k), f"response {k}", references=(f"ref {k // 10}",)) for k in range(999)]
    chunks = workers._chunks([range(999), range(0, 999, 2)], items, 2, 50)
    assert len(chunks) == 7 and {len(c) for c, _ in chunks[:-1]} == {150}  # 3 batches each
    assert sorted(i for c, _ in chunks for i in c) == list(range(999))
    assert all([c[p] for p in wanted[1]] == [i for i in c if i % 2 == 0] for c, wanted in chunks)


def test_each_place_is_given_a_run_of_neighbouring_chunks() -> None:
    assert workers.placements(8, 2) == [
        (0, 0),
        (1, 4),
        (0, 1),
        (1, 5),
        (0, 2),
        (1, 6),
        (0, 3),
        (1, 7),
    ]
    assert workers.placements(7, 3) == [(0, 0), (1, 2), (2, 4), (0, 1), (1, 3), (2, 5), (2, 6)]
    assert workers.placements(1, 2) == [(1, 0)]
    assert workers.placements(3, 1) == [(0, 0), (0, 1), (0, 2)]
    items = [TurnItem(str(k), f"response {k}", references=(f"ref {k // 10}",)) for k in range(999)]
    sent: list[list[str]] = [[], []]

    class Recording(ThreadPoolExecutor):
        def __init__(self, place: int) -> None:
            super().__init__(max_workers=1)
            self.place = place

        def submit(self, fn, names, packed, wanted, batch_size):  # type: ignore[override]
            sent[self.place] += [item.item_id for item in pickle.loads(packed)]
            return super().submit(fn, names, packed, wanted, batch_size)

    places = [Recording(0), Recording(1)]
    scores = workers.score_in_workers(
        [get("length")], items, [range(999)], places, 2, 50, lambda n: None
    )
    order = [str(i) for i in by_shared_references(range(999), items)]
    assert sent == [order[:450], order[450:]]  # 7 chunks of 150 items or fewer: 3, then 4
    assert scores == [dict.fromkeys(range(999), 2.0)]


def test_a_packed_chunk_keeps_what_its_metrics_read_and_each_reference_set_once() -> None:
    context = (Utterance("A", "hi"), Utterance("B", "hello"))
    items = [
        TurnItem(i, r, context, tuple(f"ref {n}" for n in ("one", "two")), ("persona",), s)
        for i, r, s in (("a", "yes", "s1"), ("b", "no", "s2"))
    ]
    assert items[0].references is not items[1].references
    unpacked = pickle.loads(pack(items, {"response", "references"}))
    assert unpacked == [
        TurnItem("a", "yes", references=("ref one", "ref two"), system="s1"),
        TurnItem("b", "no", references=("ref one", "ref two"), system="s2"),
    ]
    assert unpacked[0].references is unpacked[1].references
    assert pickle.loads(pack(items, {"response", "context", "references", "grounding"})) == items


def _built_metric_ids() -> dict[str, int]:
    """On a worker: the identity of each metric it has built."""
    return {name: id(metric) for name, metric in workers._WORKER_METRICS.items()}


@pytest.mark.slow
def test_a_warm_cluster_scores_dstc7_bit_identically_and_keeps_its_metrics(
    two_workers: DaskProcesses, data_root: Path
) -> None:
    """bleu-4 and rouge-l on 2,000 dstc7 items, twice on the same two workers: every score equal
    to the single-process one, both workers scoring, and the second run building no metric."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    sample = load_benchmark("dstc7", data_dir=data_root).sample(2000, 1)
    metrics = resolve_metrics("bleu-4,rouge-l", "turn")
    serial = run_metrics(sample, metrics, workers=1)
    with cluster.connect(two_workers.address) as client:
        first = run_metrics(sample, metrics, client=client)
        built = client.run(_built_metric_ids)
        second = run_metrics(sample, metrics, client=client)
        kept = client.run(_built_metric_ids)
    assert [sorted(ids) for ids in built.values()] == [["bleu-4", "rouge-l"]] * 2
    assert kept == built
    for run in (first, second):
        assert [r.computed for r in run.runs] == [2000, 2000]
        for ours, alone in zip(run.runs, serial.runs, strict=True):
            assert ours.place.startswith("the 2 workers")
            assert np.array_equal(ours.scores, alone.scores, equal_nan=True), ours.metric.name


@pytest.mark.slow
def test_cluster_scores_equal_the_single_process_scores(
    two_workers: DaskProcesses, usr_persona, tmp_path: Path
) -> None:
    metrics = resolve_metrics(METRICS, "turn")
    serial = run_metrics(usr_persona, metrics, workers=1).item_frame()
    cache = ScoreCache(tmp_path / "cache")
    with cluster.connect(two_workers.address) as client:
        result = run_metrics(usr_persona, metrics, cache=cache, batch_size=32, client=client)
    pd.testing.assert_frame_equal(result.item_frame(), serial)
    assert [r.computed for r in result.runs] == [300] * 6
    assert {r.place for r in result.runs} == {
        f"the 2 workers of the Dask cluster at {two_workers.address}"
    }
    again = run_metrics(usr_persona, metrics, cache=cache, workers=1)
    assert [r.cached for r in again.runs] == [300] * 6


@pytest.mark.slow
def test_a_chunk_runs_on_the_worker_of_its_executor(two_workers: DaskProcesses) -> None:
    with cluster.connect(two_workers.address) as client:
        pids = client.run(os.getpid)
        ran = [e.submit(os.getpid).result(DEADLINE_S) for e in cluster.executors(client)]
    assert ran == [pids[worker] for worker in sorted(pids)]


def _built_metrics() -> list[str]:
    """On a worker: the names of the metrics it has built."""
    return sorted(workers._WORKER_METRICS)


@pytest.mark.slow
def test_a_model_metric_loads_its_model_once_per_worker(
    two_workers: DaskProcesses, usr_persona, tmp_path: Path
) -> None:
    """A local model directory's metric goes to the cluster under the spelling it was built
    from (its name says only the directory's name) and gives the single-process scores."""
    import cloudpickle
    from test_metrics_embedding import _tiny_bert

    _tiny_bert(tmp_path / "tiny-bert")
    spelling = f"embedding-average[{tmp_path / 'tiny-bert'}]"
    metrics = [get(spelling)]
    assert metrics[0].name == "embedding-average[tiny-bert]"
    serial = run_metrics(usr_persona, metrics).item_frame()
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with cluster.connect(two_workers.address) as client:
        result = run_metrics(usr_persona, metrics, batch_size=16, client=client)
        built = client.run(_built_metrics)
    pd.testing.assert_frame_equal(result.item_frame(), serial, rtol=1e-6)
    assert result.runs[0].place.startswith("the 2 workers")
    assert sorted(built.values()) == [[spelling], [spelling]]


@pytest.mark.slow
def test_workers_without_the_model_fail_clearly_and_write_no_score(
    two_workers: DaskProcesses, usr_persona, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative model path that exists here but not in the workers' folder."""
    from test_metrics_embedding import _tiny_bert

    _tiny_bert(tmp_path / "tiny-bert")
    monkeypatch.chdir(tmp_path)
    metrics = [get("embedding-average[tiny-bert]")]
    cache = ScoreCache(tmp_path / "cache")
    with (
        cluster.connect(two_workers.address) as client,
        pytest.raises(
            cluster.ClusterError,
            match=r"failed, nothing was written.*EncoderError: .*no config\.json",
        ),
    ):
        run_metrics(usr_persona, metrics, cache=cache, client=client)
    keys = [item_key(item, metrics[0].needs) for item in benchmark_items(usr_persona)]
    assert cache.lookup(metrics[0], keys) == {}


@pytest.mark.slow
def test_a_worker_killed_mid_run_leaves_the_scores_unchanged(
    two_workers: DaskProcesses, usr_persona, tmp_path: Path
) -> None:
    metrics = resolve_metrics(METRICS, "turn")
    serial = run_metrics(usr_persona, metrics, workers=1).item_frame()
    with cluster.connect(two_workers.address) as client:
        killer = _kill_when_busy(client, two_workers.workers[0])
        result = run_metrics(
            usr_persona, metrics, cache=ScoreCache(tmp_path / "c"), batch_size=8, client=client
        )
        killer.join()
    assert two_workers.workers[0].poll() is not None, "the worker was not killed"
    pd.testing.assert_frame_equal(result.item_frame(), serial)


@pytest.mark.slow
def test_a_cluster_left_without_workers_fails_and_writes_no_score(
    tmp_path: Path, usr_persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    processes = _start(tmp_path, 1)
    monkeypatch.setattr(cluster, "NO_WORKER_GRACE_S", 2.0)
    monkeypatch.setattr(workers, "WATCH_EVERY_S", 0.5)
    metrics = resolve_metrics(METRICS, "turn")
    cache = ScoreCache(tmp_path / "cache")
    try:
        with cluster.connect(processes.address) as client:
            _kill_when_busy(client, processes.workers[0])
            with pytest.raises(cluster.ClusterError, match="has had no worker for 2 s"):
                run_metrics(usr_persona, metrics, cache=cache, batch_size=8, client=client)
            with pytest.raises(cluster.ClusterError, match="has had no worker for 2 s"):
                run_metrics(usr_persona, metrics, cache=cache, client=client)  # none from the start
    finally:
        processes.stop()
    keys = [item_key(item, metrics[0].needs) for item in benchmark_items(usr_persona)]
    assert cache.lookup(metrics[0], keys) == {}


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1.0)
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(cluster.ClusterError, match=rf"no Dask scheduler answered at .*:{port}"):
        _connect(f"tcp://127.0.0.1:{port}")


@pytest.mark.slow
def test_a_scheduler_without_workers_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1.0)
    processes = _start(tmp_path, 0)
    try:
        with pytest.raises(cluster.ClusterError, match="has no worker after 1 s: start some"):
            _connect(processes.address)
    finally:
        processes.stop()


@pytest.mark.slow
def test_workers_with_another_comperbench_are_named(
    two_workers: DaskProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cluster, "__version__", "9.9.9")
    with pytest.raises(cluster.ClusterError, match=r"2 of 2 workers .* lack comperbench 9\.9\.9"):
        _connect(two_workers.address)


@pytest.mark.slow
def test_a_worker_with_altered_code_of_the_same_version_is_refused_by_name(
    tmp_path: Path, data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    altered = tmp_path / "altered"
    package = Path(cluster.__file__).resolve().parents[1]
    shutil.copytree(package, altered / "comperbench", ignore=shutil.ignore_patterns("__pycache__"))
    scores = altered / "comperbench" / "metrics" / "lexical" / "bleu.py"
    scores.write_text(scores.read_text() + "\n# changed\n")
    processes = _start(tmp_path, 1)
    processes.workers.append(
        _dask(
            *("worker", processes.address, "--nthreads", "1", "--no-nanny", "--no-dashboard"),
            *("--name", "altered-worker"),
            log=tmp_path / "altered.log",
            code=altered,
        )
    )
    try:
        with distributed.Client(processes.address, timeout=f"{DEADLINE_S:g}s") as client:
            client.wait_for_workers(2, timeout=DEADLINE_S)
            ran = client.run(lambda: importlib.import_module("comperbench").__file__)
        assert str(altered / "comperbench" / "__init__.py") in ran.values()  # same version
        argv = ["evaluate", "--benchmark", "usr-persona", "--metrics", "bleu-2"]
        argv += ["--data-dir", str(data_root), "--scheduler", processes.address]
        assert main([*argv, "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and "1 of 2 workers" in err[0], err
        assert "run comperbench code that differs from this one's (altered-worker at" in err[0]
    finally:
        processes.stop()


@pytest.mark.slow
def test_evaluate_takes_the_scheduler_from_the_environment(
    two_workers: DaskProcesses,
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(cluster.SCHEDULER_ENV, two_workers.address)
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    args = ["evaluate", "--benchmark", "usr-persona", "--data-dir", str(data_root)]
    status = main([*args, "--metrics", "bleu-2,f1", "--resamples", "0", "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0
    assert (
        f"600 scores computed (600 on the 2 workers of the Dask cluster at {two_workers.address})"
        in printed
    )
    document = json.loads((out / "table.json").read_text())
    assert document["metrics"]["f1"]["scores"]["on"].endswith(two_workers.address)
