"""`mnemex up` from start to ready: median over a few runs, fresh MNEMEX_HOME each run.

    .venv/bin/python -m bench.bench_startup [--runs 3] [--only embedding --only gateway]

Each run starts ``python -m mnemex.cli up`` (foreground, exactly what a user
types) on free loopback ports with an empty data dir, and measures wall time
from process start until the supervisor reports every service healthy
(``run/state.json`` status ``running``: gRPC health SERVING for the three
services, an HTTP answer from the gateway's /api/health). It then checks the
gateway's /api/health says every backend serves, sends SIGTERM, and times the
clean stop. Per service it prints the supervisor's spawn -> healthy time.
Target: start-to-ready <= 10 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import TypedDict

from bench.common import free_port, percentile
from kernel.json_values import JSONObject, as_object, float_at, int_at, object_at, parse_object, str_at

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 10.0


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU a process has used so far (Linux /proc), 0 when unknown."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(") ", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def gateway_health(address: str) -> str:
    try:
        with urllib.request.urlopen(f"http://{address}/api/health", timeout=5) as reply:
            return str(json.loads(reply.read()).get("status"))
    except urllib.error.HTTPError as exc:  # 503 while a backend is missing (e.g. with --only)
        return str(json.loads(exc.read() or b"{}").get("status", exc.code))


class StartupRun(TypedDict):
    ready_s: float
    stop_s: float
    exit_code: int
    gateway_health: str | None
    services: dict[str, float | None]  # each service's spawn -> healthy seconds
    cpu: dict[str, float]  # each service's CPU seconds until ready


def run_once(only: list[str]) -> StartupRun:
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-startup-") as tmp:
        home = Path(tmp) / "home"
        env = dict(os.environ)
        env.update(
            MNEMEX_HOME=str(home),
            PYTHONUNBUFFERED="1",
            **{f"MNEMEX_{n}_ADDR": f"127.0.0.1:{free_port()}" for n in ("GATEWAY", "EMBEDDING", "MEMORY", "KG")},
        )
        env.pop("MNEMEX_TOKEN", None)
        command = [sys.executable, "-m", "mnemex.cli", "up", *[a for name in only for a in ("--only", name)]]
        state_file = home / "run" / "state.json"
        started = time.perf_counter()
        proc = subprocess.Popen(
            command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        state: JSONObject = {}
        try:
            while time.perf_counter() - started < 180:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"mnemex up exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}"
                    )
                try:
                    state = parse_object(state_file.read_text())
                except (FileNotFoundError, ValueError):
                    state = {}
                if str_at(object_at(state, "supervisor"), "status") == "running":
                    break
                time.sleep(0.02)
            ready = time.perf_counter() - started
            cpu = {name: cpu_seconds(int_at(svc, "pid") or None) for name, svc in services_of(state).items()}
            health = None
            if not only or "gateway" in only:
                health = gateway_health(env["MNEMEX_GATEWAY_ADDR"])
            stop_started = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(60)
            stopped = time.perf_counter() - stop_started
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    services = {
        name: float_at(s, "ready_seconds") if "ready_seconds" in s and s["ready_seconds"] is not None else None
        for name, s in services_of(state).items()
    }
    return StartupRun(ready_s=ready, stop_s=stopped, exit_code=code, gateway_health=health, services=services, cpu=cpu)


def services_of(state: JSONObject) -> dict[str, JSONObject]:
    """The supervisor state's entry of each service."""
    return {name: as_object(entry) for name, entry in object_at(state, "services").items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", action="append", default=[], help="start only this service (repeatable)")
    args = parser.parse_args()
    print(
        f"mnemex up start-to-ready, {args.runs} runs, fresh MNEMEX_HOME each, {os.cpu_count()} CPUs"
        + (f", only {', '.join(args.only)}" if args.only else ", whole stack")
    )
    results = []
    for number in range(1, args.runs + 1):
        result = run_once(args.only)
        results.append(result)
        per_service = "  ".join(f"{k} {v:.2f}s" for k, v in result["services"].items() if v is not None)
        print(
            f"run {number}: ready {result['ready_s']:.2f} s (gateway health: {result['gateway_health']}), "
            f"stop {result['stop_s']:.2f} s, exit {result['exit_code']}; spawn->healthy: {per_service}"
        )
    cpu = {name: statistics.median(r["cpu"].get(name, 0.0) for r in results) for name in results[0]["cpu"]}
    bound = max(max(cpu.values(), default=0.0), sum(cpu.values()) / 2)
    print(
        "CPU seconds used until ready (median): "
        + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items())
        + f"; on 2 idle cores start-to-ready cannot beat ~{bound:.1f} s (the busiest child, or the total / 2)"
    )
    ready = [r["ready_s"] for r in results]
    stop = [r["stop_s"] for r in results]
    median = statistics.median(ready)
    print(
        f"start-to-ready: median {median:.2f} s, p95 {percentile(ready, 95):.2f} s, min {min(ready):.2f} s, "
        f"max {max(ready):.2f} s; target <= {TARGET_S:.0f} s -> ratio {median / TARGET_S:.2f} "
        f"({'met' if median <= TARGET_S else 'NOT met'})"
    )
    print(
        f"clean stop (SIGTERM -> exit): median {statistics.median(stop):.2f} s; "
        "load average after: " + " ".join(f"{x:.1f}" for x in os.getloadavg())
    )


if __name__ == "__main__":
    main()
