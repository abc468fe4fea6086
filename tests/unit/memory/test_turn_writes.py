"""TurnWrites: deferred session writes run at once, settle waits for the right ones, failures stay contained."""

from __future__ import annotations

import asyncio
import logging

import pytest

from services.memory.usecases.turn_write_queue import TurnWrites


async def _write(done: list[str], name: str, delay: float) -> None:
    await asyncio.sleep(delay)
    done.append(name)


def test_settle_waits_for_every_write_handed_over_before_it() -> None:
    async def scenario() -> list[str]:
        writes = TurnWrites()
        done: list[str] = []
        writes.defer("p", "s1", _write(done, "slow", 0.05))
        writes.defer("p", "s1", _write(done, "fast", 0.0))
        assert writes.pending == 2
        await writes.settle("p", "s1")
        assert writes.pending == 0
        return done

    assert sorted(asyncio.run(scenario())) == ["fast", "slow"]


def test_a_session_does_not_wait_for_other_sessions_or_projects() -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        writes = TurnWrites()
        done: list[str] = []
        writes.defer("p", "other", _write(done, "other session", 0.2))
        writes.defer("q", "s1", _write(done, "other project", 0.2))
        writes.defer("p", "s1", _write(done, "mine", 0.0))
        await writes.settle("p", "s1")
        seen = list(done)
        await writes.settle()  # no scope: everything (shutdown)
        return seen, done

    seen, everything = asyncio.run(scenario())
    assert seen == ["mine"]
    assert sorted(everything) == ["mine", "other project", "other session"]


def test_an_empty_session_id_is_ordered_against_every_session_of_its_scope() -> None:
    """An empty id means the scope's latest session, which may be any of them."""

    async def scenario() -> tuple[list[str], list[str]]:
        writes = TurnWrites()
        first: list[str] = []
        writes.defer("p", "s1", _write(first, "s1", 0.05))
        await writes.settle("p", "")
        second: list[str] = []
        writes.defer("p", "", _write(second, "latest", 0.05))
        await writes.settle("p", "s2")
        return first, second

    first, second = asyncio.run(scenario())
    assert first == ["s1"] and second == ["latest"]


def test_a_failing_write_is_logged_and_does_not_break_settle(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        writes = TurnWrites()

        async def broken() -> None:
            raise OSError("disk full")

        writes.defer("p", "s1", broken())
        await writes.settle("p", "s1")  # must not raise

    with caplog.at_level(logging.ERROR, logger="mnemex.memory.turns"):
        asyncio.run(scenario())
    assert "recording an injection after the reply failed" in caplog.text
    assert "disk full" in caplog.text
