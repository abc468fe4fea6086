"""Timestamps: one ISO-8601 UTC format on write, tolerant parsing on read.

Stored ``created_at`` values look like ``2025-02-07T15:42:00+00:00``. Older
or imported data may carry naive timestamps or only a ``timestamp`` field;
``parse`` treats naive values as UTC and returns ``None`` for garbage.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

SECONDS_PER_DAY = 86_400.0


def now() -> datetime:
    return datetime.now(UTC)


def to_iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def parse(value: object) -> datetime | None:
    """A timezone-aware datetime from an ISO string or epoch number, else None."""
    if isinstance(value, bool) or value is None or value == "":
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def age_days(created: datetime | None, at: datetime) -> float:
    """Days between ``created`` and ``at`` (0 when unknown or in the future)."""
    if created is None:
        return 0.0
    return max(0.0, (at - created).total_seconds() / SECONDS_PER_DAY)


def humanize_age(created: datetime | None, at: datetime) -> str:
    """Compact relative age: ``now``, ``5m``, ``3h``, ``2d``, ``6w``, ``4mo``, ``2y``; empty if unknown."""
    if created is None:
        return ""
    seconds = max(0.0, (at - created).total_seconds())
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < SECONDS_PER_DAY:
        return f"{int(seconds // 3600)}h"
    days = seconds / SECONDS_PER_DAY
    if days < 14:
        return f"{int(days)}d"
    if days < 60:
        return f"{int(days // 7)}w"
    if days < 365:
        return f"{int(days // 30)}mo"
    return f"{int(days // 365)}y"


class Clock:
    """The service's "now", shared by every component; a test may swap ``source`` to move time."""

    def __init__(self, source: Callable[[], datetime] = now) -> None:
        self.source = source

    def __call__(self) -> datetime:
        return self.source()
