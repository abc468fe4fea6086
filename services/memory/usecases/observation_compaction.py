"""Use case: fold a scope's low-importance tool observations into one summary per session.

The rules are ``domain.observation_rules`` (which observations, what the summary
says); this writes them: each summary is stored (embedded like any memory)
before its sources are removed, under the working collection's write lock and
each source's uid lock, so a crash in between leaves a duplicate, never a loss.
Run by the maintenance sweep (``Maintenance.sweep_scope``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from services.memory.domain import observation_rules as rules
from services.memory.domain.lifecycle import LifecycleConfig
from services.memory.domain.naming import WORKING, Scope, memory_id, new_uid, split_id
from services.memory.domain.record import MemoryRecord
from services.memory.domain.write_rules import new_record
from services.memory.usecases.content_writes import ContentWrites


class ObservationCompaction:
    def __init__(self, writes: ContentWrites, *, lifecycle: LifecycleConfig, max_content_chars: int) -> None:
        self._store, self._vectors, self._locks, self._clock = writes.store, writes.vectors, writes.locks, writes.clock
        self._lifecycle = lifecycle
        self._max_chars = max_content_chars

    async def compact(self, scope: Scope) -> int:
        """Compact the scope's eligible observations; returns how many were folded into summaries."""
        now = self._clock()
        config = self._lifecycle
        sessions: dict[str, list[MemoryRecord]] = {}
        for record in await self._store.scan(scope, WORKING, where={"type": rules.OBSERVATION}):
            if rules.compactable(
                record,
                now=now,
                after_hours=config.observation_compact_after_hours,
                below=config.observation_compact_below,
            ):
                sessions.setdefault(record.session_id or "", []).append(record)
        folded = 0
        owner = scope.owner_of(WORKING)
        async with self._locks.hold(f"write:{owner.user}:{owner.project}:{WORKING}"):  # MemoryWrites' lock
            for session_id, records in sessions.items():
                if len(records) < rules.MIN_GROUP:
                    continue
                for summary in rules.summaries(session_id, records, min(self._max_chars, rules.SUMMARY_MAX_CHARS)):
                    folded += await self._write(scope, summary, now)
        return folded

    async def _write(self, scope: Scope, summary: rules.Summary, now: datetime) -> int:
        record = new_record(
            memory_id=memory_id(WORKING, new_uid()),
            collection=WORKING,
            content=summary.text,
            project=scope.project,
            now=now,
            tags=(),
            importance=None,
            confidence=None,
            initial_outcome=None,
            session_id=summary.session_id,
            extra={
                "type": rules.OBSERVATION,
                "kind": rules.SUMMARY_KIND,
                rules.IMPORTANCE_KEY: rules.DEFAULT_IMPORTANCE[rules.SUMMARY_KIND],
                rules.COMPACTED_COUNT: len(summary.sources),
            },
        )
        record = replace(record, created=summary.created)
        embedding = await self._vectors.vector_for(summary.text)
        await self._store.add(scope, [(record, embedding)])
        removed = 0
        for source in summary.sources:
            async with self._locks.hold(split_id(source.id)[1]):
                current = await self._store.locate(scope, source.id)
                if current is None or current.counters.uses > 0 or current.archived:
                    continue  # scored or archived since the scan: keep it as it is
                await self._store.delete(scope, current)
                removed += 1
        return removed
