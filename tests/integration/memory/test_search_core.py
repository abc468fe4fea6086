"""The search pipeline in-process (MemoryUseCases + real in-memory Chroma), with synthetic vectors.

Properties the gRPC tests cannot reach cheaply: early stopping never changes
results, mirrors stay in step with every write, dense-only mode works.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from services.memory.composition import MemoryUseCases
from services.memory.domain.arrays import Vector
from services.memory.domain.outcomes import Outcome
from services.memory.domain.search_params import build_search_params
from tests.support.memory_core import make_core, unit


def frozen_at(moment: datetime) -> Callable[[], datetime]:
    """A clock source that always reads ``moment``."""
    return lambda: moment


RNG = np.random.default_rng(5)
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "kafka",
    "redis",
    "deploy",
    "rollback",
    "cache",
    "auth",
    "token",
    "retry",
    "schema",
    "migration",
    "lint",
]


async def seed(core: MemoryUseCases, n: int) -> tuple[list[str], Vector]:
    """``n`` memories created over the last 120 days; a third of them scored since, at random
    times, so recency (which decays from the last scored use) differs from age by creation."""
    scope = core.scope("u", "p")
    base = RNG.standard_normal((n, 384)).astype(np.float32)
    ids: list[str] = []
    collections = ["working", "history", "patterns", "memory_bank", "books"]
    real_clock = core.clock.source
    start = real_clock()
    created_days_ago = RNG.uniform(0, 120, n)
    try:
        for i in range(n):
            text = " ".join(RNG.choice(WORDS, 6)) + f" item{i}" + (" yesterday" if i % 4 == 0 else "")
            core.clock.source = frozen_at(start - timedelta(days=float(created_days_ago[i])))
            memory = (
                await core.writes.store(
                    scope,
                    collection=collections[i % 5],
                    content=text,
                    vector=unit(base[i]),
                    allow_duplicate=True,
                    # conversation memories belong to sessions, so session context joins the ranking
                    session_id=f"session-{i % 9}" if collections[i % 5] in ("working", "history") else "",
                )
            ).memory
            ids.append(memory.id)
        for i, memory_id in enumerate(ids[: n // 3]):  # give some memories outcome history
            used_days_ago = float(RNG.uniform(0, created_days_ago[i]))
            core.clock.source = frozen_at(start - timedelta(days=used_days_ago))
            await core.scoring.score(
                scope,
                session_id="",
                outcome=None,
                related=None,
                memory_scores={memory_id: Outcome.WORKED if RNG.random() < 0.6 else Outcome.FAILED},
            )
    finally:
        core.clock.source = lambda: start
    return ids, base


@pytest.mark.parametrize("mode", ["hybrid", "dense"])
def test_the_prompt_path_ranks_like_the_generic_path(tmp_path: Path, mode: str) -> None:
    """The prompt path (columns, estimates, early stop) against the generic path, which ranks
    every candidate: a filter that matches everything sends the same search down the latter.

    400 memories put 80 in each collection, so the dense top N, the lexical extras cut and
    the early stop all bite; collection weights, boost ids and archived rows join in."""

    async def main() -> None:
        core = make_core(tmp_path, mode=mode)
        scope = core.scope("u", "p")
        ids, base = await seed(core, 400)
        for memory_id in ids[5:40:7]:
            await core.writes.archive(scope, memory_id, "stale")
        everything = json.dumps({"collection": {"$in": ["working", "history", "patterns", "memory_bank", "books"]}})
        for i in range(24):
            query = " ".join(RNG.choice(WORDS, 3))
            if i % 2:  # a temporal query: the time cue enters relevance and the estimates
                query = f"when did we {query} last week?"
            vector = unit(base[i] + 0.8 * RNG.standard_normal(384).astype(np.float32))
            weights = {"history": 1.4, "books": 0.3} if i % 3 == 0 else {}
            boosts = [ids[int(j)] for j in RNG.choice(len(ids), 3, replace=False)] if i % 4 == 0 else []
            for limit in (1, 5, 12):
                params = partial(
                    build_search_params,
                    query=query,
                    has_vector=True,
                    limit=limit,
                    collection_weights=weights,
                    boost_ids=boosts,
                )
                fast = await core.searcher.search(scope, params(), vector)
                full = await core.searcher.search(scope, params(filters_json=everything), vector)
                assert [m.id for m in fast] == [m.id for m in full]
                assert [m.final_rank_score for m in fast] == pytest.approx([m.final_rank_score for m in full])
                assert [m.embedding_similarity for m in fast] == pytest.approx(
                    [m.embedding_similarity for m in full], abs=1e-5
                )
        await core.close()

    asyncio.run(main())


def test_mirrors_follow_every_write(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        ids, base = await seed(core, 30)
        probe = build_search_params(query="", has_vector=True, limit=100)
        assert {m.id for m in await core.searcher.search(scope, probe, unit(base[0]))} >= set(
            ids[10:]
        )  # deleted ones may be gone
        target = ids[-1]
        await core.writes.update(
            scope,
            target,
            content="completely new words about zebras",
            tags=(),
            replace_tags=False,
            importance=None,
            confidence=None,
        )
        hit = await core.searcher.search(
            scope, build_search_params(query="zebras", limit=1)
        )  # embedded like the update
        assert hit[0].id == target and hit[0].content.startswith("completely new")
        assert hit[0].embedding_similarity is not None and hit[0].embedding_similarity < 1.0
        await core.writes.archive(scope, target, "stale")
        after = await core.searcher.search(
            scope, build_search_params(query="zebras", has_vector=True, limit=5), unit(base[-1])
        )
        assert target not in [m.id for m in after]
        # rebuilding the mirrors from the store gives the same answers as the incrementally kept ones
        warm = [m.id for m in await core.searcher.search(scope, build_search_params(days_back=1, limit=100))]
        core.store.mirrors = core.store.fresh_mirrors()
        cold = [m.id for m in await core.searcher.search(scope, build_search_params(days_back=1, limit=100))]
        assert warm == cold
        await core.close()

    asyncio.run(main())


def test_dense_mode_has_no_lexical_side(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path, mode="dense")
        scope = core.scope("u", "p")
        _, base = await seed(core, 20)
        found = await core.searcher.search(
            scope, build_search_params(query="kafka", has_vector=True, limit=3), unit(base[3])
        )
        assert found[0].embedding_similarity == pytest.approx(1.0, abs=1e-4)
        assert not core.texts.lexical  # no BM25 index is kept for any mirror
        await core.close()

    asyncio.run(main())


def test_a_temporal_query_lifts_the_memory_that_mentions_time(tmp_path: Path) -> None:
    """The time cue decides between two memories that are otherwise equal (same vector, no
    keyword hits), at every limit, early stopping included."""

    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        vector = unit(RNG.standard_normal(384).astype(np.float32))
        plain = (
            await core.writes.store(
                scope, collection="history", content="the cache flush ran", vector=vector, allow_duplicate=True
            )
        ).memory
        dated = (
            await core.writes.store(
                scope,
                collection="history",
                content="the cache flush ran yesterday",
                vector=vector,
                allow_duplicate=True,
            )
        ).memory
        for limit in (1, 2):
            temporal = await core.searcher.search(
                scope, build_search_params(query="what happened last week?", has_vector=True, limit=limit), vector
            )
            assert temporal[0].id == dated.id
        both = await core.searcher.search(
            scope, build_search_params(query="what happened last week?", has_vector=True, limit=2), vector
        )
        first, second = both[0].final_rank_score, both[1].final_rank_score
        assert first is not None and second is not None  # a search ranked both
        assert first > second and both[1].id == plain.id
        neutral = await core.searcher.search(
            scope, build_search_params(query="what happened there?", has_vector=True, limit=2), vector
        )
        assert neutral[0].final_rank_score == pytest.approx(neutral[1].final_rank_score)
        await core.close()

    asyncio.run(main())
