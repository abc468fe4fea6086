"""An approximate-nearest-neighbour index over a mirror's unit vectors (faiss HNSW).

Plain module (numpy + faiss). Below ``ann_min_rows`` active rows the mirror scans
every row exactly (one BLAS product, about 1 ms at 10k); above it the mirror asks
this index for a candidate set several times the size it needs and re-scores those
rows exactly from its own matrix, so every score that ranking sees is the exact
cosine and the learned ranking is unchanged. Only membership is approximate.

Chosen by measurement on 100k real MiniLM vectors (docstring paragraphs, BENCHMARKS.md
"100k memories"), dense recall@10 after re-scoring 30 candidates exactly:

- faiss IVF (390 lists; flat or 8-bit codes): 0.87 / 0.92 / 0.96 at 16 / 32 / 64 probes,
  0.5-1.8 ms. It removes rows natively and builds in 1 s, but these embeddings are not
  clustered enough for it to reach 0.99;
- faiss HNSW (M 32, efConstruction 40): 0.979 at efSearch 64 (0.35 ms), 0.991 at 128
  (0.60 ms); builds in 12.7 s at 100k on two cores. Taken, at efSearch 128;
- hnswlib ships as a source distribution only (a compiler on every user's machine);
  Chroma's own HNSW answers through a ``where`` filter in 60-70 ms at 100k.

faiss HNSW cannot delete, so removal is a tombstone: the mirror forgets the label (a
removed row, or the old vector of a changed row) or masks it (an archived row), and
asks for a rebuild once dead entries pass a quarter of the index. Labels are stable
integers the mirror hands out (mirror slots move); the index never sees a slot.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from services.memory.domain.arrays import Labels, Vector

DEFAULT_MIN_ROWS = 20_000  # below this many active rows a collection is scanned exactly (about 2 ms at 20k)
OVERSAMPLE = 4  # candidates fetched per row needed, re-scored exactly
MIN_FETCH = 64
NEIGHBOURS = 32  # HNSW M
EF_CONSTRUCTION = 40
EF_SEARCH = 128
_DEAD_SHARE = 0.25  # rebuild once this share of the index is tombstones


def _faiss() -> ModuleType:  # faiss ships no types: what it holds reads as Any
    import faiss  # imported on first use: a service whose collections stay small never loads it

    return faiss


class AnnIndex:
    """A faiss HNSW inner-product index keyed by the mirror's stable row labels."""

    def __init__(self, dim: int, vectors: Vector, labels: Labels) -> None:
        faiss = _faiss()
        self.dim = dim
        graph = faiss.IndexHNSWFlat(dim, NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
        graph.hnsw.efConstruction = EF_CONSTRUCTION
        graph.hnsw.efSearch = EF_SEARCH
        self._graph = graph  # IndexIDMap does not own its inner index's Python wrapper
        self._index = faiss.IndexIDMap(graph)
        self.dead = 0
        self.add(vectors, labels)

    def __len__(self) -> int:
        """Live entries (added and not removed)."""
        return int(self._index.ntotal) - self.dead

    @property
    def ef_search(self) -> int:
        return int(self._graph.hnsw.efSearch)

    @ef_search.setter
    def ef_search(self, value: int) -> None:
        self._graph.hnsw.efSearch = max(1, int(value))

    def add(self, vectors: Vector, labels: Labels) -> None:
        if len(labels):
            self._index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dim),
                np.ascontiguousarray(labels, dtype=np.int64),
            )

    def remove(self, labels: Labels) -> None:
        """Tombstone: the caller no longer maps these labels to rows (or masks them)."""
        self.dead += len(labels)

    def search(self, vector: Vector, k: int) -> Labels:
        """Labels of up to ``k`` approximate nearest entries, dead ones included (unordered by exact score)."""
        k = min(k, int(self._index.ntotal))
        if k <= 0:
            return np.zeros(0, dtype=np.int64)
        query = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, self.dim)
        _, labels = self._index.search(query, k)
        found: Labels = labels[0]
        return found[found >= 0]

    def stale(self) -> bool:
        """Too many tombstones: rebuild from the live rows."""
        return self.dead > _DEAD_SHARE * int(self._index.ntotal)


def fetch_count(k: int) -> int:
    """How many candidates to take from the index to keep the exact top ``k``."""
    return max(k * OVERSAMPLE, k + MIN_FETCH)
