"""How the viewer writes numbers, times and matches for people: Jinja filters, plain functions.

- ``when(iso)``: a ``<time>`` element reading "3 h ago", the exact UTC time in its
  ``title`` (shown on hover) and ``datetime`` attribute;
- ``spelled_outcomes("[YY~]")``: the mark codes as words ("worked, worked, partial");
- ``highlight(text, query)``: the text escaped, each query word it contains wrapped
  in ``<mark>``; the only markup in the result is the viewer's own ``<mark>``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from markupsafe import Markup, escape

MARK_WORDS = {"Y": "worked", "~": "partial", "?": "unknown", "N": "failed"}
CLIENT_NAMES = {"claude": "Claude Code", "cursor": "Cursor", "opencode": "OpenCode"}
MIN_TERM = 2
MAX_TERMS = 12
UNITS = ((86400 * 365, "y"), (86400 * 30, "mo"), (86400 * 7, "w"), (86400, "d"), (3600, "h"), (60, "min"))


def parse_time(iso: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(iso.strip())
    except (ValueError, AttributeError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def relative(moment: datetime, now: datetime | None = None) -> str:
    seconds = int(((now or datetime.now(UTC)) - moment).total_seconds())
    if seconds < 0:
        return "just now" if seconds > -60 else "in the future"
    for size, unit in UNITS:
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"


def when(at: str | float, now: datetime | None = None) -> Markup:
    """An ISO time, or seconds since the epoch (0: not known), as "3 hours ago" with the exact time on hover."""
    moment = parse_time(at) if isinstance(at, str) else (datetime.fromtimestamp(at, UTC) if at > 0 else None)
    if moment is None:
        return Markup("<span>{}</span>").format(at or "—")
    exact = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return Markup('<time datetime="{}" title="{}">{}</time>').format(moment.isoformat(), exact, relative(moment, now))


def spelled_outcomes(history: str) -> str:
    """``"[YY~]"`` -> ``"worked, worked, partial"`` (oldest first); ``""`` -> ``"never scored"``."""
    marks = history.strip().strip("[]")
    if not marks:
        return "never scored"
    return ", ".join(MARK_WORDS.get(mark, f"code {mark!r}") for mark in marks)


def query_terms(query: str) -> list[str]:
    words = {w.lower() for w in re.findall(r"\w+", query) if len(w) >= MIN_TERM}
    return sorted(words, key=lambda w: (-len(w), w))[:MAX_TERMS]


def highlight(text: str, query: str) -> Markup:
    terms = query_terms(query)
    if not terms:
        return escape(text)
    pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in terms) + r")", re.IGNORECASE)
    out = Markup("")
    last = 0
    for match in pattern.finditer(text):
        out += escape(text[last : match.start()]) + Markup("<mark>{}</mark>").format(match.group(0))
        last = match.end()
    return out + escape(text[last:])


def client_name(client: str) -> str:
    """A client as people call it ("claude" -> "Claude Code"); "" when the turn did not say."""
    return CLIENT_NAMES.get(client, client)


def clipped(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


def plain_value(value: object) -> Markup:
    """A metadata value for people: a time as ``when``, yes / no, a list joined; always escaped."""
    if isinstance(value, bool):
        return Markup("yes") if value else Markup("no")
    if isinstance(value, str) and ISO_TIME.match(value):
        return when(value)
    if isinstance(value, list):
        return escape(", ".join(str(v) for v in value) or "—")
    return escape("—" if value in (None, "") else str(value))
