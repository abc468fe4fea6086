"""Shared fixtures: an isolated MNEMEX_HOME, offline env, the real model once; markers by directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kernel import offline
from tests.support import suites
from tests.support.loop_thread import LoopThread

if TYPE_CHECKING:
    from services.embedding.model import Encoder

offline.apply()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data dir; nothing touches the real user's."""
    home = tmp_path / "mnemex-home"
    home.mkdir()
    monkeypatch.setenv("MNEMEX_HOME", str(home))
    monkeypatch.setenv("MNEMEX_USER", "tester")
    for key in ("MNEMEX_TOKEN", "MNEMEX_CHROMA_URL"):
        monkeypatch.delenv(key, raising=False)
    return home


@pytest.fixture(scope="session")
def encoder() -> Encoder:
    """The real all-MiniLM-L6-v2, loaded once per test session, at the precision the services use
    (MNEMEX_EMBEDDING_PRECISION, int8 by default): `MNEMEX_EMBEDDING_PRECISION=fp32 make test` runs
    the whole suite on the exact encoder."""
    from services.embedding.model import load_encoder

    return load_encoder(precision=os.environ.get("MNEMEX_EMBEDDING_PRECISION", "int8").strip().lower() or "int8")


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    yield lt
    lt.close()


@pytest.fixture(scope="session")
def embedding_addr(encoder: Encoder, loop_thread: LoopThread) -> Iterator[str]:
    """A real embedding gRPC server on 127.0.0.1:<ephemeral>, shared by the session."""
    from services.embedding.embedding_servicer import create_server
    from services.embedding.settings import EmbeddingSettings

    settings = EmbeddingSettings(address="127.0.0.1:0", model_path=None, device="cpu", backend="auto")
    running = loop_thread.run(create_server(settings, encoder=encoder))
    yield f"127.0.0.1:{running.port}"
    loop_thread.run(running.stop(0))


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("MNEMEX_TEST", "1")


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by `-m`
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test by its directory (tests/support/suites.py), so `-m unit` selects exactly tests/unit.

    A test module outside the known parts, or a unit test that starts a service, stops the run."""
    wrong: list[str] = []
    for item in items:
        problem = suites.misplaced(item.path, getattr(item, "fixturenames", ()))
        if problem is not None:
            wrong.append(problem)
            continue
        for name in suites.markers_for(item.path):
            item.add_marker(name)
    if wrong:
        raise pytest.UsageError("tests in the wrong part of the suite:\n" + "\n".join(sorted(set(wrong))))
