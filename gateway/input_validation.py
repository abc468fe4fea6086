"""Input limits shared by every edge (REST models mirror them). Plain module."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from gateway.gateway_errors import InvalidInput

MAX_QUERY_CHARS = 2_000
MAX_ID_CHARS = 200
MAX_PROMPT_CHARS = 100_000
MAX_CONTENT_CHARS = 20_000
MAX_ASSISTANT_CHARS = 200_000
MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_SCORED_IDS = 100
MAX_BOOK_BYTES = 10 * 1024 * 1024
MAX_TITLE_CHARS = 300
MAX_REASON_CHARS = 500  # the memory service keeps at most this much of an archive reason
LIMIT_RANGE = (1, 100)
DAYS_BACK_RANGE = (1, 3650)  # ten years: backfilled history is older than one


def text(value: str | None, field: str, max_chars: int, *, required: bool = False) -> str:
    value = value or ""
    if required and not value.strip():
        raise InvalidInput(f"{field} is empty: pass some text")
    if len(value) > max_chars:
        raise InvalidInput(f"{field} is {len(value):,} characters; the limit is {max_chars:,}. Shorten it.")
    return value


def memory_id(value: str | None, field: str = "id") -> str:
    value = (value or "").strip()
    if not value:
        raise InvalidInput(f"{field} is empty: pass a memory id such as the one in an [id:...] tag")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"{field} is {len(value)} characters; ids are at most {MAX_ID_CHARS}")
    return value


def ids(values: Iterable[str], field: str) -> list[str]:
    out = [memory_id(v, field) for v in values]
    if len(out) > MAX_SCORED_IDS:
        raise InvalidInput(f"{field} has {len(out)} ids; at most {MAX_SCORED_IDS} at a time")
    return out


def in_range(value: int, field: str, bounds: tuple[int, int]) -> int:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{field}={value!r} is out of range: use an integer from {low} to {high}")
    return value


def unit(value: float | None, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise InvalidInput(f"{field}={value!r} must be a number from 0.0 to 1.0")
    return float(value)


def tags(values: Iterable[str] | None) -> list[str]:
    out = [str(t).strip() for t in values or () if str(t).strip()]
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"{len(out)} tags given; at most {MAX_TAGS}")
    long = [t for t in out if len(t) > MAX_TAG_CHARS]
    if long:
        raise InvalidInput(f"tag {long[0][:40]!r}… is longer than {MAX_TAG_CHARS} characters")
    return out


def metadata_json(filters: Mapping[str, object] | None) -> str:
    if not filters:
        return ""
    if not isinstance(filters, Mapping):
        raise InvalidInput("metadata must be an object of field -> value filters")
    encoded = json.dumps(dict(filters), default=str)
    if len(encoded) > MAX_QUERY_CHARS:
        raise InvalidInput(f"metadata filters are {len(encoded)} characters as JSON; the limit is {MAX_QUERY_CHARS}")
    return encoded


def book_size(data: bytes) -> bytes:
    if not data:
        raise InvalidInput("the file is empty: pass a .txt, .md or .pdf with some content")
    if len(data) > MAX_BOOK_BYTES:
        raise InvalidInput(f"the file is {len(data):,} bytes; books are limited to {MAX_BOOK_BYTES:,} (10 MB)")
    return data
