"""Which memories need a consolidation decision, and what a merge or its undo writes.

Pure module (numpy for the similarity matrix). mnemex runs no model: the
assistant reads the clusters ``find_candidates`` returns and decides; the
service applies the decision (``usecases.consolidation``). Three kinds of cluster:

- **duplicate**: memories of one pool (the scored tiers together, or
  memory_bank) whose embeddings have cosine >= ``duplicate_min`` (0.85): close
  enough to say the same thing, below the write-time refresh line (0.95) or
  stored before it. Pairs are joined into clusters (connected components).
- **contradiction**: memory_bank facts stating different values for one
  entity and attribute (``fact_keys``: also the "possible" conflicts the
  automatic supersede pass leaves alone), and pairs with cosine >=
  ``contradiction_min`` (0.8) where one memory was last scored failed and the
  other was not: one of them is probably wrong.
- **stale**: memories of history, patterns or memory_bank without activity
  (creation or scored use) for ``stale_days`` (60), highest learned score
  first: a stale memory that still ranks high is the one that misleads.

Output is bounded: at most ``max_rows`` most recently active memories per
pool are compared, clusters hold at most ``MAX_MEMBERS`` memories, and the
caller asks for at most ``MAX_CLUSTERS`` clusters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from services.memory.domain import timefmt
from services.memory.domain.arrays import Vector
from services.memory.domain.fact_keys import Conflict, FactKey, conflict, fact_key
from services.memory.domain.fact_scope import same_scope, scope_key
from services.memory.domain.fact_slots import Slot, slot, slot_conflict
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import BOOKS, HISTORY, MEMORY_BANK, PATTERNS, WORKING
from services.memory.domain.outcomes import Outcome
from services.memory.domain.ranking import RankInput, learned_score
from services.memory.domain.record import MemoryRecord
from services.memory.domain.timefmt import SECONDS_PER_DAY

DUPLICATE = "duplicate"
CONTRADICTION = "contradiction"
STALE = "stale"
KINDS = (DUPLICATE, CONTRADICTION, STALE)
MAX_CLUSTERS = 50
DEFAULT_CLUSTERS = 10
MAX_MEMBERS = 8
MAX_SOURCES = 20
MAX_SLOT_BUCKET = 200  # facts of one typed kind compared pairwise for reworded contradictions
TIER_ORDER = (WORKING, HISTORY, PATTERNS)  # a merge of scored memories lands in the highest source tier
# Metadata keys of the links (stored as ``extra``: plain scalars, comma-joined ids).
CONSOLIDATED_FROM = "consolidated_from"
SUPERSEDES = "supersedes"
SUPERSEDED_BY = "superseded_by"


@dataclass(frozen=True)
class CandidateRules:
    duplicate_min: float = 0.85
    contradiction_min: float = 0.8
    stale_days: float = 60.0
    max_rows: int = 2000


@dataclass(frozen=True)
class Cluster:
    kind: str
    reason: str
    members: tuple[MemoryRecord, ...]
    similarity: float | None = None


def check_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(k.strip().lower() for k in kinds if k.strip())) or KINDS
    unknown = [k for k in chosen if k not in KINDS]
    if unknown:
        raise InvalidRequest(f"unknown candidate kind(s) {unknown}: use any of {', '.join(KINDS)}")
    return chosen


def check_limit(limit: int) -> int:
    if limit < 0 or limit > MAX_CLUSTERS:
        raise InvalidRequest(f"limit={limit}: ask for 1 to {MAX_CLUSTERS} clusters (0 means {DEFAULT_CLUSTERS})")
    return limit or DEFAULT_CLUSTERS


def _failed(record: MemoryRecord) -> bool:
    return record.counters.last_outcome == Outcome.FAILED.value


def _components(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in sorted({i for pair in pairs for i in pair}):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _pairs(vectors: Vector, floor: float) -> list[tuple[int, int, float]]:
    if len(vectors) < 2:
        return []
    sims = vectors @ vectors.T
    rows, cols = np.nonzero(np.triu(sims >= floor, k=1))
    return [(int(a), int(b), float(sims[a, b])) for a, b in zip(rows.tolist(), cols.tolist(), strict=True)]


def recent_first(records: list[MemoryRecord], vectors: Vector, max_rows: int) -> tuple[list[MemoryRecord], Vector]:
    """At most ``max_rows`` records, the most recently active ones (the bound on the n x n product)."""
    if len(records) <= max_rows:
        return records, vectors
    order = sorted(range(len(records)), key=lambda i: records[i].recency_ts, reverse=True)[:max_rows]
    return [records[i] for i in order], vectors[order]


def duplicates(records: list[MemoryRecord], vectors: Vector, rules: CandidateRules) -> list[Cluster]:
    found = [(a, b, s) for a, b, s in _pairs(vectors, rules.duplicate_min) if same_scope(records[a], records[b])]
    lowest: dict[int, float] = {}
    for a, b, sim in found:
        for i in (a, b):
            lowest[i] = min(lowest.get(i, 1.0), sim)
    clusters = []
    for group in _components(len(records), [(a, b) for a, b, _ in found]):
        members = sorted(group, key=lambda i: records[i].recency_ts, reverse=True)[:MAX_MEMBERS]
        similarity = min(lowest[i] for i in members)
        clusters.append(
            Cluster(
                DUPLICATE,
                f"{len(group)} memories say nearly the same thing (cosine >= {similarity:.2f})",
                tuple(records[i] for i in members),
                similarity,
            )
        )
    clusters.sort(key=lambda c: -(c.similarity or 0.0))
    return clusters


def fact_contradictions(facts: list[MemoryRecord]) -> list[Cluster]:
    """memory_bank facts on one entity and attribute with different values, newest first."""
    keyed: dict[tuple[str, str, str], list[tuple[MemoryRecord, FactKey]]] = {}
    for record in facts:
        key = fact_key(record.content)
        if key is not None:  # one scope at a time (domain.fact_scope)
            keyed.setdefault((scope_key(record), key.entity, key.attribute), []).append((record, key))
    clusters = []
    for group in keyed.values():
        if len({key.value for _, key in group}) < 2:
            continue
        group.sort(key=lambda item: item[0].created_ts, reverse=True)
        newest = group[0][1]
        verdicts = [conflict(key, newest) for _, key in group[1:] if key.value != newest.value]
        sure = (
            "contradictory" if verdicts and all(v is Conflict.SUPERSEDE for v in verdicts) else "possibly contradictory"
        )
        values = ", ".join(dict.fromkeys(repr(key.value) for _, key in group))
        reason = f"facts about {newest.label!r} state different values ({values}): {sure}"
        clusters.append(Cluster(CONTRADICTION, reason, tuple(r for r, _ in group[:MAX_MEMBERS])))
    grouped = {frozenset(r.id for r in c.members) for c in clusters}
    return clusters + [c for c in reworded_contradictions(facts) if frozenset(r.id for r in c.members) not in grouped]


def reworded_contradictions(facts: list[MemoryRecord]) -> list[Cluster]:
    """Pairs of facts that give one typed setting (port, version, host, path) of one subject two
    values in different words (``fact_slots``), newer first; compared only within a kind and scope."""
    buckets: dict[tuple[str, str, str], list[tuple[MemoryRecord, Slot]]] = {}
    for record in facts:
        found = slot(record.content)
        if found is not None:
            buckets.setdefault((scope_key(record), found.kind, found.product), []).append((record, found))
    clusters = []
    for (_, kind, product), group in buckets.items():
        group.sort(key=lambda item: item[0].created_ts, reverse=True)
        del group[MAX_SLOT_BUCKET:]  # the newest of one kind: bounds the pairwise comparison
        for i, (newer, newer_slot) in enumerate(group):
            for older, older_slot in group[i + 1 :]:
                verdict = slot_conflict(older_slot, newer_slot)
                if verdict is None:
                    continue
                what = f"{product} {kind}" if product else kind
                subject = " ".join(sorted(newer_slot.subject & older_slot.subject))
                sure = "contradictory" if verdict is Conflict.SUPERSEDE else "possibly contradictory"
                reason = (
                    f"the {what} of {subject!r} is stated as {older_slot.value!r} and later as "
                    f"{newer_slot.value!r} in other words: {sure}"
                )
                clusters.append(Cluster(CONTRADICTION, reason, (newer, older)))
    return clusters


def failed_contradictions(records: list[MemoryRecord], vectors: Vector, rules: CandidateRules) -> list[Cluster]:
    """Close pairs where one memory was last scored failed and the other was not."""
    clusters = []
    for a, b, sim in sorted(_pairs(vectors, rules.contradiction_min), key=lambda p: -p[2]):
        first, second = records[a], records[b]
        if _failed(first) == _failed(second) or not same_scope(first, second):
            continue
        bad, good = (first, second) if _failed(first) else (second, first)
        reason = f"close (cosine {sim:.2f}), but {bad.id} was last scored failed and {good.id} was not"
        clusters.append(Cluster(CONTRADICTION, reason, (good, bad), sim))
    return clusters


def stale(records: list[MemoryRecord], now: datetime, rules: CandidateRules) -> list[Cluster]:
    cutoff = now.timestamp() - rules.stale_days * SECONDS_PER_DAY
    old = [r for r in records if r.collection != WORKING and math.isfinite(r.recency_ts) and r.recency_ts < cutoff]
    old.sort(key=lambda r: (-learned_score(RankInput.of(r)), r.recency_ts))
    clusters = []
    for record in old:
        idle = (now.timestamp() - record.recency_ts) / SECONDS_PER_DAY
        used = (
            f"last used {timefmt.humanize_age(record.last_used_at, now)} ago" if record.last_used_at else "never used"
        )
        reason = f"no activity for {idle:.0f} days ({used}); still true?"
        clusters.append(Cluster(STALE, reason, (record,)))
    return clusters


def consolidation_target(sources: Sequence[MemoryRecord], requested: str) -> str:
    """Where a merge lands: the requested collection, else memory_bank if any source is a fact,
    else the highest scored tier among the sources."""
    if requested:
        if requested == BOOKS:
            raise InvalidRequest("a merged memory cannot be a book: choose working, history, patterns or memory_bank")
        return requested
    collections = {s.collection for s in sources}
    if MEMORY_BANK in collections:
        return MEMORY_BANK
    return max(collections, key=lambda c: TIER_ORDER.index(c) if c in TIER_ORDER else -1)


def check_sources(ids: Sequence[str]) -> list[str]:
    chosen = list(dict.fromkeys(i.strip() for i in ids if i.strip()))
    if not chosen:
        raise InvalidRequest("source_ids is empty: pass the ids of the memories the merged memory replaces")
    if len(chosen) > MAX_SOURCES:
        raise InvalidRequest(f"{len(chosen)} source ids: merge at most {MAX_SOURCES} memories at once")
    return chosen


def linked_ids(value: object) -> list[str]:
    return [part for part in str(value or "").split(",") if part]


def superseded(source: MemoryRecord, successor_id: str, now: datetime, reason: str) -> MemoryRecord:
    """``source`` archived in favour of ``successor_id`` (the link is kept in ``superseded_by``)."""
    return replace(
        source,
        archived=True,
        archived_at=now,
        archived_reason=reason,
        updated_at=now,
        extra={**source.extra, SUPERSEDED_BY: successor_id},
    )


def restored(source: MemoryRecord, now: datetime) -> MemoryRecord:
    """``source`` active again after an undo; ``restored_at`` records when."""
    return replace(
        source,
        archived=False,
        archived_reason="",
        updated_at=now,
        extra={**source.extra, SUPERSEDED_BY: "", "restored_at": timefmt.to_iso(now)},
    )
