"""What the whole stack costs while nobody uses it: CPU per second and resident memory.

    .venv/bin/python -m bench.bench_idle [--seconds 60] [--warm 20]

Starts ``python -m mnemex.cli up`` (what a user types) on free loopback ports with
an empty data dir, waits until it reports ready, sends ``--warm`` get-context
requests (a stack that served a few prompts holds what it loaded for them), then
leaves it alone for ``--seconds`` and reads, for the supervisor and each service:

- CPU: user + system time spent during the idle window, in ms per second;
- RSS at the end, and PSS (proportional set size: shared pages divided among the
  processes that map them, so the per-process figures add up without counting the
  shared libraries twice);
- what the RSS is made of: the largest parts of each process's memory map, from
  ``/proc/<pid>/smaps``: ``heap`` (anonymous memory: Python objects, model weights
  read into memory, allocator arenas), a package's mapped files (its shared
  libraries, or the ONNX weights onnxruntime maps, listed under ``mnemex``) or a
  system library.

Targets (issue 19): the whole stack at most 5 ms of CPU per second and 400 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TypedDict

from bench.bench_startup import cpu_seconds
from bench.common import free_port
from kernel.json_values import JSONObject, int_at, object_at, parse_object, str_at

ROOT = Path(__file__).resolve().parents[1]
CPU_TARGET_MS_PER_S = 5.0
RSS_TARGET_MB = 400.0


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of a process in MB; (0, 0) once it is gone."""
    rss = pss = 0.0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Pss:"):
                pss = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, pss


MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")
PACKAGE = re.compile(r"site-packages/([^/]+)")


def mapping_owner(path: str) -> str:
    """A short name for what a memory mapping holds: ``heap`` for anonymous memory, else a package or file."""
    if not path.startswith("/"):
        return "heap"  # [heap], [anon:...], unnamed mappings, [stack]
    package = PACKAGE.search(path)
    if package:
        return package.group(1).split("-")[0].removesuffix(".libs")
    if "/mnemex/onnx/" in path:
        return "mnemex"  # the embedding model's mapped weights (model cache)
    name = path.rsplit("/", 1)[-1]
    return name.split(".so")[0] if ".so" in name else name


def largest_parts(pid: int, count: int = 3) -> list[tuple[str, float]]:
    """The ``count`` largest owners of a process's resident memory, in MB."""
    parts: dict[str, float] = {}
    owner = "heap"
    try:
        for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
            if MAPPING.match(line):
                fields = line.split(maxsplit=5)
                owner = mapping_owner(fields[5] if len(fields) > 5 else "")
            elif line.startswith("Rss:"):
                parts[owner] = parts.get(owner, 0.0) + int(line.split()[1]) / 1024
    except OSError:
        return []
    return sorted(parts.items(), key=lambda item: -item[1])[:count]


class ProcessIdle(TypedDict):
    """One process of the idle stack over the window."""

    cpu_ms_per_s: float
    rss_mb: float
    pss_mb: float
    largest: list[tuple[str, float]]  # (what, MB) of RSS


def wait_ready(proc: subprocess.Popen[str], state_file: Path, limit_s: float = 180) -> JSONObject:
    started = time.perf_counter()
    while time.perf_counter() - started < limit_s:
        if proc.poll() is not None:
            raise RuntimeError(f"mnemex up exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            state = parse_object(state_file.read_text())
        except (FileNotFoundError, ValueError):
            state = {}
        if str_at(object_at(state, "supervisor"), "status") == "running":
            return state
        time.sleep(0.05)
    raise RuntimeError(f"mnemex up was not ready after {limit_s:.0f} s")


def warm_up(gateway: str, cwd: Path, requests: int) -> None:
    for number in range(requests):
        body = json.dumps(
            {"session_id": "idle-bench", "prompt": f"how do we deploy service {number}?", "cwd": str(cwd)}
        )
        request = urllib.request.Request(
            f"http://{gateway}/api/hooks/get-context",
            data=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            reply.read()


def measure(seconds: float, warm: int) -> dict[str, ProcessIdle]:
    with tempfile.TemporaryDirectory(prefix="mnemex-bench-idle-") as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = dict(os.environ)
        env.update(
            MNEMEX_HOME=str(home),
            PYTHONUNBUFFERED="1",
            **{f"MNEMEX_{n}_ADDR": f"127.0.0.1:{free_port()}" for n in ("GATEWAY", "EMBEDDING", "MEMORY", "KG")},
        )
        env.pop("MNEMEX_TOKEN", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "mnemex.cli", "up"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            state = wait_ready(proc, home / "run" / "state.json")
            pids = {"supervisor": proc.pid}
            services = object_at(state, "services")
            pids.update({name: int_at(object_at(services, name), "pid") for name in services})
            pids = {name: pid for name, pid in pids.items() if pid}
            warm_up(env["MNEMEX_GATEWAY_ADDR"], project, warm)
            time.sleep(2)  # let the warm-up's own after-work (deferred writes, flushes) finish
            before = {name: cpu_seconds(pid) for name, pid in pids.items()}
            began = time.perf_counter()
            time.sleep(seconds)
            elapsed = time.perf_counter() - began
            result: dict[str, ProcessIdle] = {}
            for name, pid in pids.items():
                rss, pss = memory_mb(pid)
                result[name] = ProcessIdle(
                    cpu_ms_per_s=(cpu_seconds(pid) - before[name]) * 1000 / elapsed,
                    rss_mb=rss,
                    pss_mb=pss,
                    largest=largest_parts(pid),
                )
            return result
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warm", type=int, default=20, help="get-context requests before the idle window")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.seconds, args.warm)
    total_cpu = sum(r["cpu_ms_per_s"] for r in result.values())
    total_rss = sum(r["rss_mb"] for r in result.values())
    total_pss = sum(r["pss_mb"] for r in result.values())
    if args.json:
        print(json.dumps({"processes": result, "cpu_ms_per_s": total_cpu, "rss_mb": total_rss, "pss_mb": total_pss}))
        return
    print(f"idle stack, {args.seconds:.0f} s after {args.warm} get-context requests")
    print(f"{'process':<12}{'CPU ms/s':>10}{'RSS MB':>10}{'PSS MB':>10}   largest parts of RSS (MB)")
    for name, r in result.items():
        parts = ", ".join(f"{owner} {mb:.0f}" for owner, mb in r["largest"])
        print(f"{name:<12}{r['cpu_ms_per_s']:>10.2f}{r['rss_mb']:>10.0f}{r['pss_mb']:>10.0f}   {parts}")
    print(f"{'total':<12}{total_cpu:>10.2f}{total_rss:>10.0f}{total_pss:>10.0f}")

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    print(
        f"targets: CPU <= {CPU_TARGET_MS_PER_S:.0f} ms/s ({verdict(total_cpu <= CPU_TARGET_MS_PER_S)}); "
        f"memory <= {RSS_TARGET_MB:.0f} MB: summed RSS {verdict(total_rss <= RSS_TARGET_MB)} "
        f"(counts shared libraries once per process), PSS {verdict(total_pss <= RSS_TARGET_MB)}"
    )


if __name__ == "__main__":
    main()
