"""Retrieval's indexes over a mirror's text: the BM25 keyword index and the time cues.

Plain module. The mirror (``storage.collection_mirror``) holds the vectors and
rank columns of a collection; what retrieval derives from the text lives here,
one ``MirrorText`` per mirror:

- ``lexical``: a ``LexicalIndex`` over the active rows (None in ``dense`` mode);
- ``cues``: whether each active row's text mentions time (``query_expansion.mentions_time``).

``MirrorTexts.synced(mirror)`` brings a mirror's text up to date before it is
read, from the mirror's change feed (``changes_since``): every write reaches
the mirror, and every change of the mirror is in the feed, so no write path can
be missed. A reader further behind than the feed reaches (a mirror just built,
a burst of writes) reconciles with the mirror's rows: only the texts that
differ are indexed again. ``behind`` tells the searcher when a mirror's text is
far enough behind (a bulk write: a backfill, an import) to catch up on a worker
thread rather than on the event loop. The caller holds the
mirror's lock (``Mirrors.read``), so one mirror's text is synced by one thread
at a time. The data flows down: retrieval reads storage; storage never calls
retrieval.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from services.memory.domain.arrays import Mask
from services.memory.retrieval.lexical import LexicalIndex
from services.memory.retrieval.query_expansion import mentions_time
from services.memory.storage.collection_mirror import CollectionMirror


class MirrorText:
    """The BM25 index and time cues of one mirror's active rows, as of ``version``."""

    __slots__ = ("_texts", "cues", "lexical", "version")

    def __init__(self, lexical: LexicalIndex | None) -> None:
        self.lexical = lexical
        self.cues: dict[str, bool] = {}  # active row id -> its text mentions time
        self.version = -1  # the mirror version this text reflects; -1: never synced
        self._texts: dict[str, str] = {}  # active row id -> the text indexed for it

    def sync(self, mirror: CollectionMirror) -> None:
        """Apply the mirror's changes since the last sync (or rebuild when the feed no longer reaches back)."""
        if self.version == mirror.version:
            return
        changed = mirror.changes_since(self.version) if self.version >= 0 else None
        if changed is None:
            self._reconcile(mirror)
        else:
            for memory_id in dict.fromkeys(changed):
                record = mirror.row(memory_id)
                if record is None or record.archived:
                    self._drop(memory_id)
                else:
                    self._index(memory_id, record.content)
        self.version = mirror.version

    def _reconcile(self, mirror: CollectionMirror) -> None:
        """Match the mirror's active rows: drop the ids gone, index the texts new or changed, keep the rest."""
        active = {record.id: record.content for record in mirror.records() if not record.archived}
        for memory_id in [memory_id for memory_id in self._texts if memory_id not in active]:
            self._drop(memory_id)
        for memory_id, text in active.items():
            self._index(memory_id, text)

    def _index(self, memory_id: str, text: str) -> None:
        if self._texts.get(memory_id) == text:
            return
        self._texts[memory_id] = text
        self.cues[memory_id] = mentions_time(text)
        if self.lexical is not None:
            self.lexical.add(memory_id, text)

    def _drop(self, memory_id: str) -> None:
        if self._texts.pop(memory_id, None) is None:
            return
        del self.cues[memory_id]
        if self.lexical is not None:
            self.lexical.remove(memory_id)

    def search_terms(self, terms: list[str], k: int) -> list[tuple[str, float]]:
        """The BM25 top ``k`` (id, score) for these terms; none in dense mode."""
        return self.lexical.search_terms(terms, k) if terms and self.lexical is not None else []

    def cue_column(self, ids: list[str]) -> Mask:
        """Whether each of these ids' text mentions time, as a column."""
        cues = self.cues
        return np.array([cues.get(memory_id, False) for memory_id in ids], dtype=bool)


class MirrorTexts:
    """One ``MirrorText`` per live mirror (a rebuilt mirror gets a new one; a dropped one's goes with it)."""

    def __init__(self, *, lexical: bool) -> None:
        self.lexical = lexical  # False: dense mode, no keyword index
        self._texts: weakref.WeakKeyDictionary[CollectionMirror, MirrorText] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()

    def behind(self, mirror: CollectionMirror) -> int:
        """How many changes ``mirror``'s text has yet to apply (read without the mirror's lock: an estimate)."""
        text = self._texts.get(mirror)
        return mirror.version + 1 if text is None or text.version < 0 else mirror.version - text.version

    def synced(self, mirror: CollectionMirror) -> MirrorText:
        """``mirror``'s text, brought up to date (the caller holds the mirror's lock)."""
        text = self._texts.get(mirror)
        if text is None:
            with self._guard:
                text = self._texts.setdefault(mirror, MirrorText(LexicalIndex() if self.lexical else None))
        text.sync(mirror)
        return text
