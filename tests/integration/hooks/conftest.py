"""The live stack for hook tests, and a helper that runs a hook script as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.gateway.live_stack import LiveStack, start_live_stack

HOOKS = Path(__file__).resolve().parents[3] / "hooks"


@pytest.fixture(scope="session")
def live(loop_thread, embedding_addr, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:  # type: ignore[no-untyped-def]
    stack = start_live_stack(loop_thread, embedding_addr, tmp_path_factory.mktemp("hooks-live"))
    yield stack
    stack.close()


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


@pytest.fixture
def hook(live: LiveStack, isolated_home: Path) -> HookRunner:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "MNEMEX_HOME": str(isolated_home),
        "MNEMEX_HOOK_TIMEOUT": "15",
        **live.hook_env(),
    }
    return HookRunner(env)
