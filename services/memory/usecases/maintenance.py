"""Periodic upkeep and reporting: lifecycle sweep, log pruning, stats, scopes.

``sweep_scope`` first compacts the scope's low-importance tool observations
(``observation_compaction``), then evaluates every scored memory of a scope against the
lifecycle (including time-based expiry), repairs a memory left in two
collections by a crash mid-move, and records events. ``prune_logs`` drops
session turn logs older than the exchange TTL (7 days by default).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from kernel.blocking_io import BlockingIO
from services.memory.domain.lifecycle import Action, LifecycleConfig
from services.memory.domain.naming import (
    COLLECTIONS,
    SCORED_COLLECTIONS,
    USER_WIDE_PROJECT,
    Scope,
)
from services.memory.storage.lifecycle_events import LifecycleEvents
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.turns import TurnStore
from services.memory.usecases.lifecycle_moves import LifecycleMoves
from services.memory.usecases.observation_compaction import ObservationCompaction


@dataclass
class SweepReport:
    promoted: int = 0
    demoted: int = 0
    deleted: int = 0
    expired: int = 0
    exchanges_pruned: int = 0
    observations_compacted: int = 0

    def add(self, other: SweepReport) -> None:
        for name in ("promoted", "demoted", "deleted", "expired", "exchanges_pruned", "observations_compacted"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def _dir_bytes(path: Path) -> int:
    total = 0
    if path.is_file():
        return path.stat().st_size
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except OSError:
                continue
    return total


@dataclass
class Stats:
    counts: dict[str, int]
    score_histogram: dict[str, int]
    events: dict[str, int]
    events_by_day_json: str
    data_bytes: int


class Maintenance:
    def __init__(
        self,
        store: MemoryStore,
        turns: TurnStore,
        events: LifecycleEvents,
        io: BlockingIO,
        moves: LifecycleMoves,
        *,
        lifecycle: LifecycleConfig,
        home: Path,
        clock: Callable[[], datetime],
        compaction: ObservationCompaction | None = None,
    ) -> None:
        self._compaction = compaction
        self._store = store
        self._turns = turns
        self._events = events
        self._io = io
        self._moves = moves
        self._lifecycle = lifecycle
        self._home = home
        self._clock = clock

    async def sweep_scope(self, scope: Scope) -> SweepReport:
        report = SweepReport()
        if self._compaction is not None:  # before expiry, so a session's last observations are summarised first
            report.observations_compacted = await self._compaction.compact(scope)
        groups = await asyncio.gather(*(self._store.scan(scope, c, content=False) for c in SCORED_COLLECTIONS))
        records = [record for group in groups for record in group]
        await self._moves.repair_split_moves(scope, records)
        for record in records:
            if record.archived:
                continue
            action = await self._moves.sweep_memory(scope, record)
            if action is not Action.NONE:
                setattr(report, action.value, getattr(report, action.value) + 1)
        return report

    async def prune_logs(self) -> int:
        cutoff = self._clock() - timedelta(days=self._lifecycle.exchange_log_ttl_days)
        return await self._io.run(self._turns.prune, cutoff.timestamp())

    async def project_scopes(self, user: str = "") -> list[Scope]:
        owners = await self._store.owner_scopes()
        scopes = {s for s, _ in owners if s.project != USER_WIDE_PROJECT and (not user or s.user == user)}
        return sorted(scopes, key=lambda s: (s.user, s.project))

    async def run(self, scope: Scope | None) -> SweepReport:
        """Sweep one scope, or every scope when ``scope`` is None; then prune logs."""
        report = SweepReport()
        for item in [scope] if scope is not None else await self.project_scopes():
            report.add(await self.sweep_scope(item))
        report.exchanges_pruned = await self.prune_logs()
        return report

    async def stats(self, scope: Scope) -> Stats:
        groups = await asyncio.gather(*(self._store.scan(scope, c, content=False) for c in COLLECTIONS))
        counts: dict[str, int] = {c: 0 for c in COLLECTIONS}
        counts["archived"] = 0
        histogram = {f"0.{i}": 0 for i in range(10)}
        for collection, records in zip(COLLECTIONS, groups, strict=True):
            for record in records:
                if record.archived:
                    counts["archived"] += 1
                    continue
                counts[collection] += 1
                if collection in SCORED_COLLECTIONS:
                    bucket = min(9, int(record.counters.score * 10))
                    histogram[f"0.{bucket}"] += 1
        totals, by_day = await self._io.run(self._events.summary, scope)
        events = {kind: totals.get(kind, 0) for kind in ("promoted", "demoted", "deleted", "expired")}
        home = self._home
        data = await self._io.run(lambda: _dir_bytes(home / "chroma") + _dir_bytes(home / "memory"))
        return Stats(counts, histogram, events, json.dumps(by_day, sort_keys=True), data)

    async def scope_counts(self) -> list[tuple[Scope, dict[str, int]]]:
        owners = await self._store.owner_scopes()
        table: dict[Scope, dict[str, int]] = {}
        bank: dict[str, int] = {}
        for owner, collection in owners:
            count = await self._store.count(owner, collection)
            if owner.project == USER_WIDE_PROJECT:
                bank[owner.user] = count
            else:
                table.setdefault(owner, {})[collection] = count
        users_with_projects = {s.user for s in table}
        for owner, counts in table.items():
            counts["memory_bank"] = bank.get(owner.user, 0)
        for user, count in bank.items():
            if user not in users_with_projects:
                table[Scope(user, USER_WIDE_PROJECT)] = {"memory_bank": count}
        return sorted(table.items(), key=lambda item: (item[0].user, item[0].project))
