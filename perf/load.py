"""Cold (parse raw files) and warm (read the parquet cache) load time of every benchmark.

Run: COMPERBENCH_DATA=../shared/data python perf/load.py
Benchmarks whose raw files are not under the data root are listed as missing.
"""

from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

from comperbench import get_metadata, list_benchmarks, load_benchmark
from comperbench.common.errors import DataMissingError
from comperbench.schema import STORED_LEVELS


def main() -> None:
    rows: list[tuple[str, str, int, float, float]] = []
    missing: list[str] = []
    for name in list_benchmarks():
        for level in (lv for lv in get_metadata(name).levels if lv in STORED_LEVELS):
            try:
                start = time.perf_counter()
                cold = load_benchmark(name, level)
                cold_s = time.perf_counter() - start
            except DataMissingError:
                missing.append(f"{name}/{level}")
                continue
            start = time.perf_counter()
            warm = load_benchmark(name, level)
            warm_s = time.perf_counter() - start
            assert len(warm) == len(cold)
            rows.append((name, level, len(cold), cold_s, warm_s))
    print(f"{'benchmark':<24}{'level':<10}{'items':>8}{'cold s':>9}{'warm s':>9}")
    for name, level, items, cold_s, warm_s in rows:
        print(f"{name:<24}{level:<10}{items:>8}{cold_s:>9.3f}{warm_s:>9.3f}")
    total_cold = sum(r[3] for r in rows)
    total_warm = sum(r[4] for r in rows)
    print(f"{'all':<24}{'':<10}{sum(r[2] for r in rows):>8}{total_cold:>9.3f}{total_warm:>9.3f}")
    print(f"cold/warm ratio: {total_cold / total_warm:.1f}x  (targets: cold < 15 s, warm < 1 s)")
    if missing:
        print("raw files not available (not timed): " + ", ".join(missing))


if __name__ == "__main__":
    main()
