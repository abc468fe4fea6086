"""What every use case that writes memory content is built from, as one value.

``MemoryWrites``, ``ObservationCompaction`` and ``Consolidation`` each store new
content: they need the store, the ``Vectors`` that embed it, the per-key locks
that order writes to one collection or memory, and the service's clock. The
composition root builds one ``ContentWrites`` and hands it to each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from services.memory.retrieval.embedding_calls import Vectors
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore


@dataclass(frozen=True)
class ContentWrites:
    store: MemoryStore
    vectors: Vectors
    locks: KeyedLocks
    clock: Callable[[], datetime]
