"""The budget of one judge's requests: retries, failures in a row, a deadline, and progress."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field

from comperbench.metrics.llm.backends.chat_requests import BackendError, Failure, Outcome

PROGRESS_EVERY_S = 10.0
"""Seconds between two progress lines on stderr."""


class RunStopped(BackendError):
    """A run stopped early: too many requests failed in a row, or its deadline passed."""


@dataclass
class Budget:
    """What the requests of one run may cost, and what they cost so far.

    `retries` per request (HTTP backend); the run stops after `max_failures` failed requests in a
    row (0: never) or when `deadline_s` seconds have passed since its first request (None: never).
    """

    label: str = "requests"
    retries: int = 3
    max_failures: int = 0
    deadline_s: float | None = None
    done: int = 0
    failed: int = 0
    retried: int = 0
    in_a_row: int = 0
    reason: str | None = None
    started: float | None = None
    stopped: threading.Event = field(default_factory=threading.Event, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    printed: float = field(default_factory=time.monotonic, repr=False)

    def time_left(self) -> float | None:
        """Seconds until the deadline (None without one); the clock starts at the first call."""
        if self.started is None:
            self.started = time.monotonic()
        if self.deadline_s is None:
            return None
        return self.deadline_s - (time.monotonic() - self.started)

    def halted(self, error: str) -> bool:
        """Whether the run has stopped; it stops here once its deadline has passed."""
        left = self.time_left()
        if left is not None and left <= 0:
            self.stop(f"the deadline of {self.deadline_s:g} s passed; last: {error}")
        return self.stopped.is_set()

    def stop(self, reason: str) -> None:
        """No new request starts; the first reason given is kept."""
        with self.lock:
            self.reason = self.reason or f"{self.label}: {reason}"
        self.stopped.set()

    def check(self) -> None:
        """Raise `RunStopped` with the reason once the run has stopped."""
        if self.stopped.is_set():
            raise RunStopped(self.reason)

    def record(self, outcome: Outcome) -> None:
        """Count one finished request; stop after too many failures in a row."""
        with self.lock:
            self.done += 1
            failed = isinstance(outcome, Failure)
            self.failed += failed
            self.in_a_row = self.in_a_row + 1 if failed else 0
        self.report()
        if isinstance(outcome, Failure) and 0 < self.max_failures <= self.in_a_row:
            self.stop(f"{self.in_a_row} requests in a row failed; last: {outcome.error}")

    def retry(self) -> None:
        with self.lock:
            self.retried += 1

    def report(self) -> None:
        """A progress line on stderr, at most one every `PROGRESS_EVERY_S` seconds."""
        with self.lock:
            now = time.monotonic()
            if now - self.printed < PROGRESS_EVERY_S:
                return
            self.printed = now
            elapsed = now - (self.started or now)
            print(
                f"{self.label}: {self.done} requests done, {self.failed} failed, "
                f"{self.retried} retried ({elapsed:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
