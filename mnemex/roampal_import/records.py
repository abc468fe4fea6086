"""Roampal Chroma rows -> mnemex import records (pure; no chromadb, no I/O).

Roampal stored the same facts in several shapes over its versions; the
rules below absorb them, following its v0.3.5 normalization notes:

- content: the Chroma document, else metadata ``content``, else ``text``;
  a row with no content at all is skipped (reason ``empty``);
- created_at: ``created_at``, else the legacy ``timestamp`` (ISO text or a
  Unix time), written back as ``created_at``;
- scores: ``score``/``uses``/``success_count`` read defensively (a
  non-numeric value falls back to the neutral default rather than failing);
  ``outcome_history`` (a JSON list of outcomes, a list of dicts, or marks
  such as ``[YY~N]``) becomes mnemex's mark string, newest last;
- tags: a JSON string or a list, kept as a JSON list string;
- importance/confidence: only on memory_bank (defaults 0.7);
- ids: kept when they already carry the collection prefix (so the ids in
  Roampal's knowledge graph still match), else a stable derived id, so a
  second import finds the same ids and duplicates nothing.

Every other scalar metadata key is kept, plus ``imported_from: roampal``,
the original ``roampal_id`` and ``imported_at``. Working and history rows
also get ``refreshed_at`` = the import time: mnemex expires unpromoted
working memories after 24 h and unused history after 30 days, counted from
the latest of creation and refresh, so without it a months-old Roampal
history would be swept away on the first maintenance pass instead of
getting the same window to prove itself. ``created_at`` (and so the age
shown) stays Roampal's.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import SupportsFloat, SupportsIndex, TypedDict

from kernel.json_values import JSONValue, parse_value

ROAMPAL_COLLECTIONS = {
    "roampal_books": "books",
    "roampal_working": "working",
    "roampal_history": "history",
    "roampal_patterns": "patterns",
    "roampal_memory_bank": "memory_bank",
}
OUTCOME_MARKS = {"worked": "Y", "partial": "~", "unknown": "?", "failed": "N"}
HISTORY_KEEP = 10
_MARKS = re.compile(r"^\[?([YN~?]*)\]?$")
_ID_CHARS = re.compile(r"^[A-Za-z0-9_.:-]{1,200}$")
_ID_NAMESPACE = uuid.UUID("6f1c1f8e-4d0b-4c55-9f35-6d1e0a7b2c11")
# The Roampal metadata the import rebuilds as mnemex fields (the rest is kept as extra metadata).
_REPLACED_KEYS = frozenset(
    {
        *("content", "text"),  # the document
        *("timestamp", "created_at"),  # when: one created_at
        *("score", "uses", "success_count", "last_outcome", "outcome_history"),  # the outcome record
        *("tags", "importance", "confidence"),  # a fact's
    }
)
SCORED = ("working", "history", "patterns")
Scalar = str | int | float | bool  # what a Chroma metadata value can be


class ImportRecord(TypedDict):
    """One memory as ``mnemex import`` takes it; no scope: it lands in the importing project."""

    collection: str
    id: str
    content: str
    metadata: dict[str, Scalar]


@dataclass
class ConversionTally:
    read: Counter[str] = field(default_factory=Counter)
    converted: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> count


def as_float(value: object, default: float) -> float:
    if not isinstance(value, str | bytes | bytearray | SupportsFloat | SupportsIndex):
        return default  # float() refuses it (TypeError)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def as_int(value: object, default: int = 0) -> int:
    return max(0, int(as_float(value, float(default))))


def iso_time(value: object) -> str:
    """ISO-8601 text for an ISO string or a Unix time; '' when unusable."""
    if value is None or value == "":
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000.0 if value > 1e11 else float(value)  # milliseconds from JS clients
        try:
            return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")
        except (OverflowError, OSError, ValueError):
            return ""
    text = str(value).strip()
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        number = as_float(text, math.nan)
        return iso_time(number) if math.isfinite(number) else ""
    return text


def history_marks(raw: object) -> str:
    """Roampal outcome history in any of its shapes -> marks like ``YY~N`` (newest last)."""
    if raw is None or raw == "":
        return ""
    items: object = raw
    if isinstance(raw, str):
        text = raw.strip()
        marks = _MARKS.match(text)
        if marks:
            return marks.group(1)[-HISTORY_KEEP:]
        try:
            items = parse_value(text)
        except ValueError:
            items = [part.strip() for part in text.split(",")]
    listed: list[object] = items if isinstance(items, list) else [items]
    out = []
    for item in listed:
        word = item.get("outcome") if isinstance(item, dict) else item
        mark = OUTCOME_MARKS.get(str(word).strip().lower())
        if mark:
            out.append(mark)
    return "".join(out)[-HISTORY_KEEP:]


def tags_json(raw: object) -> str:
    if isinstance(raw, list):
        return json.dumps([str(t) for t in raw])
    if isinstance(raw, str) and raw.strip():
        try:
            parsed: JSONValue = parse_value(raw)
        except ValueError:
            return json.dumps([p.strip() for p in raw.split(",") if p.strip()])
        if isinstance(parsed, list):
            return json.dumps([str(t) for t in parsed])
        return json.dumps([str(parsed)])
    return "[]"


def mnemex_id(collection: str, roampal_id: str) -> str:
    if roampal_id.startswith(collection + "_") and _ID_CHARS.match(roampal_id):
        return roampal_id
    return f"{collection}_{uuid.uuid5(_ID_NAMESPACE, roampal_id).hex}"


def _scalar(value: object) -> Scalar:
    if isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def to_record(
    roampal_collection: str,
    roampal_id: str,
    document: str | None,
    metadata: Mapping[str, object] | None,
    now: datetime | None = None,
) -> tuple[ImportRecord | None, str]:
    """(record, "") or (None, reason). The record has no scope: it lands in the importing project."""
    collection = ROAMPAL_COLLECTIONS.get(roampal_collection)
    if collection is None:
        return None, "unknown collection"
    meta = dict(metadata or {})
    content = (document or "").strip() or str(meta.get("content") or "").strip() or str(meta.get("text") or "").strip()
    if not content:
        return None, "empty"
    out: dict[str, Scalar] = {k: _scalar(v) for k, v in meta.items() if k not in _REPLACED_KEYS and v is not None}
    created_at = iso_time(meta.get("created_at")) or iso_time(meta.get("timestamp"))
    out["created_at"] = created_at
    if not created_at:
        del out["created_at"]
    if collection in SCORED:
        out["score"] = min(1.0, max(0.0, as_float(meta.get("score"), 0.5)))
        out["uses"] = as_int(meta.get("uses"))
        out["success_count"] = max(0.0, as_float(meta.get("success_count"), 0.0))
        if meta.get("last_outcome"):
            out["last_outcome"] = str(meta["last_outcome"]).strip().lower()
        marks = history_marks(meta.get("outcome_history"))
        if marks:
            out["outcome_history"] = marks
    if collection == "memory_bank":
        out["score"] = min(1.0, max(0.0, as_float(meta.get("score"), 1.0)))
        out["importance"] = min(1.0, max(0.0, as_float(meta.get("importance"), 0.7)))
        out["confidence"] = min(1.0, max(0.0, as_float(meta.get("confidence"), 0.7)))
        out["tags"] = tags_json(meta.get("tags"))
    if collection == "books":
        out.setdefault("title", "untitled")
    stamp = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    if collection in ("working", "history"):
        out["refreshed_at"] = stamp
    out["imported_from"] = "roampal"
    out["roampal_id"] = roampal_id
    out["imported_at"] = stamp
    return ImportRecord(collection=collection, id=mnemex_id(collection, roampal_id), content=content, metadata=out), ""
