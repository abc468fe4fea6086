"""The registry of collection mirrors: built lazily, kept in step with every write.

Plain module. One ``CollectionMirror`` per Chroma collection (owner scope +
collection). The first read of a collection builds its mirror from the store
(``loader`` returns every record with its embedding); afterwards
``memory_store`` reports each add, change and removal it makes. Building and updating share one
lock per mirror, so a write racing a build is never lost: either the build's
read of the store already sees it, or the update lands after the build.

Readers that keep their own index of a mirror (retrieval's BM25 index and time
cues) sync it from the mirror's change feed while they hold its lock.

``ann_min_rows`` is handed to every mirror: from that many active rows on, its
nearest-row queries go through an approximate index (``storage.ann_index``) and
are re-scored exactly; 0 keeps every mirror on exact scans.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from services.memory.domain.arrays import Vector
from services.memory.domain.naming import Scope
from services.memory.domain.ranking import DEFAULT_WEIGHTS, RankingWeights
from services.memory.domain.record import MemoryRecord
from services.memory.storage.collection_mirror import CollectionMirror

# (scope, collection) -> [(record, embedding)]
Loader = Callable[[Scope, str], list[tuple[MemoryRecord, Vector]]]


class _Entry:
    __slots__ = ("lock", "mirror")

    def __init__(self) -> None:
        self.mirror: CollectionMirror | None = None
        self.lock = threading.Lock()


class Mirrors:
    def __init__(
        self,
        loader: Loader,
        dim: int,
        *,
        weights: RankingWeights = DEFAULT_WEIGHTS,
        ann_min_rows: int = 0,
    ) -> None:
        self._loader = loader
        self._ann_min_rows = ann_min_rows
        self._dim = dim
        self._weights = weights
        self._entries: dict[tuple[Scope, str], _Entry] = {}
        self._guard = threading.Lock()

    def _entry(self, scope: Scope, collection: str) -> _Entry:
        key = (scope.owner_of(collection), collection)
        entry = self._entries.get(key)
        if entry is None:
            with self._guard:
                entry = self._entries.setdefault(key, _Entry())
        return entry

    @contextlib.contextmanager
    def read(self, scope: Scope, collection: str) -> Iterator[CollectionMirror]:
        """The collection's mirror (built now if needed), locked while the caller reads it."""
        entry = self._entry(scope, collection)
        with entry.lock:
            if entry.mirror is None:
                mirror = CollectionMirror(
                    collection,
                    self._dim,
                    self._weights,
                    self._ann_min_rows,
                )
                for record, embedding in self._loader(scope, collection):
                    mirror.put(record, embedding)
                mirror.index_if_large()  # here, off the event loop, rather than on the first query
                entry.mirror = mirror
            yield entry.mirror

    def warm(self, scope: Scope, collection: str) -> None:
        with self.read(scope, collection):
            pass

    def _update(self, scope: Scope, collection: str, change: Callable[[CollectionMirror], None]) -> None:
        entry = self._entry(scope, collection)
        with entry.lock:
            if entry.mirror is not None:
                change(entry.mirror)

    def put(self, scope: Scope, record: MemoryRecord, embedding: Vector | None = None) -> None:
        """Insert or replace a row of a built mirror (without ``embedding``: a row it already holds)."""

        def change(mirror: CollectionMirror) -> None:
            if embedding is not None or record.id in mirror:
                mirror.put(record, embedding)

        self._update(scope, record.collection, change)

    def remove(self, scope: Scope, collection: str, memory_id: str) -> None:
        self._update(scope, collection, lambda m: m.remove(memory_id))

    def lookup(self, scope: Scope, collection: str, memory_id: str) -> tuple[bool, MemoryRecord | None]:
        """(mirror usable?, the row if present). Never builds and never waits.

        Called from the event loop: if the mirror is being built (or written)
        right now it reports "not usable" and the caller reads the store instead.
        """
        entry = self._entry(scope, collection)
        if not entry.lock.acquire(blocking=False):
            return False, None
        try:
            if entry.mirror is None:
                return False, None
            return True, entry.mirror.row(memory_id)
        finally:
            entry.lock.release()

    def peek(self, scope: Scope, collection: str) -> CollectionMirror | None:
        """The collection's mirror if built, without its lock: for a glance at its version, never its rows."""
        return self._entry(scope, collection).mirror

    def built(self, scope: Scope, collection: str) -> bool:
        return self.peek(scope, collection) is not None

    def all_built(self, scope: Scope, collections: tuple[str, ...]) -> bool:
        return all(self.built(scope, c) for c in collections)

    def rows(self) -> int:
        return sum(len(e.mirror) for e in list(self._entries.values()) if e.mirror is not None)
