"""Browsing memories without a query: filter by collection, tag, kind and archived state; sort; page.

Pure module. The viewer's memory list uses it when no search text is given.
It works on ``MemoryRecord``s, not views, so a page of 10k memories sorts
on the counters alone and only the page shown is turned into views. A
project's pages list and count only the facts that hold there
(``fact_scope.holds_in``): ``in_project`` drops the others before paging.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from services.memory.domain.fact_scope import holds_in, scope_key
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import BOOKS, COLLECTIONS, MEMORY_BANK, check_collection, check_id
from services.memory.domain.record import MemoryRecord
from services.memory.domain.scoring import wilson_lower_bound

MAX_PAGE = 100
MAX_OFFSET = 1_000_000
MAX_TAG_CHARS = 100
MAX_SESSION_CHARS = 200  # as storage.turns.MAX_SESSION_ID_CHARS
TOP_TAGS = 50


class BrowseSort(StrEnum):
    RECENCY = "recency"
    SCORE = "score"
    WILSON = "wilson"
    USES = "uses"


class MemoryKind(StrEnum):
    """What a memory is, as the viewer's kind filter names it (``kind_of``)."""

    EXCHANGE = "exchange"  # a prompt and the assistant's answer, stored at Stop
    OBSERVATION = "observation"  # a tool observation (PostToolUse)
    TAKEAWAY = "takeaway"  # a key takeaway recorded with score_response
    FACT = "fact"  # a memory_bank entry
    BOOK = "book"  # a chunk of an uploaded book
    OTHER = "other"  # anything else (add_to_memory_bank style notes in working, imports)


def kind_of(record: MemoryRecord) -> MemoryKind:
    """The kind of ``record``: from its collection (books, facts), else its ``kind`` / ``type`` metadata."""
    if record.collection == BOOKS:
        return MemoryKind.BOOK
    if record.collection == MEMORY_BANK:
        return MemoryKind.FACT
    if record.kind == MemoryKind.EXCHANGE:
        return MemoryKind.EXCHANGE
    marked = str(record.extra.get("type", ""))
    if marked == MemoryKind.OBSERVATION:
        return MemoryKind.OBSERVATION
    if marked == MemoryKind.TAKEAWAY:
        return MemoryKind.TAKEAWAY
    return MemoryKind.OTHER


