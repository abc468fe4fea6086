"""The time mnemex adds to one real ``claude -p`` turn, seen from the client's side.

    .venv/bin/python -m bench.bench_real_client [--runs 8] [--memories 1000]

Runs the real Claude Code binary (``tests/e2e/node_modules``, installed by
``scripts/install.sh --dev``) against a loopback fake of the Messages API, in
two homes, alternated A B A B in one run:

  * bare:   a HOME without mnemex;
  * mnemex: a HOME where ``mnemex init --client claude`` ran against a warm stack
            (four processes) holding N memories in the prompt's project.

It prints the median wall time of a turn in each, their difference, and each
mnemex hook's duration as Claude Code itself logs it (``--debug``: "Hooks:
<Event> [...] finished with status 0 (N ms)"), with the time mnemex's MCP
server took to connect, which ``claude -p`` waits for before its first request. A machine-speed line
(a bare ``python -S -c pass`` spawn) is printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench.bench_get_context import ProcessStack, populate
from tests.support.fake_models import AnthropicServer, always
from tests.support.real_clients import CLAUDE_BIN, ClaudeCode

HOOK_LINE = re.compile(r"Hooks: (\w+)(?::\w+)? \[(.+?)\] finished with status (\d+) \((\d+)ms\)")
MCP_LINE = re.compile(r'MCP server "mnemex": Successfully connected \(transport: stdio\) in (\d+)ms')
PROMPT = "How do we deploy the payments service with helm?"


def logged_durations(home: Path) -> dict[str, list[float]]:
    """From Claude Code's newest debug log under ``home``: mnemex's hook durations (ms) per event,
    and the time its MCP server took to connect ("MCP connect")."""
    logs = sorted((home / ".claude" / "debug").glob("*.txt"), key=lambda p: p.stat().st_mtime)
    found: dict[str, list[float]] = defaultdict(list)
    if logs:
        text = logs[-1].read_text(errors="replace")
        for event, command, _status, ms in HOOK_LINE.findall(text):
            if "client/hooks/" in command:
                found[event].append(float(ms))
        found["MCP connect"] = [float(ms) for ms in MCP_LINE.findall(text)]
    return found


def machine_speed(runs: int = 20) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8, help="turns per home (alternated)")
    parser.add_argument("--memories", type=int, default=1000)
    args = parser.parse_args()
    if not CLAUDE_BIN.exists():
        sys.exit(f"{CLAUDE_BIN} is missing: run scripts/install.sh --dev (it needs node and npm)")
    with tempfile.TemporaryDirectory(prefix="mnemex-real-client-") as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".git").mkdir(parents=True)
        stack = ProcessStack.create(root / "data")
        (root / "data").mkdir()
        stack.start()
        try:
            asyncio.run(populate(stack, str(project), args.memories))
            homes = {"bare": root / "bare", "mnemex": root / "user"}
            for home in homes.values():
                (home / "tmp").mkdir(parents=True)
            init = subprocess.run(
                [sys.executable, "-m", "mnemex.cli", "init", "--client", "claude"],
                env={**stack.env, "HOME": str(homes["mnemex"])},
                capture_output=True,
                text=True,
                check=False,
            )
            if init.returncode:
                sys.exit(f"mnemex init failed: {init.stdout}{init.stderr}")
            walls: dict[str, list[float]] = defaultdict(list)
            hooks: dict[str, list[float]] = defaultdict(list)
            with AnthropicServer(always("Use helm upgrade --atomic.")) as server:
                for index in range(args.runs + 1):  # the first round warms both homes and is not counted
                    for name, home in homes.items():
                        client = ClaudeCode(home, server.url)
                        command = [str(CLAUDE_BIN), "-p", PROMPT, "--output-format", "json", "--debug"]
                        started = time.perf_counter()
                        done = subprocess.run(
                            command, env=client.env(), cwd=project, capture_output=True, text=True, check=False
                        )
                        elapsed = (time.perf_counter() - started) * 1000
                        if done.returncode:
                            sys.exit(f"claude failed in {name}: {done.stdout[-500:]}{done.stderr[-500:]}")
                        if index == 0:
                            continue
                        walls[name].append(elapsed)
                        if name == "mnemex":
                            for event, values in logged_durations(home).items():
                                hooks[event].extend(values)
        finally:
            stack.stop()
    bare, mnemex = statistics.median(walls["bare"]), statistics.median(walls["mnemex"])
    print(f"claude -p turn, median of {args.runs} (alternated), {args.memories} memories:")
    print(f"  bare HOME        {bare:8.1f} ms")
    print(f"  with mnemex      {mnemex:8.1f} ms")
    print(f"  added by mnemex  {mnemex - bare:8.1f} ms ({(mnemex / bare - 1) * 100:.1f} %)")
    print("mnemex's parts as Claude Code logs them (median ms, n):")
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "MCP connect"):
        values = hooks.get(event, [])
        shown = f"{statistics.median(values):6.1f} ms (n={len(values)})" if values else "not logged"
        print(f"  {event:17s}{shown}")
    print(f"machine speed: bare `python -S -c pass` spawn {machine_speed():.1f} ms")


if __name__ == "__main__":
    main()
