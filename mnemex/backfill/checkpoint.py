"""What earlier backfill runs sent, per source: ``<MNEMEX_HOME>/backfill/checkpoint.json``.

Per source key: the ``fingerprint`` and ``size`` it had, the ``filters`` of
that run (``""`` for none), how many of its exchanges (in reading order,
filtered-out ones included) were ``sent``, and whether it was ``complete``.

- An unchanged, complete source is skipped without being read.
- A source that only grew (same or larger size) resumes after the exchanges
  already sent; one that shrank or was rewritten is read from the start.
- Progress recorded under other filters does not count, except a run without
  filters, which covers every later filtered run.

The server's idempotency (ids derived from ``source_id``) is the safety net:
re-sending an exchange stores nothing twice.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from kernel.json_values import as_object, bool_at, int_at, object_at, parse_value

VERSION = 1
FIELDS = {"fingerprint", "size", "filters", "sent", "complete"}  # what a source's entry must hold to be kept


@dataclass
class Progress:
    fingerprint: str
    size: int
    filters: str
    sent: int
    complete: bool


class Checkpoint:
    def __init__(self, path: Path, entries: dict[str, Progress] | None = None) -> None:
        self.path = path
        self.entries: dict[str, Progress] = entries or {}

    @classmethod
    def load(cls, path: Path) -> Checkpoint:
        """The saved checkpoint; an empty one when there is none or it is unreadable."""
        try:
            raw = as_object(parse_value(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return cls(path)
        entries: dict[str, Progress] = {}
        sources = object_at(raw, "sources") if raw.get("version") == VERSION else {}
        for key, value in sources.items():
            entry = as_object(value)
            fingerprint, filters = entry.get("fingerprint"), entry.get("filters")
            if not isinstance(fingerprint, str) or not isinstance(filters, str) or not entry.keys() >= FIELDS:
                continue  # a damaged entry: that source is read again
            entries[key] = Progress(
                fingerprint, int_at(entry, "size"), filters, int_at(entry, "sent"), bool_at(entry, "complete")
            )
        return cls(path, entries)

    def is_done(self, key: str, fingerprint: str, filters: str) -> bool:
        """True when ``key`` was read to its end, unchanged since, under these filters or none."""
        entry = self.entries.get(key)
        return bool(entry and entry.complete and entry.fingerprint == fingerprint and entry.filters in ("", filters))

    def resume_at(self, key: str, size: int, filters: str) -> int:
        """How many of the source's exchanges were already sent (0: read it all)."""
        entry = self.entries.get(key)
        if entry is None or entry.filters not in ("", filters) or size < entry.size:
            return 0
        return entry.sent

    def record(self, key: str, *, fingerprint: str, size: int, filters: str, sent: int, complete: bool) -> None:
        known = self.entries.get(key)
        if known is not None and known.filters == "" and filters != "" and known.fingerprint == fingerprint:
            return  # an unfiltered record already covers this filtered run
        self.entries[key] = Progress(fingerprint, size, filters, sent, complete)

    def save(self) -> None:
        """Write atomically (a temporary file renamed over the old one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        document: dict[str, object] = {
            "version": VERSION,
            "sources": {key: asdict(value) for key, value in sorted(self.entries.items())},
        }
        handle, temporary = tempfile.mkstemp(prefix=".checkpoint-", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=1)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
