"""One in-memory BM25 index per Chroma collection, kept in step with the store.

Plain module. An index is built lazily from the store on the first lexical
search of its collection (``loader`` returns the non-archived documents), then
updated on every add, update, archive, delete and move. Building and updating
share one lock per index, so a write racing a build is never lost: either the
build's read of the store already sees it, or the update lands after the build.

If ``services.memory.lexical`` cannot be imported, or the retrieval mode is
``dense``, every call is a no-op and search falls back to dense retrieval only.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from services.memory.naming import Scope, chroma_name

log = logging.getLogger("mnemex.memory.lexical")

Loader = Callable[[Scope, str], list[tuple[str, str]]]


def _lexical_class() -> Any | None:
    try:
        from services.memory.lexical import LexicalIndex
    except ImportError as exc:  # the seam degrades to dense-only retrieval
        log.warning("lexical index unavailable (%s); search runs dense-only", exc)
        return None
    return LexicalIndex


class _Entry:
    __slots__ = ("index", "lock")

    def __init__(self) -> None:
        self.index: Any | None = None
        self.lock = threading.Lock()


class LexicalIndexes:
    def __init__(self, loader: Loader, enabled: bool = True) -> None:
        self._loader = loader
        self._factory = _lexical_class() if enabled else None
        self._entries: dict[str, _Entry] = {}
        self._guard = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self._factory is not None

    def _entry(self, scope: Scope, collection: str) -> _Entry:
        key = chroma_name(scope.owner_of(collection), collection)
        entry = self._entries.get(key)
        if entry is None:
            with self._guard:
                entry = self._entries.setdefault(key, _Entry())
        return entry

    def search(self, scope: Scope, collection: str, query: str, k: int) -> list[tuple[str, float]]:
        if self._factory is None or not query.strip():
            return []
        entry = self._entry(scope, collection)
        with entry.lock:
            if entry.index is None:
                index = self._factory()
                for doc_id, text in self._loader(scope, collection):
                    index.add(doc_id, text)
                entry.index = index
            index = entry.index
        return list(index.search(query, k))

    def add(self, scope: Scope, collection: str, doc_id: str, text: str) -> None:
        if self._factory is None:
            return
        entry = self._entry(scope, collection)
        with entry.lock:
            if entry.index is not None:
                entry.index.add(doc_id, text)

    def remove(self, scope: Scope, collection: str, doc_id: str) -> None:
        if self._factory is None:
            return
        entry = self._entry(scope, collection)
        with entry.lock:
            if entry.index is not None:
                entry.index.remove(doc_id)

    def size(self, scope: Scope, collection: str) -> int | None:
        """Documents indexed, or None while the index is not built yet."""
        entry = self._entry(scope, collection)
        return None if entry.index is None else len(entry.index)
