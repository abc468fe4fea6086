"""Periodic upkeep and reporting: lifecycle sweep, log pruning, stats, scopes.

``sweep_scope`` evaluates every scored memory of a scope against the
lifecycle (including time-based expiry), repairs a memory left in two
collections by a crash mid-move, and records events. ``prune_logs`` drops
session turn logs older than the exchange TTL (7 days by default).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from services.memory import timefmt
from services.memory.lifecycle import Action, sweep
from services.memory.naming import (
    COLLECTIONS,
    SCORED_COLLECTIONS,
    USER_WIDE_PROJECT,
    Scope,
    split_id,
)
from services.memory.normalize import as_bool, counters_of, created_at_of
from services.memory.outcome_flow import apply_transition
from services.memory.runtime import Runtime
from services.memory.store import StoredMemory


@dataclass
class SweepReport:
    promoted: int = 0
    demoted: int = 0
    deleted: int = 0
    expired: int = 0
    exchanges_pruned: int = 0

    def add(self, other: SweepReport) -> None:
        for name in ("promoted", "demoted", "deleted", "expired", "exchanges_pruned"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def expiry_clock(memory: StoredMemory) -> datetime | None:
    meta = memory.metadata
    stamps = [created_at_of(meta), timefmt.parse(meta.get("refreshed_at"))]
    if memory.collection != "working":
        stamps += [timefmt.parse(meta.get("promoted_at")), timefmt.parse(meta.get("demoted_at")),
                   timefmt.parse(meta.get("last_used_at"))]
    known = [s for s in stamps if s is not None]
    return max(known) if known else None


async def _repair_split_moves(rt: Runtime, scope: Scope, rows: list[StoredMemory]) -> None:
    """A crash between a move's add and delete leaves one uid in two collections; keep the newest."""
    by_uid: dict[str, list[StoredMemory]] = {}
    for row in rows:
        by_uid.setdefault(split_id(row.id)[1], []).append(row)
    for uid, copies in by_uid.items():
        if len(copies) < 2:
            continue
        async with rt.locks.hold(uid):
            copies.sort(key=lambda r: str(r.metadata.get("moved_at") or ""), reverse=True)
            for stale in copies[1:]:
                await rt.delete(scope, stale)


async def sweep_scope(rt: Runtime, scope: Scope) -> SweepReport:
    report = SweepReport()
    groups = await rt.gather(*(rt.io(rt.store.scan, scope, c, documents=False) for c in SCORED_COLLECTIONS))
    rows = [row for group in groups for row in group]
    await _repair_split_moves(rt, scope, rows)
    for row in rows:
        if as_bool(row.metadata.get("archived", False)):
            continue
        planned = sweep(row.collection, counters_of(row.metadata, row.collection),
                        expiry_clock=expiry_clock(row), now=rt.now(), config=rt.settings.lifecycle)
        if planned.action is Action.NONE:
            continue
        async with rt.locks.hold(split_id(row.id)[1]):
            current = await rt.io(rt.store.get, scope, row.collection, [row.id])
            if not current or as_bool(current[0].metadata.get("archived", False)):
                continue
            memory = current[0]
            transition = sweep(memory.collection, counters_of(memory.metadata, memory.collection),
                               expiry_clock=expiry_clock(memory), now=rt.now(), config=rt.settings.lifecycle)
            if transition.action is Action.NONE:
                continue
            await apply_transition(rt, scope, memory, transition, {})
            name = transition.action.value
            setattr(report, name, getattr(report, name) + 1)
    return report


async def prune_logs(rt: Runtime) -> int:
    cutoff = rt.now() - timedelta(days=rt.settings.lifecycle.exchange_log_ttl_days)
    return await rt.io(rt.state.prune, cutoff.timestamp())


async def project_scopes(rt: Runtime, user: str = "") -> list[Scope]:
    owners = await rt.io(rt.store.owner_scopes)
    scopes = {s for s, _ in owners if s.project != USER_WIDE_PROJECT and (not user or s.user == user)}
    return sorted(scopes, key=lambda s: (s.user, s.project))


async def run_maintenance(rt: Runtime, scope: Scope | None) -> SweepReport:
    """Sweep one scope, or every scope when ``scope`` is None; then prune logs."""
    report = SweepReport()
    for item in [scope] if scope is not None else await project_scopes(rt):
        report.add(await sweep_scope(rt, item))
    report.exchanges_pruned = await prune_logs(rt)
    return report


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


async def stats(rt: Runtime, scope: Scope) -> Stats:
    groups = await rt.gather(*(rt.io(rt.store.scan, scope, c, documents=False) for c in COLLECTIONS))
    counts: dict[str, int] = {c: 0 for c in COLLECTIONS}
    counts["archived"] = 0
    histogram = {f"0.{i}": 0 for i in range(10)}
    for collection, rows in zip(COLLECTIONS, groups, strict=True):
        for row in rows:
            if as_bool(row.metadata.get("archived", False)):
                counts["archived"] += 1
                continue
            counts[collection] += 1
            if collection in SCORED_COLLECTIONS:
                bucket = min(9, int(counters_of(row.metadata, collection).score * 10))
                histogram[f"0.{bucket}"] += 1
    totals, by_day = await rt.io(rt.state.event_summary, scope)
    events = {kind: totals.get(kind, 0) for kind in ("promoted", "demoted", "deleted", "expired")}
    home = rt.settings.home
    data = await rt.io(lambda: _dir_bytes(home / "chroma") + _dir_bytes(home / "memory"))
    return Stats(counts, histogram, events, json.dumps(by_day, sort_keys=True), data)


async def scope_counts(rt: Runtime) -> list[tuple[Scope, dict[str, int]]]:
    owners = await rt.io(rt.store.owner_scopes)
    table: dict[Scope, dict[str, int]] = {}
    bank: dict[str, int] = {}
    for owner, collection in owners:
        count = await rt.io(rt.store.count, owner, collection)
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
