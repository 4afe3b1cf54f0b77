"""Requests in flight against an OpenAI-compatible server: items/s of a CPDScore judge at
concurrency 1 (one request at a time) against concurrency 8, on a server on 127.0.0.1 that
delays every answer, as a remote model does.

Run: python perf/judge_http_throughput.py [--delay S] [--items N]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

from comperbench import metrics
from comperbench.metrics.base import TurnItem
from comperbench.schema import Utterance


class DelayedServer(BaseHTTPRequestHandler):
    """Answers `Score: 4` after `delay` seconds."""

    delay = 0.1

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        time.sleep(self.delay)
        message = {"role": "assistant", "content": "Score: 4"}
        body = json.dumps({"choices": [{"index": 0, "message": message}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def items_per_second(url: str, items: list[TurnItem], concurrency: int, seed: int) -> float:
    judge = metrics.get(
        f"cpdscore-simple[http:m,n=1,url={url},concurrency={concurrency},seed={seed}]"
    )
    start = time.perf_counter()
    scores = judge.score(items)
    elapsed = time.perf_counter() - start
    assert scores == [4.0] * len(items)
    return len(items) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.1, help="seconds per answer")
    parser.add_argument("--items", type=int, default=48)
    args = parser.parse_args()
    DelayedServer.delay = args.delay
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), DelayedServer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    items = [
        TurnItem(f"t{i}", f"Answer number {i}.", (Utterance("A", "What is new?"),))
        for i in range(args.items)
    ]
    one = items_per_second(url, items, 1, seed=0)
    eight = items_per_second(url, items, 8, seed=1)  # another seed: nothing from the raw store
    print(f"server delay {args.delay:g} s per answer, {args.items} items, n=1")
    print(
        f"concurrency 1: {one:.1f} items/s; concurrency 8: {eight:.1f} items/s; x{eight / one:.2f}"
    )
    httpd.shutdown()


if __name__ == "__main__":
    main()
