"""Chroma metadata <-> ``MemoryRecord``: the one place that reads or writes metadata keys.

Parsing is tolerant (stored data may be old, imported or hand-edited):

- ``content`` is the document; legacy ``content``/``text`` metadata is only a fallback;
- ``created`` comes from ``created_at``, else the legacy ``timestamp``, else the
  numeric ``created_ts``;
- outcome counters get neutral defaults (score 0.5, memory_bank 1.0) and
  unreadable numbers fall back to them;
- ``tags`` may be a JSON list, a JSON string or a comma-separated string;
- ``importance`` / ``confidence`` are read on memory_bank only (default 0.7);
- a bookkeeping key (``refreshed_at``, ``title``, ``refresh_count``, ...) becomes
  its typed field when its value has the right type, else it stays in ``extra``
  as stored, so nothing a caller stored is lost.

``to_metadata`` writes a record back as Chroma scalars; ``changed_metadata``
is what an update has to write: the keys whose serialised value differs;
``imported_metadata`` is an imported record's metadata as stored. No other
module builds a Chroma metadata dict.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from services.memory.domain import timefmt
from services.memory.domain.naming import MEMORY_BANK, split_id
from services.memory.domain.record import COUNT_FIELDS, SURFACED_KEYS, TEXT_FIELDS, TIME_FIELDS, MemoryRecord, Scalar
from services.memory.domain.scoring import Counters

DEFAULT_SCORE = {MEMORY_BANK: 1.0}
DEFAULT_BANK_ATTRIBUTE = 0.7
_TIME_FIELDS = frozenset(TIME_FIELDS)
_TEXT_FIELDS = frozenset(TEXT_FIELDS)
_COUNT_FIELDS = frozenset(COUNT_FIELDS)


def as_float(value: object, default: float) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else default
    if isinstance(value, str):
        try:
            parsed = float(value)
        except ValueError:
            return default
        return parsed if math.isfinite(parsed) else default
    return default


def as_int(value: object, default: int = 0) -> int:
    number = as_float(value, float(default))
    return max(0, int(number))


def as_bool(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)


def created_at_of(metadata: Mapping[str, object]) -> datetime | None:
    """``created_at``, else the legacy ``timestamp``, else the numeric ``created_ts``."""
    for key in ("created_at", "timestamp", "created_ts"):
        moment = timefmt.parse(metadata.get(key))
        if moment is not None:
            return moment
    return None


def tags_of(metadata: Mapping[str, object]) -> tuple[str, ...]:
    raw = metadata.get("tags")
    if isinstance(raw, list):
        return tuple(str(tag) for tag in raw)
    if isinstance(raw, str) and raw.strip():
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            return tuple(part.strip() for part in raw.split(",") if part.strip())
        if isinstance(parsed, list):
            return tuple(str(tag) for tag in parsed)
        if isinstance(parsed, str):
            return (parsed,)
    return ()


def counters_of(metadata: Mapping[str, object], collection: str) -> Counters:
    return Counters(
        score=min(1.0, max(0.0, as_float(metadata.get("score"), DEFAULT_SCORE.get(collection, 0.5)))),
        uses=as_int(metadata.get("uses")),
        success_count=max(0.0, as_float(metadata.get("success_count"), 0.0)),
        last_outcome=str(metadata.get("last_outcome") or ""),
        history=str(metadata.get("outcome_history") or ""),
    )


def parse_record(
    memory_id: str, collection: str | None, document: str | None, metadata: Mapping[str, object] | None
) -> MemoryRecord:
    """The record of one stored memory (``collection`` falls back to the id's prefix)."""
    meta = metadata or {}
    if not collection:
        collection = split_id(memory_id)[0] or ""
    bank = collection == MEMORY_BANK
    # The bookkeeping fields are picked by name (TIME_FIELDS, TEXT_FIELDS, COUNT_FIELDS) and each value is
    # checked against its kind below; mypy types ``**`` of a dict against every field of MemoryRecord at once.
    typed: dict[str, Any] = {}  # type: ignore[explicit-any]  # MemoryRecord's fields by name, each checked below
    extra: dict[str, Scalar] = {}
    for key, value in meta.items():
        if key in SURFACED_KEYS:
            continue
        if key in _TIME_FIELDS:
            moment = timefmt.parse(value)
            if moment is not None:
                typed[key] = moment
                continue
        elif key in _TEXT_FIELDS:
            if isinstance(value, str):
                typed[key] = value
                continue
        elif key in _COUNT_FIELDS and isinstance(value, int) and not isinstance(value, bool):
            typed[key] = value
            continue
        if value is not None:  # as ``chroma_metadata`` stores it: None dropped, a list as JSON text
            extra[key] = _as_scalar(value)
    return MemoryRecord(
        id=memory_id,
        collection=collection,
        content=document or str(meta.get("content") or meta.get("text") or ""),
        created=created_at_of(meta),
        counters=counters_of(meta, collection),
        tags=tags_of(meta),
        importance=as_float(meta.get("importance"), DEFAULT_BANK_ATTRIBUTE) if bank else None,
        confidence=as_float(meta.get("confidence"), DEFAULT_BANK_ATTRIBUTE) if bank else None,
        archived=as_bool(meta.get("archived", False)),
        project=str(meta.get("project") or ""),
        extra=extra,
        **typed,
    )


def _as_scalar(value: object) -> Scalar:
    """A stored value as a Chroma scalar: itself, or the JSON text ``chroma_metadata`` would store for it."""
    if isinstance(value, str | bool | int | float):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def to_metadata(record: MemoryRecord) -> dict[str, Scalar]:
    """The record as Chroma metadata (scalars only)."""
    counters = record.counters
    out = record.details()
    if record.created is not None:
        out["created_at"] = timefmt.to_iso(record.created)
        out["created_ts"] = record.created.timestamp()
    out.update(
        project=record.project,
        score=counters.score,
        uses=counters.uses,
        success_count=counters.success_count,
        last_outcome=counters.last_outcome,
        outcome_history=counters.history,
        archived=record.archived,
        tags=json.dumps(list(record.tags)),
    )
    if record.importance is not None:
        out["importance"] = record.importance
    if record.confidence is not None:
        out["confidence"] = record.confidence
    return out


_MISSING = object()


def changed_metadata(before: MemoryRecord, after: MemoryRecord) -> dict[str, Scalar]:
    """The metadata keys to write so that the stored ``before`` reads back as ``after``."""
    old = to_metadata(before)
    return {key: value for key, value in to_metadata(after).items() if old.get(key, _MISSING) != value}


def imported_metadata(given: Mapping[str, object], *, project: str, now: datetime) -> dict[str, Scalar]:
    """An imported record's metadata as stored: Chroma scalars only (lists as JSON), no content keys,
    its creation time (``now`` when it names none) in both stored forms, and its project unless it names one."""
    meta: dict[str, Scalar] = {}
    for key, value in given.items():
        if isinstance(value, bool | int | float | str):
            meta[key] = value
        elif isinstance(value, list):
            meta[key] = json.dumps(value)
    meta.pop("content", None)
    meta.pop("text", None)
    created = created_at_of(meta) or now
    meta["created_at"] = timefmt.to_iso(created)
    meta["created_ts"] = created.timestamp()
    meta.setdefault("project", project)
    return meta
