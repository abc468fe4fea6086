"""Fixtures shared by the reliability tests: stacks, MCP clients, hook environments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.reliability import inproc
from tests.support.loop_thread import LoopThread

if TYPE_CHECKING:
    from tests.support.stack import Stack


@pytest.fixture(scope="module")
def stack(
    loop_thread: LoopThread, embedding_addr: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[inproc.InprocStack]:
    """An in-process stack (memory, kg, a gateway per user) for one test module."""
    started = inproc.start(
        loop_thread, embedding_addr, tmp_path_factory.mktemp("rel-home"), users=("tester", "mallory")
    )
    yield started
    started.stop()


@pytest.fixture(scope="package")
def procs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The four real processes on free loopback ports, shared by the fault, durability and access tests.

    Tests that kill a process restart it before they return, so the next test finds a healthy stack.
    """
    from tests.support.procstack import start_stack

    started = start_stack(tmp_path_factory.mktemp("rel-procs"))
    yield started
    started.stop()