class ArchivedFilter(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    ALL = "all"


@dataclass(frozen=True)
class BrowseQuery:
    collections: tuple[str, ...]
    tag: str = ""
    kind: MemoryKind | None = None
    sort: BrowseSort = BrowseSort.RECENCY
    archived: ArchivedFilter = ArchivedFilter.ACTIVE
    limit: int = 20
    offset: int = 0
    session_id: str = ""  # only memories written in this session
    ids: frozenset[str] = frozenset()  # only these memories


def build_browse_query(
    *,
    collections: Sequence[str],
    tag: str,
    sort: str,
    archived: str,
    limit: int,
    offset: int,
    kind: str = "",
    session_id: str = "",
    ids: Sequence[str] = (),
) -> BrowseQuery:
    """Check a browse request; the message says how to fix a bad one."""
    chosen = tuple(check_collection(c) for c in dict.fromkeys(collections)) or COLLECTIONS
    session_id = session_id.strip()
    if len(session_id) > MAX_SESSION_CHARS:
        raise InvalidRequest(f"session_id is longer than {MAX_SESSION_CHARS} characters")
    if len(ids) > MAX_PAGE:
        raise InvalidRequest(f"{len(ids)} ids: name at most {MAX_PAGE} memories at a time")
    wanted = frozenset(check_id(i) for i in ids)
    try:
        order = BrowseSort(sort or BrowseSort.RECENCY)
    except ValueError:
        raise InvalidRequest(f"sort={sort!r} is unknown: use {', '.join(s.value for s in BrowseSort)}") from None
    try:
        which = ArchivedFilter(archived or ArchivedFilter.ACTIVE)
    except ValueError:
        raise InvalidRequest(
            f"archived={archived!r} is unknown: use {', '.join(a.value for a in ArchivedFilter)}"
        ) from None
    try:
        chosen_kind = MemoryKind(kind.strip().lower()) if kind.strip() else None
    except ValueError:
        raise InvalidRequest(
            f"kind={kind[:40]!r} is unknown: use {', '.join(k.value for k in MemoryKind)} (or nothing for every kind)"
        ) from None
    limit = limit or 20
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidRequest(f"limit={limit} is out of range: use 1-{MAX_PAGE}")
    if offset > MAX_OFFSET:
        raise InvalidRequest(f"offset={offset} is too large (max {MAX_OFFSET})")
    tag = tag.strip()
    if len(tag) > MAX_TAG_CHARS:
        raise InvalidRequest(f"tag is longer than {MAX_TAG_CHARS} characters")
    return BrowseQuery(chosen, tag, chosen_kind, order, which, limit, offset, session_id, wanted)


def _keys(sort: BrowseSort) -> Callable[[MemoryRecord], tuple[float | str, ...]]:
    """The sort key of one record, best last, ties by id. The Wilson bound is worked out once per
    (successes, uses) pair: 10k memories hold only a few such pairs."""
    if sort is BrowseSort.SCORE:
        return lambda r: (r.counters.score, r.created_ts, r.id)
    if sort is BrowseSort.USES:
        return lambda r: (r.counters.uses, r.counters.score, r.created_ts, r.id)
    if sort is BrowseSort.WILSON:
        wilson = cache(wilson_lower_bound)
        return lambda r: (wilson(r.counters.success_count, r.counters.uses), r.counters.score, r.created_ts, r.id)
    return lambda r: (r.created_ts, r.id)


def select(records: Sequence[MemoryRecord], query: BrowseQuery) -> tuple[list[MemoryRecord], int]:
    """(the page of records that pass the filters, best first, ties by id; how many pass in all).

    Only the records up to the end of the page are ordered (a heap), so the first
    pages of 10k memories cost one key per record, not a sort.
    """
    chosen = [r for r in records if r.id in query.ids] if query.ids else records
    if query.session_id:
        chosen = [r for r in chosen if r.session_id == query.session_id]
    if query.tag:
        chosen = [r for r in chosen if query.tag in r.tags]
    if query.kind is not None:
        chosen = [r for r in chosen if kind_of(r) is query.kind]
    best = heapq.nlargest(query.offset + query.limit, chosen, key=_keys(query.sort))
    return best[query.offset :], len(chosen)


def in_project(records: Iterable[MemoryRecord], project: str) -> list[MemoryRecord]:
    """``records`` less the facts that belong to another project than ``project``."""
    return [r for r in records if r.collection != MEMORY_BANK or holds_in(r, project)]


EVENT_KINDS = ("promoted", "demoted", "deleted", "expired")


@dataclass(frozen=True)
class FactOwner:
    """A memory_bank fact reduced to where it counts: its id, the project it belongs to ("" user-wide)."""

    id: str
    project: str
    archived: bool

    @classmethod
    def of(cls, record: MemoryRecord) -> FactOwner:
        return cls(record.id, scope_key(record), record.archived)


FACTS = MEMORY_BANK  # the collection ``fact_owners`` reads


def fact_owners(records: Iterable[MemoryRecord]) -> list[FactOwner]:
    """The memory_bank facts among ``records``, each with the project it belongs to."""
    return [FactOwner.of(r) for r in records if r.collection == MEMORY_BANK]


def project_counts(counts: dict[str, int], facts: Sequence[FactOwner], project: str) -> dict[str, int]:
    """Overview ``counts`` as ``project`` sees them: memory_bank and archived less the facts of other projects."""
    foreign = [f.archived for f in facts if f.project and f.project != project]
    return {
        **counts,
        MEMORY_BANK: max(0, counts.get(MEMORY_BANK, 0) - foreign.count(False)),
        "archived": max(0, counts.get("archived", 0) - foreign.count(True)),
    }


@dataclass(frozen=True)
class Overview:
    counts: dict[str, int]
    score_histogram: dict[str, int]
    events: dict[str, int]
    events_by_day: dict[str, dict[str, int]]


def score_histogram(scores: Iterable[float]) -> dict[str, int]:
    """Scores in tenths, ``"0.0"`` to ``"0.9"`` (a score of 1.0 counts in ``"0.9"``)."""
    histogram = {f"0.{i}": 0 for i in range(10)}
    for score in scores:
        histogram[f"0.{min(9, max(0, int(score * 10)))}"] += 1
    return histogram


def top_tags(records: Iterable[MemoryRecord], n: int = TOP_TAGS) -> list[str]:
    """The ``n`` most used tags, most used first (ties alphabetical)."""
    counts = Counter(tag for r in records for tag in r.tags)
    return [tag for tag, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]]
