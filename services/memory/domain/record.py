"""The typed memory record: what the service knows about one stored memory.

Pure module. Storage parses a memory's stored metadata into a ``MemoryRecord``
once (``storage.record_codec``) and serialises records back; everything else
reads fields, never metadata keys. Records are frozen: a change is
``dataclasses.replace(record, ...)``, and storage writes the fields that differ.

- ``content`` is the text in exactly one place;
- ``created`` is the creation time (``None`` when unknown), ``counters`` the
  outcome counters (neutral defaults), ``tags`` a tuple;
- ``importance`` / ``confidence`` are set on memory_bank only;
- the optional fields below them are the bookkeeping keys the service writes
  (``None``: not stored);
- ``extra`` is every other stored key, as stored (caller metadata such as
  ``source`` or ``author``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from services.memory.domain import timefmt
from services.memory.domain.scoring import Counters

Scalar = str | int | float | bool

# Stored keys shown as the view's own fields (or internal), hence left out of its ``metadata``.
SURFACED_KEYS = frozenset(
    {
        "content",
        "text",
        "created_at",
        "timestamp",
        "created_ts",
        "score",
        "uses",
        "success_count",
        "last_outcome",
        "outcome_history",
        "tags",
        "importance",
        "confidence",
        "archived",
        "project",
    }
)
# The optional bookkeeping fields, by kind; each is stored under its own name.
TIME_FIELDS = (
    "updated_at",
    "refreshed_at",
    "promoted_at",
    "demoted_at",
    "moved_at",
    "last_used_at",
    "archived_at",
    "imported_at",
)
TEXT_FIELDS = (
    "archived_reason",
    "session_id",
    "kind",
    "initial_outcome",
    "title",
    "source",
    "filename",
    "content_hash",
)
COUNT_FIELDS = ("refresh_count", "chunk_index", "chunk_count")


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    id: str
    collection: str
    content: str
    created: datetime | None = None
    counters: Counters = field(default_factory=Counters)
    tags: tuple[str, ...] = ()
    importance: float | None = None
    confidence: float | None = None
    archived: bool = False
    project: str = ""
    # bookkeeping: times
    updated_at: datetime | None = None
    refreshed_at: datetime | None = None
    promoted_at: datetime | None = None
    demoted_at: datetime | None = None
    moved_at: datetime | None = None
    last_used_at: datetime | None = None
    archived_at: datetime | None = None
    imported_at: datetime | None = None  # set by backfill: when past history was imported
    # bookkeeping: text
    archived_reason: str | None = None
    session_id: str | None = None
    kind: str | None = None
    initial_outcome: str | None = None
    title: str | None = None
    source: str | None = None
    filename: str | None = None
    content_hash: str | None = None
    # bookkeeping: counts
    refresh_count: int | None = None
    chunk_index: int | None = None
    chunk_count: int | None = None
    extra: Mapping[str, Scalar] = field(default_factory=dict)
    # ``created`` as a timestamp (-inf when unknown): the key every listing sorts 10k records by, worked out once
    created_ts: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        created = self.created.timestamp() if self.created is not None else float("-inf")
        object.__setattr__(self, "created_ts", created)

    @property
    def recency_ts(self) -> float:
        """Where recency decays from: the latest of creation and the last scored use
        (``last_used_at``, set when an outcome is applied); ``-inf`` when neither is known."""
        if self.last_used_at is None:
            return self.created_ts
        return max(self.created_ts, self.last_used_at.timestamp())

    def details(self) -> dict[str, Scalar]:
        """Every stored key that is not one of the record's own view fields: ``extra`` plus bookkeeping."""
        out: dict[str, Scalar] = dict(self.extra)
        for name in TIME_FIELDS:
            moment = getattr(self, name)
            if moment is not None:
                out[name] = timefmt.to_iso(moment)
        for name in (*TEXT_FIELDS, *COUNT_FIELDS):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out
