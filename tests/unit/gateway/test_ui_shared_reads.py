"""How the viewer reads less: a read shared only while in flight, a lookup that reads only the collections its ids name."""

from __future__ import annotations

import asyncio

from gateway.ui.memory_query import collections_of
from gateway.ui.shared_reads import SharedReads


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


def test_a_lookup_reads_only_the_collections_its_ids_name() -> None:
    assert collections_of(["memory_bank_1", "history_2", "history_3"]) == ["history", "memory_bank"]
    assert collections_of(["patterns_9", "legacy-id"]) == []  # an id naming no collection: read them all
