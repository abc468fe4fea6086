"""An in-memory mirror of one collection: vectors, documents, metadata, BM25.

Plain module (numpy; the BM25 index comes from ``services.memory.lexical``).
Chroma stays the system of record; the mirror is a read cache that the
service builds from Chroma on first use and updates on every write it makes.
It exists for speed on the hot path: a Chroma query costs 2-4 ms of fixed
overhead on a 2-core machine and a search touches five collections, while an
exact cosine over a 10k x 384 float32 matrix is one BLAS call of about 1 ms
(and exact, where HNSW is approximate).

Rows are packed: removing a row moves the last row into its slot, so the
matrix never has holes. Archived rows stay (Get and List still show them) but
are masked out of ``nearest`` and the BM25 index.

Beside the vectors the mirror keeps three per-row columns that ranking reads,
so the prompt path can estimate every candidate's final rank in numpy
(``prompt_search``): the learned score (``ranking.learned_score`` under this
mirror's weights), the creation time, and whether the text mentions time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from services.memory.normalize import RankFacts, as_bool, rank_facts
from services.memory.query_expansion import mentions_time
from services.memory.ranking import DEFAULT_WEIGHTS, RankingWeights, RankInput, learned_score

_GROW = 1.5
_MIN_CAPACITY = 256
_COLUMNS = ("_matrix", "_active", "_created", "_learned", "_cue")  # numpy arrays indexed by slot


class MirrorRow(NamedTuple):
    """One row as search reads it (a tuple: built per candidate, so it must be cheap)."""

    id: str
    document: str
    metadata: dict[str, Any]  # the mirror's own dict: read it, never change it
    facts: RankFacts


class CollectionMirror:
    def __init__(
        self, collection: str, dim: int, lexical: Any | None = None, weights: RankingWeights = DEFAULT_WEIGHTS
    ) -> None:
        self.collection = collection
        self.dim = dim
        self.lexical = lexical  # a LexicalIndex over active rows, or None (dense only)
        self.weights = weights
        self._ids: list[str] = []
        self._docs: list[str] = []
        self._metas: list[dict[str, Any]] = []
        self._facts: list[RankFacts] = []
        self._slot: dict[str, int] = {}
        self._matrix = np.zeros((_MIN_CAPACITY, dim), dtype=np.float32)
        self._active = np.zeros(_MIN_CAPACITY, dtype=bool)
        self._created = np.zeros(_MIN_CAPACITY, dtype=np.float64)
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

    def put(self, memory_id: str, document: str, metadata: dict[str, Any], embedding: np.ndarray) -> None:
        """Insert or replace a row."""
        vector = np.asarray(embedding, dtype=np.float32).reshape(-1)
        if vector.shape != (self.dim,):
            raise ValueError(f"embedding has shape {vector.shape}; the mirror holds dimension {self.dim}")
        norm = float(np.linalg.norm(vector))
        slot = self._slot.get(memory_id)
        if slot is None:
            if len(self._ids) == len(self._matrix):
                self._grow()
            slot = len(self._ids)
            self._slot[memory_id] = slot
            self._ids.append(memory_id)
            self._docs.append(document)
            self._metas.append(dict(metadata))
            self._facts.append(rank_facts(self.collection, metadata))
        else:
            self._docs[slot] = document
            self._metas[slot] = dict(metadata)
            self._facts[slot] = rank_facts(self.collection, metadata)
        self._matrix[slot] = vector / norm if norm > 0 else vector
        active = not as_bool(metadata.get("archived", False))
        self._active[slot] = active
        self._set_rank_columns(slot)
        self._cue[slot] = mentions_time(document)
        self._index_text(memory_id, document, active)

    def _set_rank_columns(self, slot: int) -> None:
        facts = self._facts[slot]
        counters = facts.counters
        self._created[slot] = facts.created_ts
        self._learned[slot] = learned_score(RankInput(
            facts.collection, counters.score, counters.uses, counters.success_count, 0.0,
            facts.importance, facts.confidence,
        ), self.weights)

    def patch(self, memory_id: str, changes: dict[str, Any], document: str | None = None,
              embedding: np.ndarray | None = None) -> None:
        """Merge metadata changes (and replace text / vector when given); unknown ids are ignored."""
        slot = self._slot.get(memory_id)
        if slot is None:
            return
        metadata = {**self._metas[slot], **changes}
        if embedding is not None:
            self.put(memory_id, document if document is not None else self._docs[slot], metadata, embedding)
            return
        self._metas[slot] = metadata
        self._facts[slot] = rank_facts(self.collection, metadata)
        active = not as_bool(metadata.get("archived", False))
        was_active = bool(self._active[slot])
        self._active[slot] = active
        self._set_rank_columns(slot)
        if document is not None:
            self._docs[slot] = document
            self._cue[slot] = mentions_time(document)
        if active != was_active or document is not None:
            self._index_text(memory_id, self._docs[slot], active)

    def remove(self, memory_id: str) -> None:
        slot = self._slot.pop(memory_id, None)
        if slot is None:
            return
        last = len(self._ids) - 1
        if slot != last:
            moved = self._ids[last]
            self._ids[slot], self._docs[slot], self._metas[slot] = self._ids[last], self._docs[last], self._metas[last]
            self._facts[slot] = self._facts[last]
            for name in _COLUMNS:
                column = getattr(self, name)
                column[slot] = column[last]
            self._slot[moved] = slot
        self._ids.pop()
        self._docs.pop()
        self._metas.pop()
        self._facts.pop()
        self._active[last] = False
        if self.lexical is not None:
            self.lexical.remove(memory_id)

    def row(self, memory_id: str) -> MirrorRow | None:
        slot = self._slot.get(memory_id)
        if slot is None:
            return None
        return MirrorRow(memory_id, self._docs[slot], self._metas[slot], self._facts[slot])

    def similarities(self, memory_ids: list[str], vector: np.ndarray) -> list[float]:
        """Cosine of each known id to ``vector``, in one product (ids must be in the mirror)."""
        if not memory_ids:
            return []
        slots = [self._slot[memory_id] for memory_id in memory_ids]
        return (self._matrix[slots] @ np.asarray(vector, dtype=np.float32)).tolist()  # type: ignore[no-any-return]

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
        """(ids, learned scores, creation times, mentions-time flags) of these slots."""
        ids = self._ids
        return [ids[i] for i in slots.tolist()], self._learned[slots], self._created[slots], self._cue[slots]

    def nearest(self, vector: np.ndarray, k: int, since_ts: float | None = None) -> list[tuple[MirrorRow, float]]:
        """Top ``k`` active rows by exact cosine (best first), optionally created at or after ``since_ts``."""
        sims, top = self.scan(vector, k, since_ts)
        ids, docs, metas, facts = self._ids, self._docs, self._metas, self._facts
        return [
            (MirrorRow(ids[i], docs[i], metas[i], facts[i]), score)
            for i, score in zip(top.tolist(), sims[top].tolist(), strict=True)
        ]

    def rows_since(self, since_ts: float | None) -> Iterator[MirrorRow]:
        """Active rows, optionally only those created at or after ``since_ts``."""
        for slot, memory_id in enumerate(self._ids):
            if self._active[slot] and (since_ts is None or self._created[slot] >= since_ts):
                yield MirrorRow(memory_id, self._docs[slot], self._metas[slot], self._facts[slot])
