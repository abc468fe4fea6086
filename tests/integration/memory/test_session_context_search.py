"""Session context through the memory service's search (real in-memory Chroma, synthetic vectors).

The scene: in one session the user asked about the deploy freeze (the question turn
matches the query), and the next turn holds the answer in words the query does not
share. A stray memory from another session is a little closer to the query than the
answer on its own. Session context lifts the answer above the stray one; with the
weights at zero the order is the plain cosine order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from services.memory.domain.arrays import Vector
from services.memory.domain.search_params import build_search_params
from services.memory.retrieval.hybrid import RetrievalSettings
from tests.support.memory_core import make_core, unit


def frozen_at(moment: datetime) -> Callable[[], datetime]:
    """A clock source that always reads ``moment``."""
    return lambda: moment


def vectors() -> tuple[Vector, Vector, Vector, Vector]:
    rng = np.random.default_rng(11)
    query = rng.standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    noise = [rng.standard_normal(384).astype(np.float32) for _ in range(3)]
    noise = [n - (n @ query) * query for n in noise]  # orthogonal to the query
    noise = [n / np.linalg.norm(n) for n in noise]
    question = 0.9 * query + np.sqrt(1 - 0.81) * noise[0]  # cosine 0.9
    answer = 0.35 * query + np.sqrt(1 - 0.35**2) * noise[1]  # cosine 0.35
    stray = 0.45 * query + np.sqrt(1 - 0.45**2) * noise[2]  # cosine 0.45
    return query, question, answer, stray


async def ranked_ids(tmp_path: Path, env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    core = make_core(tmp_path, retrieval=RetrievalSettings.from_env(env))
    scope = core.scope("u", "p")
    query, question, answer, stray = vectors()
    start = core.clock.source()
    names: dict[str, str] = {}
    rows = [
        ("question", "why is the deploy freeze on this week", question, "s-1", 0),
        ("answer", "because the payment provider migrates its api on thursday", answer, "s-1", 1),
        ("stray", "notes on the linter configuration", stray, "s-2", 2),
    ]
    try:
        for name, text, vector, session, minute in rows:
            core.clock.source = frozen_at(start + timedelta(minutes=minute))
            memory = (
                await core.writes.store(
                    scope, collection="history", content=text, vector=unit(vector), session_id=session
                )
            ).memory
            names[memory.id] = name
    finally:
        core.clock.source = lambda: start
    found = await core.searcher.search(
        scope, build_search_params(query="zzz unmatched words", has_vector=True, limit=3), unit(query)
    )
    await core.close()
    return [names[m.id] for m in found], names


def test_the_answer_turn_rises_with_its_question_turn(tmp_path: Path) -> None:
    order, _ = asyncio.run(ranked_ids(tmp_path / "on", {}))
    assert order == ["question", "answer", "stray"]


def test_without_session_context_cosine_decides(tmp_path: Path) -> None:
    off = {"MNEMEX_RETRIEVAL_NEIGHBOUR_WEIGHT": "0", "MNEMEX_RETRIEVAL_SESSION_WEIGHT": "0"}
    order, _ = asyncio.run(ranked_ids(tmp_path / "off", off))
    assert order == ["question", "stray", "answer"]


def test_archiving_the_question_turn_takes_the_lift_away(tmp_path: Path) -> None:
    async def main() -> list[str]:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        query, question, answer, stray = vectors()
        ids = {}
        for name, vector, session in (
            ("question", question, "s-1"),
            ("answer", answer, "s-1"),
            ("stray", stray, "s-2"),
        ):
            memory = (
                await core.writes.store(
                    scope, collection="history", content=f"{name} turn", vector=unit(vector), session_id=session
                )
            ).memory
            ids[memory.id] = name
        question_id = next(i for i, n in ids.items() if n == "question")
        await core.writes.archive(scope, question_id, "wrong")
        found = await core.searcher.search(
            scope, build_search_params(query="zzz unmatched", has_vector=True, limit=3), unit(query)
        )
        await core.close()
        return [ids[m.id] for m in found]

    assert asyncio.run(main()) == ["stray", "answer"]
