"""Memory of the running process, for the speed scripts beside this file."""

from __future__ import annotations


def resident_mb(field: str = "VmRSS") -> float:
    """Resident memory now (VmRSS) or at peak (VmHWM, which unlike getrusage's maximum does not
    count the parent's memory before a subprocess started: Linux keeps that maximum across exec)."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith(f"{field}:"))
    return int(line.split()[1]) / 1024
