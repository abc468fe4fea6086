"""Use case: store a client's past exchanges (and their tool observations) in bulk.

Each exchange becomes the memory ``RecordExchange`` would have stored (same
redaction, same ``User: ...\\nAssistant: ...`` text, ``kind: exchange``,
session id, unproven score), dated when it happened. Observations become what
``Store`` makes of a PostToolUse observation. Differences from the live path,
on purpose: no session turn is opened or completed (history is not the turn in
progress), and no near-duplicate refresh (the caller's deterministic ids make
a replay idempotent instead).

Imported items are stored in **history**, not working, with ``imported_at``
set to now: ``created`` keeps the original date (recency ranks them as old),
while the lifecycle's expiry clock starts at the import (``lifecycle.expiry_clock``).
Stored in working with an old ``created``, they were past the 24 h working limit
at once and the first sweep deleted them all; and working observations are
compacted 2 h after their creation. In history they expire only after 30 days
without use counted from the import, like any history memory, and observation
compaction (working only) leaves them alone. Ids may come as ``history_<uid>``
or, from older callers, ``working_<uid>``; either is stored as ``history_<uid>``.

Idempotent: an item whose uid is already stored in any collection of its scope
(a working memory may have been promoted since) is reported as existing and
not written. So is an exchange the live hooks already stored: same scope, same
session id and the same text in working, history or patterns (backfilled
history overlaps the weeks mnemex was running). All new texts are embedded in
one call, then written per scope.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from kernel.privacy import redact
from services.memory.domain import timefmt
from services.memory.domain.arrays import Vector
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import (
    COLLECTIONS,
    HISTORY,
    PATTERNS,
    WORKING,
    Scope,
    check_id,
    memory_id,
    split_id,
)
from services.memory.domain.observation_rules import with_observation_importance
from services.memory.domain.record import MemoryRecord, Scalar
from services.memory.domain.write_rules import clean_content, new_record, parse_extra_metadata
from services.memory.retrieval.embedding_calls import Vectors
from services.memory.storage.chroma_store import MetadataFilter
from services.memory.storage.memory_store import MemoryStore
from services.memory.usecases.turn_recording import check_session_id, exchange_text

MAX_ITEMS = 2048


@dataclass(frozen=True)
class BackfillItem:
    scope: Scope
    id: str
    session_id: str
    created_at: str
    user_text: str = ""
    assistant_text: str = ""
    content: str = ""
    metadata_json: str = ""


@dataclass
class BackfillReport:
    stored_ids: list[str] = field(default_factory=list)
    existing_ids: list[str] = field(default_factory=list)
    empty_ids: list[str] = field(default_factory=list)


class Backfill:
    def __init__(
        self, store: MemoryStore, vectors: Vectors, *, max_content_chars: int, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._max_content_chars = max_content_chars
        self._clock = clock

    async def run(
        self, exchanges: Sequence[BackfillItem], observations: Sequence[BackfillItem], *, dry_run: bool
    ) -> BackfillReport:
        if len(exchanges) + len(observations) > MAX_ITEMS:
            raise InvalidRequest(f"{len(exchanges) + len(observations)} items: send at most {MAX_ITEMS} per call")
        report = BackfillReport()
        records: list[tuple[Scope, MemoryRecord]] = []
        for item, is_exchange in [(e, True) for e in exchanges] + [(o, False) for o in observations]:
            record = self._record(item, is_exchange)
            if record is None:
                report.empty_ids.append(item.id)
            else:
                records.append((item.scope, record))
        existing = await self._existing(records)
        live = await self._stored_live(records)
        fresh: list[tuple[Scope, MemoryRecord]] = []
        for scope, record in records:
            if (scope, split_id(record.id)[1]) in existing or (scope, record.session_id, record.content) in live:
                report.existing_ids.append(record.id)
            else:
                existing.add((scope, split_id(record.id)[1]))  # a repeat within the call counts once
                fresh.append((scope, record))
        report.stored_ids = [record.id for _, record in fresh]
        if dry_run or not fresh:
            return report
        vectors = await self._vectors.embed([record.content for _, record in fresh])
        by_scope: dict[Scope, list[tuple[MemoryRecord, Vector]]] = {}
        for (scope, record), vector in zip(fresh, vectors, strict=True):
            by_scope.setdefault(scope, []).append((record, vector))
        for scope, items in by_scope.items():
            await self._store.add(scope, items)
        return report

    def _record(self, item: BackfillItem, is_exchange: bool) -> MemoryRecord | None:
        record_id = check_id(item.id)
        prefix, _ = split_id(record_id)
        if prefix not in (HISTORY, WORKING):
            raise InvalidRequest(f"id {record_id[:80]!r}: backfilled memories are history memories (history_<uid>)")
        record_id = memory_id(HISTORY, split_id(record_id)[1])
        created = timefmt.parse(item.created_at)
        if created is None:
            raise InvalidRequest(f"created_at {item.created_at[:40]!r} of {record_id} is not an RFC 3339 time")
        session_id = check_session_id(item.session_id)
        if is_exchange:
            text = exchange_text(redact(item.user_text).strip(), redact(item.assistant_text).strip())
            extra: dict[str, Scalar] = {}
            kind = "exchange"
        else:
            text = redact(item.content).strip()
            # the same default importance by kind that a live PostToolUse observation gets
            extra = with_observation_importance(dict(parse_extra_metadata(item.metadata_json)), text)
            kind = ""
        if not text:
            return None
        extra["created_at"] = timefmt.to_iso(created)
        now = self._clock()
        record = new_record(
            memory_id=record_id,
            collection=HISTORY,
            content=clean_content(text, self._max_content_chars),
            project=item.scope.project,
            now=now,
            tags=(),
            importance=None,
            confidence=None,
            initial_outcome=None,
            session_id=session_id,
            extra=extra,
            kind=kind,
        )
        return replace(record, imported_at=now)

    async def _existing(self, records: list[tuple[Scope, MemoryRecord]]) -> set[tuple[Scope, str]]:
        """(scope, uid) of the records already stored under any collection prefix."""
        by_scope: dict[Scope, list[str]] = {}
        for scope, record in records:
            by_scope.setdefault(scope, []).append(split_id(record.id)[1])
        found: set[tuple[Scope, str]] = set()
        for scope, uids in by_scope.items():
            for collection in COLLECTIONS:
                probes = [memory_id(collection, uid) for uid in uids]
                for stored in await self._store.stored_ids(scope, collection, probes):
                    found.add((scope, split_id(stored)[1]))
        return found

    async def _stored_live(self, records: list[tuple[Scope, MemoryRecord]]) -> set[tuple[Scope, str | None, str]]:
        """(scope, session id, text) of the exchanges already stored for the sessions of ``records``."""
        sessions: dict[Scope, set[str]] = {}
        for scope, record in records:
            if record.kind == "exchange" and record.session_id:
                sessions.setdefault(scope, set()).add(record.session_id)
        found: set[tuple[Scope, str | None, str]] = set()
        for scope, session_ids in sessions.items():
            among: dict[Literal["$in", "$nin"], list[str | int | float | bool]] = {"$in": sorted(session_ids)}
            in_sessions: MetadataFilter = {"session_id": among}
            where: MetadataFilter = {"$and": [{"kind": "exchange"}, in_sessions]}
            for collection in (WORKING, HISTORY, PATTERNS):
                for stored in await self._store.scan(scope, collection, where=where):
                    found.add((scope, stored.session_id, stored.content))
        return found
