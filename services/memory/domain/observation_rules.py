"""Tool-use observations (PostToolUse): their default importance, and per-session compaction.

Pure module. An observation is a working memory whose metadata says
``type: observation`` and a ``kind`` (``gateway.tool_observations``): a one-line
record such as "Edited gateway/app.py" or "Ran pytest: 12 passed, 1 failed".

**Importance by kind** (``importance_of``), stored as ``observation_importance``
when the observation is written (a caller's own value wins):

=========  ==========  =================================================
kind       importance  why
=========  ==========  =================================================
change     0.6         an edit or a new file: what the session changed
command    0.4         a command run; 0.6 when its output failed
                       ("failed", "error", "FAIL", "[interrupted]")
discovery  0.3         a page fetched or a web search
other      0.2         any other tool
summary    0.5         a compaction summary (never compacted again)
=========  ==========  =================================================

**Compaction** (``compactable`` + ``summaries``, run by the maintenance sweep):
observations of one session with importance below
``LifecycleConfig.observation_compact_below`` (0.5), never scored (a scored
observation has earned its place), and older than
``observation_compact_after_hours`` (2 h) are folded into summary
observations of that session. A summary lists every distinct text once, in
order of first appearance, with ``(xN)`` for repeats, between the first and
the last time: nothing meaningful is lost, only the per-event timestamps and
the repetition. Its ``created`` is the newest source's, so it expires when
the sources would have (working memory's 24 h clock). The sources are then
removed: their text lives on in the summary. A session needs at least
``MIN_GROUP`` (3) such observations to be compacted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from services.memory.domain import timefmt
from services.memory.domain.record import MemoryRecord, Scalar

OBSERVATION = "observation"
SUMMARY_KIND = "summary"
IMPORTANCE_KEY = "observation_importance"
COMPACTED_COUNT = "compacted_count"
DEFAULT_IMPORTANCE = {"change": 0.6, "command": 0.4, "discovery": 0.3, "other": 0.2, SUMMARY_KIND: 0.5}
FAILED_COMMAND_IMPORTANCE = 0.6
UNKNOWN_KIND_IMPORTANCE = 0.3
MIN_GROUP = 3
SUMMARY_MAX_CHARS = 2_000  # longer sessions get several summaries
_FAILURE = re.compile(r"\b(?:failed|errors?|FAIL)\b|\[interrupted\]")


def is_observation(record: MemoryRecord) -> bool:
    return str(record.extra.get("type", "")) == OBSERVATION


def importance_of(kind: str, text: str) -> float:
    """The default importance of an observation of ``kind`` saying ``text`` (see the module doc)."""
    if kind == "command" and _FAILURE.search(text) and not re.search(r"\b0 failed\b", text):
        return FAILED_COMMAND_IMPORTANCE
    return DEFAULT_IMPORTANCE.get(kind, UNKNOWN_KIND_IMPORTANCE)


def with_observation_importance(extra: dict[str, Scalar], text: str) -> dict[str, Scalar]:
    """Caller metadata, plus the kind's default importance when it marks an observation without one."""
    if str(extra.get("type", "")) != OBSERVATION or IMPORTANCE_KEY in extra:
        return extra
    return {**extra, IMPORTANCE_KEY: importance_of(str(extra.get("kind", "")), text)}


def stored_importance(record: MemoryRecord) -> float:
    """The importance stored with an observation, else its kind's default (older or backfilled ones)."""
    value = record.extra.get(IMPORTANCE_KEY)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return importance_of(record.kind or str(record.extra.get("kind", "")), record.content)


def compactable(record: MemoryRecord, *, now: datetime, after_hours: float, below: float) -> bool:
    if record.archived or not is_observation(record) or record.counters.uses > 0 or record.created is None:
        return False
    if (record.kind or "") == SUMMARY_KIND:
        return False
    old_enough = (now - record.created).total_seconds() >= after_hours * 3600.0
    return old_enough and stored_importance(record) < below


@dataclass(frozen=True)
class Summary:
    session_id: str
    text: str
    sources: tuple[MemoryRecord, ...]
    created: datetime


def _line(text: str, count: int) -> str:
    one = " ".join(text.split())
    return f"{one} (x{count})" if count > 1 else one


def summaries(session_id: str, records: Sequence[MemoryRecord], max_chars: int) -> list[Summary]:
    """Summary observations covering every record (one session), each within ``max_chars``."""
    ordered = sorted(records, key=lambda r: (r.created_ts, r.id))
    out: list[Summary] = []
    start = 0
    while start < len(ordered):
        counts: dict[str, int] = {}
        end = start
        body = ""
        while end < len(ordered):
            text = " ".join(ordered[end].content.split())
            trial = dict(counts)
            trial[text] = trial.get(text, 0) + 1
            candidate = "; ".join(_line(t, c) for t, c in trial.items())
            if counts and len(candidate) + 120 > max_chars:
                break
            counts, body, end = trial, candidate, end + 1
        chunk = ordered[start:end]
        first, last = chunk[0].created, chunk[-1].created
        span = f"{timefmt.to_iso(first)} to {timefmt.to_iso(last)}" if first and last else "earlier"
        head = f"Session activity, {span} ({len(chunk)} tool observations): "
        created = last or datetime.fromtimestamp(0, UTC)
        out.append(Summary(session_id, (head + body)[:max_chars], tuple(chunk), created))
        start = end
    return out
