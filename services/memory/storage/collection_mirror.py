"""An in-memory mirror of one collection: vectors, records, a text index.

Plain module (numpy). The text index (BM25) and the time cue are handed in
by whoever builds the mirror (``retrieval.lexical``, ``retrieval.query_expansion``),
so storage imports nothing of retrieval.
Chroma stays the system of record; the mirror is a read cache that the
service builds from Chroma on first use and updates on every write it makes.
It exists for speed on the hot path: a Chroma query costs 2-4 ms of fixed
overhead on a 2-core machine and a search touches five collections, while an
exact cosine over a 10k x 384 float32 matrix is one BLAS call of about 1 ms
(and exact, where HNSW is approximate).

Rows are packed: removing a row moves the last row into its slot, so the
matrix never has holes. Archived rows stay (Get and List still show them) but
are masked out of ``nearest`` and the BM25 index.

Beside the vectors the mirror keeps per-row columns that ranking reads, so
the prompt path can estimate every candidate's final rank in numpy
(``retrieval.column_ranking``): the learned score (``ranking.learned_score``
under this mirror's weights), the time recency decays from
(``MemoryRecord.recency_ts``: the latest of creation and last scored use),
and whether the text mentions time. The creation time is a column too, for
time windows (``since_ts``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

import numpy as np

from services.memory.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, RankInput, learned_score
from services.memory.domain.record import MemoryRecord

_GROW = 1.5
_MIN_CAPACITY = 256
_COLUMNS = ("_matrix", "_active", "_created", "_fresh", "_learned", "_cue")  # numpy arrays indexed by slot

TimeCue = Callable[[str], bool]  # does this text place something in time? (retrieval.query_expansion.mentions_time)


class TextIndex(Protocol):
    """A keyword index over the active rows (``retrieval.lexical.LexicalIndex``)."""

    def add(self, doc_id: str, text: str) -> None: ...

    def remove(self, doc_id: str) -> None: ...

    def search_terms(
        self, words: Iterable[str], k: int, weights: dict[str, float] | None = None
    ) -> list[tuple[str, float]]: ...


class CollectionMirror:
    def __init__(
        self,
        collection: str,
        dim: int,
        lexical: TextIndex | None,
        time_cue: TimeCue,
        weights: RankingWeights = DEFAULT_WEIGHTS,
    ) -> None:
        self.collection = collection
        self.dim = dim
        self.lexical = lexical  # a text index over active rows, or None (dense only)
        self.weights = weights
        self._time_cue = time_cue
        self._ids: list[str] = []
        self._records: list[MemoryRecord] = []
        self._slot: dict[str, int] = {}
        self._matrix = np.zeros((_MIN_CAPACITY, dim), dtype=np.float32)
        self._active = np.zeros(_MIN_CAPACITY, dtype=bool)
        self._created = np.zeros(_MIN_CAPACITY, dtype=np.float64)
        self._fresh = np.zeros(_MIN_CAPACITY, dtype=np.float64)  # recency anchor: max(created, last used)
        self._learned = np.zeros(_MIN_CAPACITY, dtype=np.float64)
        self._cue = np.zeros(_MIN_CAPACITY, dtype=bool)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._slot

    def _grow(self) -> None:
        capacity = max(_MIN_CAPACITY, int(len(self._matrix) * _GROW))
        for name in _COLUMNS:
            old = getattr(self, name)
            new = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def _index_text(self, memory_id: str, document: str, active: bool) -> None:
        if self.lexical is None:
            return
        if active:
            self.lexical.add(memory_id, document)
        else:
            self.lexical.remove(memory_id)

    def put(self, record: MemoryRecord, embedding: np.ndarray | None = None) -> None:
        """Insert or replace a row; without ``embedding`` an existing row keeps its vector."""
        memory_id = record.id
        slot = self._slot.get(memory_id)
        if embedding is None:
            if slot is None:
                raise ValueError(f"{memory_id} is not mirrored yet: pass its embedding")
            was_active, old_text = bool(self._active[slot]), self._records[slot].content
        else:
            vector = np.asarray(embedding, dtype=np.float32).reshape(-1)
            if vector.shape != (self.dim,):
                raise ValueError(f"embedding has shape {vector.shape}; the mirror holds dimension {self.dim}")
            norm = float(np.linalg.norm(vector))
            if slot is None:
                if len(self._ids) == len(self._matrix):
                    self._grow()
                slot = len(self._ids)
                self._slot[memory_id] = slot
                self._ids.append(memory_id)
                self._records.append(record)
            was_active, old_text = None, None
            self._matrix[slot] = vector / norm if norm > 0 else vector
        self._records[slot] = record
        active = not record.archived
        self._active[slot] = active
        self._created[slot] = record.created_ts
        self._fresh[slot] = record.recency_ts
        self._learned[slot] = learned_score(RankInput.of(record), self.weights)
        if record.content != old_text:
            self._cue[slot] = self._time_cue(record.content)
        if active != was_active or record.content != old_text:
            self._index_text(memory_id, record.content, active)

    def remove(self, memory_id: str) -> None:
        slot = self._slot.pop(memory_id, None)
        if slot is None:
            return
        last = len(self._ids) - 1
        if slot != last:
            moved = self._ids[last]
            self._ids[slot], self._records[slot] = self._ids[last], self._records[last]
            for name in _COLUMNS:
                column = getattr(self, name)
                column[slot] = column[last]
            self._slot[moved] = slot
        self._ids.pop()
        self._records.pop()
        self._active[last] = False
        if self.lexical is not None:
            self.lexical.remove(memory_id)

    def row(self, memory_id: str) -> MemoryRecord | None:
        slot = self._slot.get(memory_id)
        return None if slot is None else self._records[slot]

    def similarities(self, memory_ids: list[str], vector: np.ndarray) -> list[float]:
        """Cosine of each known id to ``vector``, in one product (ids must be in the mirror)."""
        if not memory_ids:
            return []
        slots = [self._slot[memory_id] for memory_id in memory_ids]
        cosines: list[float] = (self._matrix[slots] @ np.asarray(vector, dtype=np.float32)).tolist()
        return cosines

    def scan(self, vector: np.ndarray, k: int, since_ts: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(cosine of every row, slots of the ``k`` nearest active rows, best first), optionally only
        rows created at or after ``since_ts``."""
        n = len(self._ids)
        sims = self._matrix[:n] @ np.asarray(vector, dtype=np.float32)
        mask = self._active[:n] if since_ts is None else self._active[:n] & (self._created[:n] >= since_ts)
        live = int(np.count_nonzero(mask))
        k = min(k, live)
        if k <= 0:
            return sims, np.zeros(0, dtype=np.intp)
        masked = sims if live == n else np.where(mask, sims, -np.inf)  # usually every row is live: no copy
        top = np.argpartition(masked, n - k)[n - k :] if k < n else np.arange(n)
        return sims, top[np.argsort(-masked[top], kind="stable")]

    def slot_of(self, memory_id: str) -> int | None:
        return self._slot.get(memory_id)

    def rank_columns(self, slots: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """(ids, learned scores, recency anchors, mentions-time flags) of these slots."""
        ids = self._ids
        return [ids[i] for i in slots.tolist()], self._learned[slots], self._fresh[slots], self._cue[slots]

    def nearest(self, vector: np.ndarray, k: int, since_ts: float | None = None) -> list[tuple[MemoryRecord, float]]:
        """Top ``k`` active rows by exact cosine (best first), optionally created at or after ``since_ts``."""
        sims, top = self.scan(vector, k, since_ts)
        records = self._records
        return [(records[i], score) for i, score in zip(top.tolist(), sims[top].tolist(), strict=True)]

    def active_rows(self) -> tuple[list[MemoryRecord], np.ndarray]:
        """Every active row and its unit vector (a copy, safe to use after the lock is released)."""
        slots = np.flatnonzero(self._active[: len(self._ids)])
        return [self._records[i] for i in slots.tolist()], self._matrix[slots].copy()

    def rows_since(self, since_ts: float | None) -> Iterator[MemoryRecord]:
        """Active rows, optionally only those created at or after ``since_ts``."""
        for slot, record in enumerate(self._records):
            if self._active[slot] and (since_ts is None or self._created[slot] >= since_ts):
                yield record
