"""Recency decays from a memory's last scored use, on both ranking paths.

Two identical memories (same text, same vector, same counters) differ only in
when they were last used and scored; the one used yesterday must rank first,
on the prompt path (mirror columns) and the generic path alike.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from services.memory.domain.outcomes import Outcome
from services.memory.domain.search_params import build_search_params
from tests.support.memory_core import make_core, unit


def frozen_at(moment: datetime) -> Callable[[], datetime]:
    """A clock source that always reads ``moment``."""
    return lambda: moment


EVERYTHING = json.dumps({"collection": {"$in": ["working", "history", "patterns", "memory_bank", "books"]}})


def test_a_fact_used_yesterday_ranks_above_an_identical_one_never_used(tmp_path: Path) -> None:
    """memory_bank facts keep their learned score until 3 uses, so one use changes recency alone."""

    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        start = core.clock.source()
        vector = unit(np.random.default_rng(1).standard_normal(384).astype(np.float32))
        core.clock.source = lambda: start - timedelta(days=60)
        text = "The staging cluster deploys with helm upgrade --atomic"
        ids = [
            (
                await core.writes.store(
                    scope, collection="memory_bank", content=text, vector=vector, allow_duplicate=True
                )
            ).memory.id
            for _ in range(2)
        ]
        used, unused = ids
        core.clock.source = lambda: start - timedelta(days=1)
        await core.scoring.score(scope, session_id="", outcome=None, related=None, memory_scores={used: Outcome.WORKED})
        core.clock.source = lambda: start
        for filters in ("", EVERYTHING):  # the prompt path, then the generic path
            params = build_search_params(
                query="how do we deploy staging", has_vector=True, limit=2, filters_json=filters
            )
            found = await core.searcher.search(scope, params, vector)
            assert [m.id for m in found] == [used, unused]
            assert found[0].learned_score == pytest.approx(found[1].learned_score)
            assert found[0].final_rank_score is not None and found[1].final_rank_score is not None
            assert found[0].final_rank_score > found[1].final_rank_score
        await core.close()

    asyncio.run(main())


def test_same_counters_the_more_recent_use_wins(tmp_path: Path) -> None:
    """Working memories scored 'unknown' once each (same counters): yesterday beats 59 days ago."""

    async def main() -> None:
        core = make_core(tmp_path, mode="dense")
        scope = core.scope("u", "p")
        start = core.clock.source()
        vector = unit(np.random.default_rng(2).standard_normal(384).astype(np.float32))
        core.clock.source = lambda: start - timedelta(days=60)
        text = "Retry the flaky kafka consumer test with a fresh topic"
        first, second = [
            (
                await core.writes.store(scope, collection="working", content=text, vector=vector, allow_duplicate=True)
            ).memory.id
            for _ in range(2)
        ]
        for memory_id, days_ago in ((first, 59), (second, 1)):
            core.clock.source = frozen_at(start - timedelta(days=days_ago))
            await core.scoring.score(
                scope, session_id="", outcome=None, related=None, memory_scores={memory_id: Outcome.UNKNOWN}
            )
        core.clock.source = lambda: start
        for filters in ("", EVERYTHING):
            params = build_search_params(query="kafka test", has_vector=True, limit=2, filters_json=filters)
            found = await core.searcher.search(scope, params, vector)
            assert [m.id for m in found] == [second, first]
            assert (found[0].uses, found[0].score) == (found[1].uses, found[1].score)
        await core.close()

    asyncio.run(main())
