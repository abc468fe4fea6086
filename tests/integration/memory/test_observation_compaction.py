"""Observations get their kind's importance when stored; the sweep compacts the unimportant ones per session."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from services.memory.composition import MemoryUseCases
from services.memory.domain.naming import Scope
from tests.support.memory_core import make_core


def frozen_at(moment: datetime) -> Callable[[], datetime]:
    """A clock source that always reads ``moment``."""
    return lambda: moment


async def observe(core: MemoryUseCases, scope: Scope, text: str, kind: str, session: str) -> str:
    metadata = json.dumps({"type": "observation", "kind": kind, "files": ""})
    result = await core.writes.store(
        scope, collection="working", content=text, metadata_json=metadata, session_id=session, allow_duplicate=True
    )
    return result.memory.id


def test_low_importance_observations_are_compacted_per_session(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path)
        scope = core.scope("u", "p")
        start = core.clock.source()
        low = []
        for minutes, text, kind in (
            (190, "Ran ls", "command"),
            (185, "Fetched docs.python.org", "discovery"),
            (180, "Ran ls", "command"),
        ):
            core.clock.source = frozen_at(start - timedelta(minutes=minutes))
            low.append(await observe(core, scope, text, kind, "s1"))
        kept = [
            await observe(core, scope, "Edited gateway/app.py", "change", "s1"),  # importance 0.6
            await observe(core, scope, "Ran pytest: 1 failed", "command", "s1"),  # a failure: 0.6
            await observe(core, scope, "Used Foo", "other", "s2"),  # alone in its session
        ]
        stored = await core.reads.get(scope, kept[0])
        assert stored.metadata["observation_importance"] == 0.6
        assert (await core.reads.get(scope, low[0])).metadata["observation_importance"] == 0.4
        core.clock.source = lambda: start - timedelta(minutes=30)
        recent = await observe(core, scope, "Ran ls -la", "command", "s1")  # younger than the 2 h TTL
        core.clock.source = lambda: start

        report = await core.maintenance.sweep_scope(scope)
        assert report.observations_compacted == 3
        working = await core.store.scan(scope, "working")
        by_id = {r.id: r for r in working}
        assert not set(low) & set(by_id)
        assert set(kept) | {recent} <= set(by_id)
        [summary] = [r for r in working if r.kind == "summary"]
        assert summary.session_id == "s1" and summary.extra["compacted_count"] == 3
        assert "Ran ls (x2); Fetched docs.python.org" in summary.content
        newest = (start - timedelta(minutes=180)).replace(microsecond=0)
        assert summary.created == newest  # it expires when its newest source would have
        again = await core.maintenance.sweep_scope(scope)
        assert again.observations_compacted == 0  # summaries are never compacted again
        await core.close()

    asyncio.run(main())
