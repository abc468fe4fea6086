"""Run the real CLI/supervisor as subprocesses against a temporary home and free ports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from kernel.json_values import JSONObject, parse_value
from tests.support.json_read import json_object

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stack_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MNEMEX_HOME=str(home),
        MNEMEX_USER="tester",
        MNEMEX_GATEWAY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_EMBEDDING_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_MEMORY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_KG_ADDR=f"127.0.0.1:{free_port()}",
        PYTHONUNBUFFERED="1",
        COLUMNS="200",
    )
    env.pop("MNEMEX_TOKEN", None)
    return env


def cli(env: dict[str, str], *args: str, timeout: float = 180.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def state(home: Path) -> JSONObject:
    """The supervisor's state file ({} before it is written)."""
    try:
        saved = parse_value((home / "run" / "state.json").read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def service_state(home: Path, name: str) -> JSONObject:
    """The state file's entry for the service ``name``; AssertionError when it has none."""
    return json_object(state(home), "services", name)


def wait_for(predicate: Callable[[], T | None], timeout: float, what: str, interval: float = 0.1) -> T:
    """The first truthy value ``predicate`` returns; TimeoutError after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie counts as gone
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


def log_tails(home: Path) -> str:
    parts = []
    for log in sorted((home / "logs").glob("*.log")):
        parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-2000:]}")
    return "\n".join(parts)
