"""The consolidation key: a consolidation's merged memory has an id derived from its sources.

Pure module. ``consolidate_memories`` with the same source ids names the same
merged memory, so a client that retries a consolidation (its first call timed
out, or the service was killed mid-way) finds the merged memory it already made instead
of making a second one, and the retry completes whatever the first call left
undone (``usecases.consolidation``).

- The key is a function of the *set* of source ids (order and repeats do not
  matter) and of an ``attempt`` number: a consolidation that was undone keeps its id
  (it stays archived, as the record of the undo), so consolidating the same
  sources again takes the next attempt's id.
- The uid has the service's usual shape (15 decimal digits, ``naming.new_uid``),
  from SHA-256, so merged ids look like any other memory id. The hash's ``mnemex-merge`` prefix
  is part of the key (ids already stored depend on it) and stays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

UID_SPACE = 10**15  # naming.new_uid: 15 decimal digits
MAX_ATTEMPTS = 64  # undone merges of one set of sources that may be redone


def consolidation_uid(source_ids: Iterable[str], attempt: int = 0) -> str:
    """The uid of the merged memory of ``source_ids`` (a set), for the ``attempt``-th merge of that set."""
    if attempt < 0:
        raise ValueError(f"attempt must be 0 or more, not {attempt}")
    members = "\0".join(sorted(set(source_ids)))
    digest = hashlib.sha256(f"mnemex-merge\0{attempt}\0{members}".encode()).digest()
    return f"{int.from_bytes(digest[:8], 'big') % UID_SPACE:015d}"


def same_sources(recorded: Iterable[str], requested: Iterable[str]) -> bool:
    """Whether a merged memory's recorded sources are the requested ones (guards against a uid collision)."""
    return set(recorded) == set(requested)
