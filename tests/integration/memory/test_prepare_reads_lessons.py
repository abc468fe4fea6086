"""PrepareContext reads the lessons a prompt names itself: the transport only passes their ids.

In-process (the composition root over an in-memory Chroma): the use case returns the
lessons beside the results, collapses a result that repeats one, and records them as
injected with the turn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from services.memory.domain.arrays import Vector
from services.memory.domain.search_params import build_search_params
from tests.support.memory_core import make_core, unit


def test_the_use_case_reads_and_records_the_named_lessons(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        rng = np.random.default_rng(7)
        vectors = [rng.standard_normal(384).astype(np.float32) for _ in range(4)]

        async def store(content: str, collection: str, vector: Vector) -> str:
            result = await core.writes.store(scope, collection=collection, content=content, vector=unit(vector))
            return result.memory.id

        lesson = await store("Lesson: pin the random seed in flaky tests", "patterns", vectors[0])
        other = await store("Lesson: never retry a flaky test silently", "patterns", vectors[1])
        note = await store("The billing suite was fixed by freezing the clock", "working", vectors[2])
        params = build_search_params(query="flaky tests", has_vector=True, limit=5, collections=["working"])
        prepared = await core.prepare.select(
            scope, "s1", params, unit(vectors[2]), "how do we fix flaky tests?", lesson_ids=[lesson, other]
        )
        assert [m.id for m in prepared.lessons] == [lesson, other]
        assert [m.id for m in prepared.memories] == [note]
        await core.turn_writes.settle(scope, "s1")
        turn = core.turn_store.open_turn(scope, "s1")
        assert turn is not None and set(turn.injected_ids) == {note, lesson, other}
        await core.close()

    asyncio.run(main())
