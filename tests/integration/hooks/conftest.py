"""The live stack for hook tests, and a runner (tests/support/hook_runner.py) pointed at it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.gateway.live_stack import LiveStack, start_live_stack
from tests.support.hook_runner import HookRunner
from tests.support.loop_thread import LoopThread


@pytest.fixture(scope="session")
def live(loop_thread: LoopThread, embedding_addr: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    stack = start_live_stack(loop_thread, embedding_addr, tmp_path_factory.mktemp("hooks-live"))
    yield stack
    stack.close()


@pytest.fixture
def hook(live: LiveStack, isolated_home: Path) -> HookRunner:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "MNEMEX_HOME": str(isolated_home),
        "MNEMEX_HOOK_TIMEOUT": "15",
        **live.hook_env(),
    }
    return HookRunner(env)
