"""Supersession's index: a collection's active memory_bank facts by conflict term, kept beside its mirror.

A memory_bank write asks which older facts it may supersede. Reading every
active fact and comparing each (and, before, flagging facts of other subjects
with one Chroma update each) made an add cost grow with the bank: 86 ms at the
first facts, about 6 s at 250. Two facts can conflict only when they share a
term of ``fact_slots.conflict_terms`` (the same ``fact_keys`` entity and
attribute, or the same kind of setting with a shared subject word,
``fact_subjects.index_terms``), so ``FactSubjectIndex`` files each active fact
under its terms and a write reads only the facts filed under its own.

The index is derived from the collection's mirror (``storage.collection_mirror``),
which the store builds from Chroma on first read (so a restart rebuilds it) and
updates on every write the service makes. Like retrieval's text indexes
(``retrieval.mirror_text``) it syncs from the mirror's change feed before each
read: adds, new wordings, archives, restores, moves, deletes and imports all reach
it, whatever use case made them; a reader further behind than the feed reaches
reconciles with the mirror's rows. It is read and synced while the mirror's lock
is held (``Mirrors.read``), on a worker thread, never on the event loop.

``active_fact_count`` gives the memory_bank cap its count from the same index
(it was a Chroma read of every fact's metadata on each add). Both run on
asyncio's default thread pool: supersession is called with the store alone.

One ``FactSubjectIndex`` per live mirror, held weakly (``FACT_INDEXES``): a
mirror rebuilt gets a new index, a dropped one's goes with it. It is the
mirror's derived state, shared by every write path that reaches supersession
with the store it writes to.
"""

from __future__ import annotations

import asyncio
import threading
import weakref

from services.memory.domain.fact_slots import conflict_terms
from services.memory.domain.naming import MEMORY_BANK, Scope
from services.memory.domain.record import MemoryRecord
from services.memory.storage.collection_mirror import CollectionMirror
from services.memory.storage.memory_store import MemoryStore


class FactSubjectIndex:
    """The active facts of one mirror, by ``conflict_terms``, as of ``version``."""

    __slots__ = ("_filed", "_terms", "version")

    def __init__(self) -> None:
        self._terms: dict[str, set[str]] = {}  # term -> ids of the active facts filed under it
        self._filed: dict[str, tuple[str, frozenset[str]]] = {}  # id -> (the text filed, its terms)
        self.version = -1  # the mirror version this index reflects; -1: never synced

    def __len__(self) -> int:
        return len(self._filed)

    def sync(self, mirror: CollectionMirror) -> None:
        """Refile what changed in the mirror since the last sync (the caller holds the mirror's lock)."""
        if self.version == mirror.version:
            return
        for memory_id, record in self._changed_rows(mirror).items():
            if record is None or record.archived:
                self._drop(memory_id)
            else:
                self._file(memory_id, record.content)
        self.version = mirror.version

    def _changed_rows(self, mirror: CollectionMirror) -> dict[str, MemoryRecord | None]:
        """Each id to refile, with its row now (None: gone): the ids of the mirror's change feed since
        the last sync, or, when the feed no longer reaches back (or never synced), every id filed or mirrored."""
        feed = mirror.changes_since(self.version) if self.version >= 0 else None
        ids = feed if feed is not None else [*self._filed, *(record.id for record in mirror.records())]
        return {memory_id: mirror.row(memory_id) for memory_id in ids}

    def _file(self, memory_id: str, text: str) -> None:
        filed = self._filed.get(memory_id)
        if filed is not None and filed[0] == text:
            return
        if filed is not None:
            self._drop(memory_id)
        terms = conflict_terms(text)
        self._filed[memory_id] = (text, terms)
        for term in terms:
            self._terms.setdefault(term, set()).add(memory_id)

    def _drop(self, memory_id: str) -> None:
        filed = self._filed.pop(memory_id, None)
        if filed is None:
            return
        for term in filed[1]:
            ids = self._terms[term]
            ids.discard(memory_id)
            if not ids:
                del self._terms[term]

    def related(self, text: str) -> list[str]:
        """Ids of the active facts filed under a term of ``text``: every fact it may conflict with."""
        found: dict[str, None] = {}
        for term in sorted(conflict_terms(text)):
            found.update(dict.fromkeys(sorted(self._terms.get(term, ()))))
        return list(found)


class FactSubjectIndexes:
    """One ``FactSubjectIndex`` per live mirror."""

    def __init__(self) -> None:
        self._indexes: weakref.WeakKeyDictionary[CollectionMirror, FactSubjectIndex] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()

    def synced(self, mirror: CollectionMirror) -> FactSubjectIndex:
        """``mirror``'s index, brought up to date (the caller holds the mirror's lock)."""
        index = self._indexes.get(mirror)
        if index is None:
            with self._guard:
                index = self._indexes.setdefault(mirror, FactSubjectIndex())
        index.sync(mirror)
        return index


FACT_INDEXES = FactSubjectIndexes()


def _related(store: MemoryStore, scope: Scope, text: str) -> list[MemoryRecord]:
    with store.mirrors.read(scope, MEMORY_BANK) as mirror:
        index = FACT_INDEXES.synced(mirror)
        rows = (mirror.row(memory_id) for memory_id in index.related(text))
        return [row for row in rows if row is not None and not row.archived]


async def related_facts(store: MemoryStore, scope: Scope, text: str) -> list[MemoryRecord]:
    """The scope's active memory_bank facts that may conflict with a fact stating ``text``
    (they share a ``conflict_terms`` term), from the index, on a worker thread."""
    return await asyncio.to_thread(_related, store, scope, text)


def _active_count(store: MemoryStore, scope: Scope) -> int:
    with store.mirrors.read(scope, MEMORY_BANK) as mirror:
        return len(FACT_INDEXES.synced(mirror))


async def active_fact_count(store: MemoryStore, scope: Scope) -> int:
    """How many active memory_bank facts the scope's collection holds (the cap counts them), from the index."""
    return await asyncio.to_thread(_active_count, store, scope)
