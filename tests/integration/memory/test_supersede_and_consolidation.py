"""Supersede on conflict and consolidation, in-process (MemoryUseCases + real in-memory Chroma).

Vectors are given where similarity matters (the hash embedder makes unrelated texts near-orthogonal).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from services.memory.composition import MemoryUseCases
from services.memory.domain.arrays import Vector
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.outcomes import Outcome
from tests.support.memory_core import make_core, unit

RNG = np.random.default_rng(17)


def near(base: Vector, noise: float) -> bytes:
    return unit(base + noise * RNG.standard_normal(384).astype(np.float32))


async def fact(core: MemoryUseCases, text: str, vector: bytes = b"") -> tuple[str, tuple[str, ...]]:
    result = await core.writes.store(core.scope("u", "p"), collection="memory_bank", content=text, vector=vector)
    return result.memory.id, result.superseded


def test_a_newer_value_supersedes_the_older_fact_which_is_archived_not_deleted(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        old, _ = await fact(core, "The staging database port is 5432")
        other, _ = await fact(core, "The production database port is 5433")
        new, superseded = await fact(core, "The staging database port is 6543.")
        assert superseded == (old,)
        before = await core.reads.get(scope, old)
        assert before.archived and before.metadata["superseded_by"] == new
        assert "superseded by " + new in str(before.metadata["archived_reason"])
        assert (await core.reads.get(scope, new)).metadata["supersedes"] == old
        assert not (await core.reads.get(scope, other)).archived  # another entity
        # undo with the newer fact's id restores the older one; the newer stays
        undo = await core.consolidation.undo(scope, new)
        assert [m.id for m in undo.restored] == [old] and not undo.merged.archived
        assert not (await core.reads.get(scope, old)).archived
        await core.close()

    asyncio.run(main())


def test_a_conflicting_near_duplicate_is_not_overwritten_in_place(tmp_path: Path) -> None:
    """Cosine >= 0.95 would refresh the old fact with the new wording; a changed value supersedes it instead."""

    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        base = RNG.standard_normal(384).astype(np.float32)
        old, _ = await fact(core, "The billing API uses Postgres 14", unit(base))
        new, superseded = await fact(core, "The billing API uses Postgres 16", unit(base))
        assert new != old and superseded == (old,)
        assert (await core.reads.get(scope, old)).content == "The billing API uses Postgres 14"
        same, superseded = await fact(core, "The billing API uses Postgres 16.", unit(base))
        assert same == new and superseded == ()  # the same value: an ordinary near-duplicate refresh
        await core.close()

    asyncio.run(main())


def test_possible_conflicts_are_left_to_the_assistant(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        vim, _ = await fact(core, "The user uses vim")
        python, superseded = await fact(core, "The user uses Python")
        assert superseded == ()
        clusters, scanned = await core.consolidation.candidates(scope, ["contradiction"], 0)
        assert scanned == 2
        assert [sorted(m.id for m in c.memories) for c in clusters] == [sorted([vim, python])]
        assert "possibly contradictory" in clusters[0].reason
        await core.close()

    asyncio.run(main())


def test_candidates_duplicates_failed_pairs_and_stale(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        start = core.clock.source()
        core.clock.source = lambda: start - timedelta(days=90)
        stale = (await core.writes.store(scope, collection="history", content="Old deploy notes")).memory.id
        core.clock.source = lambda: start
        base, other = (RNG.standard_normal(384).astype(np.float32) for _ in range(2))
        ids = []
        for i in range(3):
            stored = await core.writes.store(
                scope, collection="working", content=f"Run the linter before pushing ({i})", vector=near(base, 0.3)
            )
            ids.append(stored.memory.id)
        good = (
            await core.writes.store(scope, collection="patterns", content="Retry A", vector=near(other, 0.3))
        ).memory
        bad = (await core.writes.store(scope, collection="working", content="Retry B", vector=near(other, 0.3))).memory
        await core.scoring.score(
            scope, session_id="", outcome=None, related=None, memory_scores={bad.id: Outcome.FAILED}
        )

        duplicates, _ = await core.consolidation.candidates(scope, ["duplicate"], 5)
        groups = {tuple(sorted(m.id for m in c.memories)): c for c in duplicates}
        assert tuple(sorted(ids)) in groups  # three wordings of one lesson (0.85 <= cosine < 0.95)
        assert tuple(sorted([good.id, bad.id])) in groups
        assert all(c.similarity is not None and 0.85 <= c.similarity < 0.95 for c in duplicates)
        contradictions, _ = await core.consolidation.candidates(scope, ["contradiction"], 5)
        assert [[m.id for m in c.memories] for c in contradictions] == [[good.id, bad.id]]
        stales, _ = await core.consolidation.candidates(scope, ["stale"], 5)
        assert [c.memories[0].id for c in stales] == [stale] and "90 days" in stales[0].reason
        everything, _ = await core.consolidation.candidates(scope, [], 2)
        assert len(everything) == 2  # bounded
        with pytest.raises(InvalidRequest, match="unknown candidate kind"):
            await core.consolidation.candidates(scope, ["weird"], 5)
        await core.close()

    asyncio.run(main())


def test_consolidate_archives_the_sources_and_undo_restores_them(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        first = (await core.writes.store(scope, collection="history", content="Use pytest -x for quick runs")).memory
        await core.scoring.score(
            scope, session_id="", outcome=None, related=None, memory_scores={first.id: Outcome.WORKED}
        )
        second = (await core.writes.store(scope, collection="working", content="pytest -x stops early")).memory
        merge = await core.consolidation.consolidate(
            scope,
            source_ids=[first.id, second.id],
            content="Run pytest -x: it stops at the first failure",
            reason="dup",
        )
        merged = merge.merged
        assert merged.collection == "history"  # the highest tier among the sources
        assert merged.metadata["consolidated_from"] == f"{first.id},{second.id}"
        assert merged.uses == 1 and merged.score > 0.5  # the best source's evidence carries over
        assert sorted(m.id for m in merge.archived) == sorted([first.id, second.id])
        for source in (first.id, second.id):
            stored = await core.reads.get(scope, source)
            assert stored.archived and stored.metadata["superseded_by"] == merged.id
        with pytest.raises(InvalidRequest, match="already archived"):
            await core.consolidation.consolidate(scope, source_ids=[first.id], content="again")

        undo = await core.consolidation.undo(scope, merged.id)
        assert sorted(m.id for m in undo.restored) == sorted([first.id, second.id])
        assert undo.merged.archived and undo.merged.metadata["archived_reason"] == "consolidation undone"
        for source in (first.id, second.id):
            assert not (await core.reads.get(scope, source)).archived
        with pytest.raises(InvalidRequest, match="already undone"):
            await core.consolidation.undo(scope, merged.id)
        with pytest.raises(InvalidRequest, match="neither merges nor supersedes"):
            await core.consolidation.undo(scope, first.id)
        await core.close()

    asyncio.run(main())
