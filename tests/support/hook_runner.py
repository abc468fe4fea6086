"""Runs a hook script (hooks/*.py) as a process, the way a client does, and times it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HOOKS = Path(__file__).resolve().parents[2] / "hooks"


@dataclass
class HookRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    raw_stdout: bytes = b""


@dataclass
class HookRunner:
    env: dict[str, str]

    def __call__(
        self, script: str, payload: dict[str, object] | bytes, *args: str, env: dict[str, str] | None = None
    ) -> HookRun:
        stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-S", str(HOOKS / script), *args],
            input=stdin,
            env={**self.env, **(env or {})},
            capture_output=True,
            timeout=30,
        )
        return HookRun(
            result.returncode,
            result.stdout.decode("utf-8", errors="replace"),
            result.stderr.decode("utf-8", errors="replace"),
            time.monotonic() - started,
            result.stdout,
        )
