"""BatchQueue: writes of one key are handed over in batches, one drain at a time, and none is cancelled."""

from __future__ import annotations

import asyncio

import pytest

from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.usecases.batch_queue import BatchQueue


def test_writers_queued_meanwhile_share_the_next_batch_and_get_their_own_results() -> None:
    async def scenario() -> tuple[list[int], list[list[int]]]:
        seen: list[list[int]] = []

        async def process(items: list[int]) -> list[int | BaseException]:
            seen.append(list(items))
            await asyncio.sleep(0.01)  # the store call: others queue up meanwhile
            return [item * 10 for item in items]

        queue: BatchQueue[int, int] = BatchQueue(KeyedLocks(), process)
        results = await asyncio.gather(*(queue.submit("k", n) for n in range(20)))
        return list(results), seen

    results, seen = asyncio.run(scenario())
    assert results == [n * 10 for n in range(20)]
    assert sorted(n for batch in seen for n in batch) == list(range(20))
    assert len(seen) < 20


def test_one_writers_failure_is_its_own() -> None:
    async def scenario() -> list[object]:
        async def process(items: list[int]) -> list[int | BaseException]:
            return [ValueError(f"bad {n}") if n == 3 else n for n in items]

        queue: BatchQueue[int, int] = BatchQueue(KeyedLocks(), process)
        return await asyncio.gather(*(queue.submit("k", n) for n in range(6)), return_exceptions=True)

    results = asyncio.run(scenario())
    assert [r for i, r in enumerate(results) if i != 3] == [0, 1, 2, 4, 5]
    assert isinstance(results[3], ValueError) and str(results[3]) == "bad 3"


def test_a_writer_that_stops_waiting_still_gets_its_write_done() -> None:
    async def scenario() -> list[int]:
        done: list[int] = []
        locks = KeyedLocks()

        async def process(items: list[int]) -> list[int | BaseException]:
            done.extend(items)
            return list(items)

        queue: BatchQueue[int, int] = BatchQueue(locks, process)
        async with locks.hold("k"):  # another writer of the key holds it
            impatient = asyncio.ensure_future(queue.submit("k", 7))
            await asyncio.sleep(0.01)
            impatient.cancel()
            with pytest.raises(asyncio.CancelledError):
                await impatient
        await queue.settle()
        return done

    assert asyncio.run(scenario()) == [7]


def test_keys_do_not_wait_for_each_other() -> None:
    async def scenario() -> list[str]:
        order: list[str] = []
        locks = KeyedLocks()

        async def process(items: list[str]) -> list[str | BaseException]:
            order.extend(items)
            return list(items)

        queue: BatchQueue[str, str] = BatchQueue(locks, process)
        async with locks.hold("busy"):
            held = asyncio.ensure_future(queue.submit("busy", "late"))
            assert await queue.submit("free", "early") == "early"
        await held
        return order

    assert asyncio.run(scenario()) == ["early", "late"]
