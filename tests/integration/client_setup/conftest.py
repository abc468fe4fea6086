"""The MCP tests' stack (tests/support/mcp_stack.py), for the OpenCode plugin's runtime test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.loop_thread import LoopThread
from tests.support.mcp_stack import McpStack, running_mcp_stack


@pytest.fixture(scope="session")
def mcp_stack(
    embedding_addr: str, loop_thread: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[McpStack]:
    with running_mcp_stack(embedding_addr, loop_thread, tmp_path_factory.mktemp("mcp-stack-home")) as stack:
        yield stack
