"""The viewer shares a read between callers only while it is in flight."""

from __future__ import annotations

import asyncio

from gateway.ui.data import SharedReads


def test_reads_at_the_same_time_make_one_call_and_a_later_read_makes_its_own() -> None:
    calls: list[str] = []

    async def read() -> str:
        calls.append("read")
        await asyncio.sleep(0.01)
        return f"answer {len(calls)}"

    async def scenario() -> tuple[list[str], str]:
        shared = SharedReads()
        together = await asyncio.gather(*(shared.read(("facts", "u", "p"), read) for _ in range(3)))
        later = await shared.read(("facts", "u", "p"), read)
        return together, later

    together, later = asyncio.run(scenario())
    assert together == ["answer 1"] * 3 and later == "answer 2" and calls == ["read", "read"]
