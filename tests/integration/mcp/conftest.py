"""A real mnemex stack for the MCP tests (tests/support/mcp_stack.py), and a project per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.loop_thread import LoopThread
from tests.support.mcp_stack import McpStack, running_mcp_stack


@pytest.fixture(scope="session")
def mcp_stack(
    embedding_addr: str, loop_thread: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[McpStack]:
    with running_mcp_stack(embedding_addr, loop_thread, tmp_path_factory.mktemp("mcp-stack-home")) as stack:
        yield stack


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh project directory (its own git root), so each test has its own scope."""
    directory = tmp_path / "project"
    (directory / ".git").mkdir(parents=True)
    return directory
