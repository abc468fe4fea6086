"""TurnWrites: deferred session writes run at once, settle waits for them, failures stay contained."""

from __future__ import annotations

import asyncio
import logging

import pytest

from services.memory.turn_writes import TurnWrites


def test_settle_waits_for_every_write_handed_over_before_it() -> None:
    async def scenario() -> list[str]:
        writes = TurnWrites()
        done: list[str] = []

        async def write(name: str, delay: float) -> None:
            await asyncio.sleep(delay)
            done.append(name)

        writes.defer(write("slow", 0.05))
        writes.defer(write("fast", 0.0))
        assert writes.pending == 2
        await writes.settle()
        assert writes.pending == 0
        return done

    assert sorted(asyncio.run(scenario())) == ["fast", "slow"]


def test_a_failing_write_is_logged_and_does_not_break_settle(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        writes = TurnWrites()

        async def broken() -> None:
            raise OSError("disk full")

        writes.defer(broken())
        await writes.settle()  # must not raise

    with caplog.at_level(logging.ERROR, logger="mnemex.memory.turns"):
        asyncio.run(scenario())
    assert "recording an injection after the reply failed" in caplog.text
    assert "disk full" in caplog.text
