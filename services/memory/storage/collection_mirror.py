"""An in-memory mirror of one collection: vectors, records, rank columns and a change feed.

Plain module (numpy).
Chroma stays the system of record; the mirror is a read cache that the
service builds from Chroma on first use and updates on every write it makes.
It exists for speed on the hot path: a Chroma query costs 2-4 ms of fixed
overhead on a 2-core machine and a search touches five collections, while an
exact cosine over a 10k x 384 float32 matrix is one BLAS call of about 1 ms
(and exact, where HNSW is approximate).

Rows are packed: removing a row moves the last row into its slot, so the
matrix never has holes. Archived rows stay (Get and List still show them) but
are masked out of ``nearest``.

Every ``put`` and ``remove`` bumps ``version`` and notes the id in a bounded
change feed (``changes_since``). Retrieval keeps its own indexes over the
mirror's text (the BM25 index and the time cues, ``retrieval.mirror_text``)
and brings them up to date from that feed before it reads them; a reader
that fell further behind than the feed reaches rebuilds from ``records``.
Storage never calls into retrieval: the feed is read, not pushed.

Large collections: from ``ann_min_rows`` active rows on, ``top_slots`` asks an
approximate index (``storage.ann_index``, faiss HNSW) for a few times more rows than
it needs and re-scores them exactly from the matrix, instead of a product with
every row. The index knows rows by a stable label (slots move): a row gets a new
label whenever it enters the index (new, new vector, restored); a removed row's or
replaced vector's label is forgotten, an archived row is masked, so dead entries
never surface, and the index is rebuilt when they pile up. It
is built with the mirror when the collection loaded from Chroma is large (so a restart
rebuilds it), or on the first query after writes made it large. Time-window queries
still scan.

Beside the vectors the mirror keeps per-row columns that ranking reads, so
the prompt path can estimate every candidate's final rank in numpy
(``retrieval.column_ranking``): the learned score (``ranking.learned_score``
under this mirror's weights), and the time recency decays from
(``MemoryRecord.recency_ts``: the latest of creation and last scored use). The creation time is a column too, for
time windows (``since_ts``), and so is each fact's scope (``domain.fact_scope``: user-wide, or the project it
belongs to), so a prompt's search takes the nearest facts that hold in its project (``project``) in the same
product, instead of the nearest of all the user's facts, most of them another project's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from itertools import islice

import numpy as np

from services.memory.domain.arrays import Column, Mask, Positions, Vector
from services.memory.domain.fact_scope import scope_key
from services.memory.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, RankInput, learned_score
from services.memory.domain.record import MemoryRecord
from services.memory.storage.ann_index import AnnIndex, fetch_count
from services.memory.storage.session_neighbours import SessionOrder

_GROW = 1.5
_MIN_CAPACITY = 256
# numpy arrays indexed by slot; ``_label`` is the row's stable id in the ANN index, ``_in_ann`` whether it is there;
# ``_scope`` codes the fact's scope (0: user-wide, or not a fact; else the code of the project it belongs to)
_COLUMNS = ("_matrix", "_active", "_created", "_fresh", "_learned", "_label", "_in_ann", "_scope")
CHANGE_FEED = 4096  # changed ids kept for readers that sync from the mirror; further behind, they rebuild


class CollectionMirror:
    def __init__(
        self,
        collection: str,
        dim: int,
        weights: RankingWeights = DEFAULT_WEIGHTS,
        ann_min_rows: int = 0,
    ) -> None:
        self.collection = collection
        self.ann_min_rows = ann_min_rows  # active rows from which queries go through the ANN index; 0: never
        self.dim = dim
        self.weights = weights
        self.version = 0  # bumped by every put and remove
        self._changes: deque[tuple[int, str]] = deque(maxlen=CHANGE_FEED)  # (version, id), oldest first
        self._ids: list[str] = []
        self._records: list[MemoryRecord] = []
        self._slot: dict[str, int] = {}
        self._matrix = np.zeros((_MIN_CAPACITY, dim), dtype=np.float32)
        self._active = np.zeros(_MIN_CAPACITY, dtype=bool)
        self._created = np.zeros(_MIN_CAPACITY, dtype=np.float64)
        self._fresh = np.zeros(_MIN_CAPACITY, dtype=np.float64)  # recency anchor: max(created, last used)
        self._learned = np.zeros(_MIN_CAPACITY, dtype=np.float64)
        self._label = np.zeros(_MIN_CAPACITY, dtype=np.int64)
        self._in_ann = np.zeros(_MIN_CAPACITY, dtype=bool)
        self._scope = np.zeros(_MIN_CAPACITY, dtype=np.int32)
        self._scope_codes: dict[str, int] = {"": 0}  # scope key -> code; only ever grows
        self._label_slot: dict[int, int] = {}
        self._next_label = 0
        self._ann: AnnIndex | None = None
        self.sessions = SessionOrder()  # each session's memories in the order they were written

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

    def _changed(self, memory_id: str) -> None:
        self.version += 1
        self._changes.append((self.version, memory_id))

    def changes_since(self, version: int) -> list[str] | None:
        """The ids put or removed after ``version`` (oldest first, repeats kept); None when the
        feed no longer reaches back that far and the reader must rebuild from ``records``."""
        if version == self.version:
            return []
        oldest = self._changes[0][0] if self._changes else self.version + 1
        if version + 1 < oldest:
            return None
        return [memory_id for _, memory_id in islice(self._changes, version + 1 - oldest, None)]

    def records(self) -> list[MemoryRecord]:
        """Every row's record, archived ones included."""
        return list(self._records)

    def put(self, record: MemoryRecord, embedding: Vector | None = None) -> None:
        """Insert or replace a row; without ``embedding`` an existing row keeps its vector."""
        memory_id = record.id
        slot = self._slot.get(memory_id)
        if embedding is None:
            if slot is None:
                raise ValueError(f"{memory_id} is not mirrored yet: pass its embedding")
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
            else:
                self._unindex(slot)
                del self._label_slot[int(self._label[slot])]
            self._matrix[slot] = vector / norm if norm > 0 else vector
            self._label[slot] = self._next_label  # a new vector gets a new label
            self._label_slot[self._next_label] = slot
            self._next_label += 1
        self._records[slot] = record
        active = not record.archived
        self._active[slot] = active
        self._created[slot] = record.created_ts
        self._fresh[slot] = record.recency_ts
        self._learned[slot] = learned_score(RankInput.of(record), self.weights)
        self._scope[slot] = self._scope_codes.setdefault(scope_key(record), len(self._scope_codes))
        if active:
            self._reindex(slot)
        else:
            self._unindex(slot)
        self.sessions.place(record)
        self._changed(memory_id)

    def _reindex(self, slot: int) -> None:
        if self._ann is not None and not self._in_ann[slot]:
            del self._label_slot[int(self._label[slot])]  # any old entry of this row stays dead
            self._label[slot] = self._next_label
            self._label_slot[self._next_label] = slot
            self._next_label += 1
            self._ann.add(self._matrix[slot : slot + 1], self._label[slot : slot + 1])
            self._in_ann[slot] = True

    def _unindex(self, slot: int) -> None:
        if self._ann is not None and self._in_ann[slot]:
            self._ann.remove(self._label[slot : slot + 1])
        self._in_ann[slot] = False

    def remove(self, memory_id: str) -> None:
        slot = self._slot.pop(memory_id, None)
        if slot is None:
            return
        self._unindex(slot)
        del self._label_slot[int(self._label[slot])]
        last = len(self._ids) - 1
        if slot != last:
            moved = self._ids[last]
            self._ids[slot], self._records[slot] = self._ids[last], self._records[last]
            for name in _COLUMNS:
                column = getattr(self, name)
                column[slot] = column[last]
            self._slot[moved] = slot
            self._label_slot[int(self._label[slot])] = slot
        self.sessions.drop(memory_id)
        self._ids.pop()
        self._records.pop()
        self._active[last] = False
        self._in_ann[last] = False
        self._changed(memory_id)

    def row(self, memory_id: str) -> MemoryRecord | None:
        slot = self._slot.get(memory_id)
        return None if slot is None else self._records[slot]

    def vectors_of(self, memory_ids: list[str]) -> dict[str, Vector]:
        """The stored unit vectors of the ids this mirror holds (copies, safe outside the lock)."""
        return {m: self._matrix[self._slot[m]].copy() for m in memory_ids if m in self._slot}

    def similarities(self, memory_ids: list[str], vector: Vector) -> list[float]:
        """Cosine of each known id to ``vector``, in one product (ids must be in the mirror)."""
        if not memory_ids:
            return []
        slots = [self._slot[memory_id] for memory_id in memory_ids]
        cosines: list[float] = (self._matrix[slots] @ np.asarray(vector, dtype=np.float32)).tolist()
        return cosines

    def holding_in(self, project: str | None) -> Mask | None:
        """Per slot, whether the row holds in ``project`` (``fact_scope.holds_in``: not a project's fact, or
        that project's); None when every row does (no project given, or no fact belongs to a project)."""
        if project is None or len(self._scope_codes) == 1:
            return None
        scopes = self._scope[: len(self._ids)]
        code = self._scope_codes.get(project)
        held: Mask = scopes == 0 if code is None else (scopes == 0) | (scopes == code)
        return held

    def scan(
        self, vector: Vector, k: int, since_ts: float | None = None, project: str | None = None
    ) -> tuple[Vector, Positions]:
        """(cosine of every row, slots of the ``k`` nearest active rows, best first), optionally only
        rows created at or after ``since_ts``, and only rows that hold in ``project``."""
        n = len(self._ids)
        sims = self._matrix[:n] @ np.asarray(vector, dtype=np.float32)
        mask = self._active[:n] if since_ts is None else self._active[:n] & (self._created[:n] >= since_ts)
        held = self.holding_in(project)
        if held is not None:
            mask = mask & held
        live = int(np.count_nonzero(mask))
        k = min(k, live)
        if k <= 0:
            return sims, np.zeros(0, dtype=np.intp)
        # Usually every row is live: partition them all. Otherwise partition the live rows alone (a
        # project's facts among the user's, a time window): -inf for the rest would cost argpartition
        # ten times as much, and the live rows are often few.
        if live == n:
            top = np.argpartition(sims, n - k)[n - k :] if k < n else np.arange(n)
        else:
            slots = np.flatnonzero(mask)
            top = slots[np.argpartition(sims[slots], live - k)[live - k :]] if k < live else slots
        return sims, top[np.argsort(-sims[top], kind="stable")]

    def cosines(self, slots: Positions, vector: Vector) -> Vector:
        """Exact cosine of these slots' rows to ``vector``."""
        result: Vector = self._matrix[slots] @ np.asarray(vector, dtype=np.float32)
        return result

    @property
    def ann_index(self) -> AnnIndex | None:
        """The approximate index queries use now (None: exact scans)."""
        return self._ann

    def index_if_large(self) -> None:
        """Build the ANN index now if the collection calls for one (else the first query would)."""
        self._ann_for_query()

    def _ann_for_query(self) -> AnnIndex | None:
        """The index to query, built or rebuilt first when the collection calls for it."""
        if self.ann_min_rows <= 0:
            return None
        n = len(self._ids)
        if self._ann is None and n < self.ann_min_rows:  # the usual case: too few rows even counting archived
            return None
        live = int(np.count_nonzero(self._active[:n]))
        if self._ann is None and live < self.ann_min_rows:
            return None
        if self._ann is not None and live < self.ann_min_rows // 2:  # shrank well below: back to exact scans
            self._ann = None
            self._in_ann[:n] = False
            return None
        if self._ann is None or self._ann.stale():
            slots = np.flatnonzero(self._active[:n])
            self._ann = AnnIndex(self.dim, self._matrix[slots], self._label[slots])
            self._in_ann[:n] = self._active[:n]
        return self._ann

    def top_slots(
        self, vector: Vector, k: int, since_ts: float | None = None, project: str | None = None
    ) -> tuple[Positions, Vector]:
        """(slots of the ``k`` nearest active rows, best first; their exact cosines), only rows that hold
        in ``project`` when it is given.

        Through the ANN index when the collection is large (no time window): a few times
        ``k`` candidates, re-scored exactly; otherwise one product with every row. When the
        project's rows are too few among the index's candidates, an exact scan finds them.
        """
        ann = self._ann_for_query() if since_ts is None else None
        if ann is None:
            sims, top = self.scan(vector, k, since_ts, project)
            return top, sims[top]
        label_slot = self._label_slot
        fetched = fetch_count(k)
        found = [label_slot.get(label, -1) for label in ann.search(vector, fetched).tolist()]
        slots = np.asarray([slot for slot in found if slot >= 0], dtype=np.intp)
        slots = slots[self._active[slots]]
        held = self.holding_in(project)
        if held is not None:
            kept = slots[held[slots]]
            # Fewer than k of them among the index's candidates, and the index holds more: an exact scan.
            deeper = len(kept) < k and len(found) >= fetched
            if deeper and len(kept) < int(np.count_nonzero(held & self._active[: len(held)])):
                sims, top = self.scan(vector, k, None, project)
                return top, sims[top]
            slots = kept
        cosines = self.cosines(slots, vector)
        order = np.argsort(-cosines, kind="stable")[:k]
        return slots[order], cosines[order]

    def slot_of(self, memory_id: str) -> int | None:
        return self._slot.get(memory_id)

    def rank_columns(self, slots: Positions) -> tuple[list[str], Column, Column]:
        """(ids, learned scores, recency anchors) of these slots."""
        ids = self._ids
        return [ids[i] for i in slots.tolist()], self._learned[slots], self._fresh[slots]

    def nearest(
        self, vector: Vector, k: int, since_ts: float | None = None, project: str | None = None
    ) -> list[tuple[MemoryRecord, float]]:
        """Top ``k`` active rows by exact cosine (best first), optionally created at or after ``since_ts``,
        and holding in ``project``."""
        top, cosines = self.top_slots(vector, k, since_ts, project)
        records = self._records
        return [(records[i], score) for i, score in zip(top.tolist(), cosines.tolist(), strict=True)]

    def active_rows(self) -> tuple[list[MemoryRecord], Vector]:
        """Every active row and its unit vector (a copy, safe to use after the lock is released)."""
        slots = np.flatnonzero(self._active[: len(self._ids)])
        return [self._records[i] for i in slots.tolist()], self._matrix[slots].copy()

    def rows_since(self, since_ts: float | None) -> Iterator[MemoryRecord]:
        """Active rows, optionally only those created at or after ``since_ts``."""
        for slot, record in enumerate(self._records):
            if self._active[slot] and (since_ts is None or self._created[slot] >= since_ts):
                yield record
