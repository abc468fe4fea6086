"""A live stack (real services + gateway over HTTP) shared by this directory's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.gateway.live_stack import LiveStack, start_live_stack


@pytest.fixture(scope="session")
def live(loop_thread, embedding_addr, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:  # type: ignore[no-untyped-def]
    stack = start_live_stack(loop_thread, embedding_addr, tmp_path_factory.mktemp("gateway-live"))
    yield stack
    stack.close()
