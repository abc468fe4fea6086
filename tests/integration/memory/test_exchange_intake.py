"""The exchange intake journal in the real memory core (real Chroma, real embeddings).

- A near-duplicate stop refreshes the older memory: its reply and its turn
  name that memory (the journal held it under a fresh id), so the next
  scoring credits the memory that exists.
- A stop acknowledged before its exchange was stored (others were waiting in
  the intake) gets an id under which the exchange is then stored.
- A journal entry whose memory was already stored (a crash between the store
  and the journal's cleanup) is replayed without storing it twice.
"""

from __future__ import annotations

import asyncio
import time
import uuid

from services.memory.domain.naming import WORKING, Scope
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService

FIX = "Fixed the flaky CI job by pinning numpy to 1.26 in requirements/ci.txt"


def _scope() -> Scope:
    return Scope(f"u{uuid.uuid4().hex[:10]}", f"p{uuid.uuid4().hex[:10]}")


def test_a_near_duplicate_stop_answers_and_scores_with_the_memory_it_refreshed(
    memory_service: MemoryService, loop_thread: LoopThread
) -> None:
    """Journaled under a fresh id, refreshed into the older memory: the reply and the turn name that one."""
    memory = memory_service.memory
    scope = _scope()

    async def scenario() -> tuple[str, str, tuple[bool, list[str], str], list[str]]:
        first = await memory.turns.record_exchange(scope, "s-first", "how did we fix CI?", FIX)
        twin = await memory.turns.record_exchange(scope, "s-twin", "how did we fix CI?", FIX + ".")
        state = await memory.turns.scoring_state(scope, "s-twin")
        return first, twin, state, [r.content for r in await memory.store.scan(scope, WORKING)]

    first, twin, (required, _, pointed), stored = loop_thread.run(scenario())
    assert twin == first and required and pointed == first
    assert sum("pinning numpy" in text for text in stored) == 1, stored


def test_a_stop_acknowledged_before_its_store_gets_an_id_that_names_a_memory(
    memory_service: MemoryService, loop_thread: LoopThread
) -> None:
    """Others waiting in the intake: the reply carries the promised id, and a memory is stored under it."""
    memory = memory_service.memory
    scope = _scope()

    async def scenario() -> tuple[str, list[str], str]:
        held = asyncio.Event()
        release = asyncio.Event()

        async def hold() -> None:
            async with memory.locks.hold(f"write:{scope.user}:{scope.project}:{WORKING}"):
                held.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await held.wait()
        filler = asyncio.create_task(
            memory.turns.record_exchange_once(scope, "s-filler", "", "what is the deploy order?", "API, then web.")
        )
        while memory.intake.pending < 1:  # the filler is journaled and waiting for the held collection
            await asyncio.sleep(0.01)
        promised = await memory.turns.record_exchange_once(scope, "s-late", "", "how did we fix CI?", FIX)
        ids_while_held = [r.id for r in await memory.store.scan(scope, WORKING)]
        release.set()
        await holder
        await filler
        state = await memory.turns.scoring_state(scope, "s-late")  # waits for the session's exchange
        found = await memory.reads.get(scope, promised or "")
        return promised or "", ids_while_held, f"{state[2]}|{found.content}"

    promised, ids_while_held, seen = loop_thread.run(scenario())
    assert promised and promised not in ids_while_held  # answered before it was stored
    pointed, content = seen.split("|", 1)
    assert pointed == promised and "pinning numpy" in content


def test_a_replayed_entry_already_stored_is_not_stored_twice(
    memory_service: MemoryService, loop_thread: LoopThread
) -> None:
    memory = memory_service.memory
    scope = _scope()
    answer = "The nightly export job writes to s3://exports/nightly and keeps 14 days."

    async def scenario() -> tuple[int, list[str]]:
        stored_id = await memory.turns.record_exchange(scope, "s-replay", "where does the export go?", answer)
        [record] = [r for r in await memory.store.scan(scope, WORKING) if r.id == stored_id]
        # the journal entry a crash would have left behind after the store call returned
        await memory.io.run(
            memory.turn_store.journal_exchange,
            scope,
            "s-replay",
            "",
            stored_id,
            record.content,
            "where does the export go?",
            answer,
            time.time(),
        )
        replayed = await memory.intake.start()
        await memory.turns.scoring_state(scope, "s-replay")  # waits for the replayed entry
        return replayed, [r.id for r in await memory.store.scan(scope, WORKING)]

    replayed, ids = loop_thread.run(scenario())
    assert replayed >= 1
    assert len(ids) == 1, ids
    assert loop_thread.run(memory.io.run(memory.turn_store.intake_count)) == 0
