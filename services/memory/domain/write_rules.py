"""Input rules for writes, and the record a new memory starts as.

Pure module. Every message says what is wrong and how to fix it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime

from kernel.json_values import parse_value
from kernel.privacy import redact
from services.memory.domain import timefmt
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import MEMORY_BANK, SCORED_COLLECTIONS
from services.memory.domain.outcomes import INITIAL_SCORE, Outcome
from services.memory.domain.record import MemoryRecord, Scalar
from services.memory.domain.scoring import Counters

MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_METADATA_KEYS = 32
MAX_METADATA_JSON_CHARS = 8_000
MAX_METADATA_VALUE_CHARS = 2_000
MAX_REASON_CHARS = 500
# Keys the service owns; callers cannot set them through metadata_json.
RESERVED_KEYS = frozenset(
    {
        "score",
        "uses",
        "success_count",
        "last_outcome",
        "outcome_history",
        "archived",
        "archived_at",
        "archived_reason",
        "tags",
        "importance",
        "confidence",
        "created_ts",
        "content",
        "text",
        "project",
        "refreshed_at",
        "refresh_count",
        "promoted_at",
        "demoted_at",
        "moved_at",
        "last_used_at",
        "updated_at",
        "imported_at",
    }
)


def clean_content(content: str, max_chars: int, what: str = "content") -> str:
    """Redacted, stripped content; errors when empty or too long."""
    if len(content) > max_chars:
        raise InvalidRequest(
            f"{what} is {len(content)} characters; the limit is {max_chars}: store a summary, or ingest long "
            "documents as a book"
        )
    cleaned = redact(content).strip()
    if not cleaned:
        raise InvalidRequest(f"{what} is empty (after removing <private> blocks): send the text to remember")
    return cleaned


def clean_tags(tags: Sequence[str]) -> list[str]:
    if len(tags) > MAX_TAGS:
        raise InvalidRequest(f"{len(tags)} tags given; at most {MAX_TAGS} are allowed")
    out: list[str] = []
    for tag in tags:
        value = redact(tag).strip()
        if not value:
            continue
        if len(value) > MAX_TAG_CHARS:
            raise InvalidRequest(f"tag {value[:40]!r}... is longer than {MAX_TAG_CHARS} characters")
        out.append(value)
    return list(dict.fromkeys(out))


def check_unit(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InvalidRequest(f"{name}={value} is out of range: use a number from 0.0 to 1.0")
    return float(value)


def check_bank_attributes(collection: str, importance: float | None, confidence: float | None) -> None:
    if collection != MEMORY_BANK and (importance is not None or confidence is not None):
        raise InvalidRequest(
            f"importance and confidence apply to memory_bank only (got collection {collection!r}); "
            "other collections are ranked by their outcome scores"
        )
    check_unit("importance", importance)
    check_unit("confidence", confidence)


def parse_extra_metadata(text: str) -> dict[str, Scalar]:
    """Caller metadata: a JSON object of scalars, redacted, without reserved keys."""
    if not text.strip():
        return {}
    if len(text) > MAX_METADATA_JSON_CHARS:
        raise InvalidRequest(f"metadata_json is {len(text)} characters; keep it under {MAX_METADATA_JSON_CHARS}")
    try:
        data = parse_value(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(f'metadata_json is not valid JSON ({exc.msg}); example: {{"source": "docs"}}') from None
    if not isinstance(data, dict):
        raise InvalidRequest('metadata_json must be a JSON object, e.g. {"source": "docs"}')
    if len(data) > MAX_METADATA_KEYS:
        raise InvalidRequest(f"metadata_json has {len(data)} keys; at most {MAX_METADATA_KEYS} are allowed")
    out: dict[str, Scalar] = {}
    for key, value in data.items():
        if key in RESERVED_KEYS:
            raise InvalidRequest(f"metadata key {key!r} is managed by the service; use the request field instead")
        if not key or len(key) > 64:
            raise InvalidRequest("metadata keys must be 1-64 characters")
        if isinstance(value, str):
            if len(value) > MAX_METADATA_VALUE_CHARS:
                raise InvalidRequest(f"metadata value for {key!r} is longer than {MAX_METADATA_VALUE_CHARS} characters")
            value = redact(value)
        elif value is None or not isinstance(value, bool | int | float):
            raise InvalidRequest(f"metadata value for {key!r} must be a string, number or boolean")
        elif isinstance(value, float) and not math.isfinite(value):
            raise InvalidRequest(f"metadata value for {key!r} must be finite")
        out[key] = value
    if "created_at" in out or "timestamp" in out:
        moment = timefmt.parse(out.pop("created_at", None) or out.pop("timestamp", None))
        if moment is None:
            raise InvalidRequest("metadata created_at/timestamp must be an ISO-8601 date, e.g. 2025-02-07T15:42:00Z")
        out["created_at"] = timefmt.to_iso(moment)
    return out


def new_record(
    *,
    memory_id: str,
    collection: str,
    content: str,
    project: str,
    now: datetime,
    tags: Sequence[str],
    importance: float | None,
    confidence: float | None,
    initial_outcome: Outcome | None,
    session_id: str,
    extra: Mapping[str, Scalar],
    kind: str = "",
) -> MemoryRecord:
    """A new memory; ``extra`` is the caller's checked metadata (``parse_extra_metadata``)."""
    caller: dict[str, Scalar] = dict(extra)
    created = timefmt.parse(caller.pop("created_at", None)) or now
    scored = collection in SCORED_COLLECTIONS
    bank = collection == MEMORY_BANK
    score = INITIAL_SCORE[initial_outcome] if scored else 1.0 if bank else Counters().score
    return MemoryRecord(
        id=memory_id,
        collection=collection,
        content=content,
        created=created,
        counters=Counters(score=score),
        tags=tuple(tags),
        importance=(0.7 if importance is None else importance) if bank else None,
        confidence=(0.7 if confidence is None else confidence) if bank else None,
        project=project,
        updated_at=now,
        session_id=session_id or None,
        kind=kind or None,
        initial_outcome=initial_outcome.value if scored and initial_outcome is not None else None,
        extra=caller,
    )
