"""The registry of collection mirrors: built lazily, kept in step with every write.

Plain module. One ``CollectionMirror`` per Chroma collection (owner scope +
collection). The first read of a collection builds its mirror from the store
(``loader`` returns every memory with its embedding); afterwards the runtime
reports each add, patch and removal it makes. Building and updating share one
lock per mirror, so a write racing a build is never lost: either the build's
read of the store already sees it, or the update lands after the build.

The BM25 index lives inside the mirror. If ``services.memory.lexical`` cannot
be imported, or the retrieval mode is ``dense``, mirrors carry no lexical
index and search is dense-only.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from services.memory.mirror import CollectionMirror, MirrorRow
from services.memory.naming import Scope
from services.memory.ranking import DEFAULT_WEIGHTS, RankingWeights

log = logging.getLogger("mnemex.memory.mirrors")

# (scope, collection) -> [(id, document, metadata, embedding)]
Loader = Callable[[Scope, str], list[tuple[str, str, dict[str, Any], np.ndarray]]]


def _lexical_factory(enabled: bool) -> Callable[[], Any] | None:
    if not enabled:
        return None
    try:
        from services.memory.lexical import LexicalIndex
    except ImportError as exc:  # the seam degrades to dense-only retrieval
        log.warning("lexical index unavailable (%s); search runs dense-only", exc)
        return None
    return LexicalIndex


class _Entry:
    __slots__ = ("lock", "mirror")

    def __init__(self) -> None:
        self.mirror: CollectionMirror | None = None
        self.lock = threading.Lock()


class Mirrors:
    def __init__(self, loader: Loader, dim: int, lexical: bool = True, weights: RankingWeights = DEFAULT_WEIGHTS) -> None:
        self._loader = loader
        self._dim = dim
        self._weights = weights
        self._lexical = _lexical_factory(lexical)
        self._entries: dict[tuple[Scope, str], _Entry] = {}
        self._guard = threading.Lock()

    @property
    def lexical_enabled(self) -> bool:
        return self._lexical is not None

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
                    collection, self._dim, self._lexical() if self._lexical else None, self._weights
                )
                for memory_id, document, metadata, embedding in self._loader(scope, collection):
                    mirror.put(memory_id, document, metadata, embedding)
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

    def put(self, scope: Scope, collection: str, memory_id: str, document: str, metadata: dict[str, Any],
            embedding: np.ndarray) -> None:
        self._update(scope, collection, lambda m: m.put(memory_id, document, metadata, embedding))

    def patch(self, scope: Scope, collection: str, memory_id: str, changes: dict[str, Any],
              document: str | None = None, embedding: np.ndarray | None = None) -> None:
        self._update(scope, collection, lambda m: m.patch(memory_id, changes, document, embedding))

    def remove(self, scope: Scope, collection: str, memory_id: str) -> None:
        self._update(scope, collection, lambda m: m.remove(memory_id))

    def lookup(self, scope: Scope, collection: str, memory_id: str) -> tuple[bool, MirrorRow | None]:
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

    def built(self, scope: Scope, collection: str) -> bool:
        return self._entry(scope, collection).mirror is not None

    def all_built(self, scope: Scope, collections: tuple[str, ...]) -> bool:
        return all(self.built(scope, c) for c in collections)

    def rows(self) -> int:
        return sum(len(e.mirror) for e in list(self._entries.values()) if e.mirror is not None)
