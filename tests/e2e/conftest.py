"""One real mnemex stack (four processes on loopback) for the e2e suite, and a user per test
(tests/support/e2e_user.py says what a user is)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.e2e_user import User
from tests.support.stack import Stack, make_stack


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    stack = make_stack(tmp_path_factory.mktemp("e2e-stack"), MNEMEX_HOOK_AUTOSTART="0")
    for name in ("embedding", "memory", "kg", "gateway"):
        stack.start(name)
    try:
        stack.wait_healthy(timeout=120)
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def user(stack: Stack, tmp_path: Path) -> User:
    home = tmp_path / "home"
    project = home / "code" / "shop"
    (project / ".git").mkdir(parents=True)
    (home / "tmp").mkdir()
    return User(home=home, project=project, stack=stack)


os.environ.setdefault("MNEMEX_TEST", "1")
