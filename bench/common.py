"""Small helpers shared by the benchmarks: percentiles, free ports, waiting, acceptance checks."""

from __future__ import annotations

import socket
import statistics
import time
from collections.abc import Callable, Sequence
from typing import TypedDict


class Check(TypedDict):
    """One acceptance figure as a bench reports it: its value, the target in words, and whether it was met
    (None: not measured)."""

    value: float
    target: str
    met: bool | None


def percentile(values: Sequence[float], pct: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(samples_s: Sequence[float]) -> str:
    ms = [s * 1000 for s in samples_s]
    return f"p50 {statistics.median(ms):.2f} ms  p95 {percentile(ms, 95):.2f} ms  (n={len(ms)})"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(check: Callable[[], bool], timeout: float, interval: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if check():
                return True
        except Exception:
            pass
        time.sleep(interval)
    return False
