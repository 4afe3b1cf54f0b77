"""Scoring on a Dask cluster: connecting to a scheduler (or starting a local one), checking that
its workers can score, and what the runner submits chunks to.

A cluster is `dask scheduler` plus `dask worker ADDRESS` processes on any machines that have the
same comperbench (and the models of the metrics they score); `local` starts a LocalCluster of
one single-threaded worker process per CPU on this machine.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from comperbench.common.errors import ComperbenchError
from comperbench.common.extras import requires_extra
from comperbench.common.version import __version__, package_digest
from comperbench.metrics.workers import default_workers

if TYPE_CHECKING:
    from distributed import Client

SCHEDULER_ENV = "COMPERBENCH_SCHEDULER"
LOCAL = "local"
CONNECT_TIMEOUT_S = 10.0
"""Seconds to reach a scheduler, and for it to have a worker."""
NO_WORKER_GRACE_S = 30.0
"""Seconds a run waits for a worker to come back once the cluster has none, before it fails."""


class ClusterError(ComperbenchError):
    """A cluster that cannot score: unreachable, without workers, or with workers that differ."""


def scheduler_address(given: str | None) -> str | None:
    """The scheduler to score on: `given`, else $COMPERBENCH_SCHEDULER, else None (no cluster);
    refused unless it is `local` or [PROTOCOL://]HOST:PORT."""
    address = given or os.environ.get(SCHEDULER_ENV) or None
    if address is None or address == LOCAL:
        return address
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or any(c.isspace() for c in address):
        source = "--scheduler" if given else f"${SCHEDULER_ENV}"
        raise ComperbenchError(
            f"{source} {address!r} is not a scheduler address: use tcp://HOST:PORT or {LOCAL}"
        )
    return address


@contextmanager
def connect(address: str) -> Iterator[Client]:
    """A client of the scheduler at `address` (`local`: a LocalCluster started here) whose
    workers are checked; closed (and the local cluster stopped) on exit."""
    with requires_extra("scoring on a Dask cluster"):
        from distributed import Client, LocalCluster
    cluster = None
    if address == LOCAL:
        cluster = LocalCluster(
            n_workers=default_workers(),
            threads_per_worker=1,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    else:
        client = _client(Client, address)
    try:
        check_workers(client)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _client(client_type: type[Client], address: str) -> Client:
    try:
        return client_type(address, timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, TimeoutError) as error:
        raise ClusterError(
            f"no Dask scheduler answered at {address} within {CONNECT_TIMEOUT_S:.0f} s "
            f"({error}): start one with `dask scheduler`, or check the address"
        ) from None


def worker_count(client: Client) -> int:
    """How many workers the cluster has now."""
    return len(client.scheduler_info(n_workers=-1)["workers"])


def describe(client: Client) -> str:
    """'the 2 workers of the Dask cluster at tcp://127.0.0.1:8786'."""
    return f"the {worker_count(client)} workers of the Dask cluster at {client.scheduler.address}"


def check_workers(client: Client) -> None:
    """Fail unless the cluster has a worker and every worker has this comperbench version and
    the same code (`package_digest`)."""
    address = client.scheduler.address
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except TimeoutError:
        raise ClusterError(
            f"the Dask scheduler at {address} has no worker after {CONNECT_TIMEOUT_S:.0f} s: "
            f"start some with `dask worker {address}`"
        ) from None
    found = client.run(version, "comperbench", on_error="return")
    wrong = {
        worker: "not installed" if isinstance(v, PackageNotFoundError) else str(v)
        for worker, v in found.items()
        if v != __version__
    }
    if wrong:
        listed = ", ".join(f"{worker}: {v}" for worker, v in sorted(wrong.items()))
        raise ClusterError(
            f"{len(wrong)} of {len(found)} workers of {address} lack comperbench {__version__} "
            f"({listed}): install the same comperbench on every worker"
        )
    _check_code(client)


def _check_code(client: Client) -> None:
    """Fail, naming them, when workers run comperbench code that differs from this process's."""
    here = package_digest()
    found = client.run(package_digest, on_error="return")
    wrong = sorted(worker for worker, digest in found.items() if digest != here)
    if wrong:
        workers = client.scheduler_info(n_workers=-1)["workers"]
        named = [f"{workers.get(w, {}).get('name', '?')} at {w}" for w in wrong]
        raise ClusterError(
            f"{len(wrong)} of {len(found)} workers of {client.scheduler.address} run comperbench "
            f"code that differs from this one's ({', '.join(named)}): install the same "
            "comperbench on every worker"
        )


def executors(client: Client) -> list[Executor]:
    """A concurrent.futures executor per worker of the cluster (every chunk is computed, never
    memoised). A chunk submitted to one runs on its worker, where the chunks before it left
    their texts' tokens in the memos; loosely: when that worker is gone, or has work left while
    another is idle, Dask runs the chunk on another (work stealing). A cluster without workers
    gives one executor for any worker, whose chunks wait until `watch` gives up."""
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    if not workers:
        return [client.get_executor(pure=False)]
    return [
        client.get_executor(pure=False, workers=[worker], allow_other_workers=True)
        for worker in workers
    ]


def watch(client: Client) -> Callable[[], None]:
    """A check for the runner's wait loop: raises once the cluster has had no worker for
    `NO_WORKER_GRACE_S` (Dask itself reschedules the chunks of a worker that died)."""
    since: list[float] = []

    def check() -> None:
        if client.scheduler_info(n_workers=-1)["workers"]:
            since.clear()
            return
        since.append(since[0] if since else time.monotonic())
        if time.monotonic() - since[0] > NO_WORKER_GRACE_S:
            raise ClusterError(
                f"the Dask cluster at {client.scheduler.address} has had no worker for "
                f"{NO_WORKER_GRACE_S:.0f} s: scoring stopped, nothing was written to the cache"
            )

    return check
