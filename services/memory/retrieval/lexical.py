"""In-memory BM25 keyword index with incremental add/remove.

Plain module (no grpc, no chromadb). One ``LexicalIndex`` per scope and
collection; the memory service keeps it in step with its vector store and
blends ``search`` results with dense results (``retrieval.hybrid``).

Layout, built for short queries over 10k-100k short documents:

- every document gets a *slot* (an int); ``add`` of a known id retires the old
  slot and takes a new one;
- each term has an append-only postings pair ``array('i')`` slots and
  ``array('f')`` term frequencies, so ``add`` is O(terms of the document);
- ``remove`` only marks the slot dead and lowers each term's document
  frequency; a term's postings are compacted once half of them are dead, and
  all slots are renumbered once most slot numbers are dead, so memory stays
  proportional to the live documents;
- ``search`` scores each query term's postings with numpy in one vectorised
  step (Lucene BM25 idf, which is never negative) and picks the top ``k``;
  each term's length-normalised tf part is kept until the next write (every
  write moves the average length, so any write drops them all), so a term
  seen in an earlier query costs one multiply and one scatter-add.

Thread safety: every public method takes one lock, so it may be called
from ``asyncio.to_thread`` workers.
"""

from __future__ import annotations

import heapq
import math
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

from services.memory.domain.arrays import Column
from services.memory.retrieval.text import query_terms, terms

MAX_DOC_CHARS = 100_000
MAX_QUERY_CHARS = 4_000
MAX_QUERY_TERMS = 64
_MIN_SLOTS = 1024
MAX_CACHED_POSTINGS = 1_000_000  # float64 + int32 each: at most 12 MB of cached term parts per index


class _Postings:
    __slots__ = ("dead", "slots", "tfs")

    def __init__(self) -> None:
        self.slots = array("i")
        self.tfs = array("f")
        self.dead = 0


class LexicalIndex:
    """BM25 over short documents, keyed by the caller's string ids (higher score = better)."""

    def __init__(self, k1: float = 1.2, b: float = 0.75, tokenize: Callable[[str], list[str]] = terms) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1 (got k1={k1}, b={b})")
        self.k1 = k1
        self.b = b
        self._tokenize = tokenize
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self._postings: dict[str, _Postings] = {}
        self._df: dict[str, int] = {}
        self._slot_of: dict[str, int] = {}
        self._id_of: dict[int, str] = {}
        self._terms_of: dict[int, tuple[str, ...]] = {}
        self._doc_len = np.zeros(_MIN_SLOTS, dtype=np.float64)
        self._alive = np.zeros(_MIN_SLOTS, dtype=np.bool_)
        self._next_slot = 0
        self._total_len = 0
        self._forget_term_parts()

    def _forget_term_parts(self) -> None:
        self._term_parts: dict[str, tuple[npt.NDArray[np.int32], Column]] = {}
        self._cached_postings = 0

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._slot_of)

    def clear(self) -> None:
        with self._lock:
            self._reset()

    # -- writes ----------------------------------------------------------------------

    def add(self, doc_id: str, text: str) -> None:
        """Index ``text`` under ``doc_id``, replacing any earlier text for that id."""
        counts = Counter(self._tokenize(text[:MAX_DOC_CHARS]))
        with self._lock:
            self._remove_locked(doc_id)
            self._forget_term_parts()
            if self._next_slot >= len(self._doc_len):
                self._grow()
            slot = self._next_slot
            self._next_slot += 1
            length = sum(counts.values())
            self._slot_of[doc_id] = slot
            self._id_of[slot] = doc_id
            self._terms_of[slot] = tuple(counts)
            self._doc_len[slot] = length
            self._alive[slot] = True
            self._total_len += length
            postings, df = self._postings, self._df
            for term, tf in counts.items():
                entry = postings.get(term)
                if entry is None:
                    entry = postings[term] = _Postings()
                entry.slots.append(slot)
                entry.tfs.append(tf)
                df[term] = df.get(term, 0) + 1

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        for doc_id, text in docs:
            self.add(doc_id, text)

    def remove(self, doc_id: str) -> None:
        """Forget ``doc_id``; unknown ids are ignored."""
        with self._lock:
            self._remove_locked(doc_id)

    def _remove_locked(self, doc_id: str) -> None:
        slot = self._slot_of.pop(doc_id, None)
        if slot is None:
            return
        self._forget_term_parts()
        del self._id_of[slot]
        self._alive[slot] = False
        self._total_len -= int(self._doc_len[slot])
        self._doc_len[slot] = 0.0
        for term in self._terms_of.pop(slot):
            entry = self._postings[term]
            entry.dead += 1
            remaining = self._df[term] - 1
            if remaining == 0:
                del self._df[term]
                del self._postings[term]
            else:
                self._df[term] = remaining
                if entry.dead * 2 > len(entry.slots):
                    self._compact_term(entry)
        if self._next_slot > _MIN_SLOTS and self._next_slot > 4 * len(self._slot_of):
            self._renumber()

    def _compact_term(self, entry: _Postings) -> None:
        slots = np.frombuffer(entry.slots, dtype=np.int32).copy()
        tfs = np.frombuffer(entry.tfs, dtype=np.float32).copy()
        keep = self._alive[slots]
        entry.slots = array("i", slots[keep].tobytes())
        entry.tfs = array("f", tfs[keep].tobytes())
        entry.dead = 0

    def _grow(self) -> None:
        size = max(_MIN_SLOTS, 2 * len(self._doc_len))
        doc_len = np.zeros(size, dtype=np.float64)
        alive = np.zeros(size, dtype=np.bool_)
        doc_len[: len(self._doc_len)] = self._doc_len
        alive[: len(self._alive)] = self._alive
        self._doc_len, self._alive = doc_len, alive

    def _renumber(self) -> None:
        """Give live documents slots 0..n-1 again (after heavy churn)."""
        old_slots = np.array(sorted(self._id_of), dtype=np.int64)
        mapping = np.full(self._next_slot, -1, dtype=np.int64)
        mapping[old_slots] = np.arange(len(old_slots))
        for entry in self._postings.values():
            slots = np.frombuffer(entry.slots, dtype=np.int32).copy()
            tfs = np.frombuffer(entry.tfs, dtype=np.float32).copy()
            keep = self._alive[slots]
            entry.slots = array("i", mapping[slots[keep]].astype(np.int32).tobytes())
            entry.tfs = array("f", tfs[keep].tobytes())
            entry.dead = 0
        size = max(_MIN_SLOTS, 2 * len(old_slots))
        doc_len = np.zeros(size, dtype=np.float64)
        alive = np.zeros(size, dtype=np.bool_)
        doc_len[: len(old_slots)] = self._doc_len[old_slots]
        alive[: len(old_slots)] = True
        self._id_of = {int(mapping[s]): self._id_of[int(s)] for s in old_slots}
        self._terms_of = {int(mapping[s]): self._terms_of[int(s)] for s in old_slots}
        self._slot_of = {doc_id: slot for slot, doc_id in self._id_of.items()}
        self._doc_len, self._alive = doc_len, alive
        self._next_slot = len(old_slots)

    # -- reads -----------------------------------------------------------------------

    def idf(self, term: str) -> float:
        """Lucene BM25 idf: log(1 + (N - df + 0.5) / (df + 0.5)), > 0 for every known term."""
        n = len(self._slot_of)
        df = self._df.get(term, 0)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top ``k`` (doc_id, bm25 score) for ``query``, best first; ties broken by id."""
        if k <= 0:
            return []
        return self.search_terms(query_terms(query[:MAX_QUERY_CHARS])[:MAX_QUERY_TERMS], k)

    def search_terms(
        self, words: Iterable[str], k: int, weights: dict[str, float] | None = None
    ) -> list[tuple[str, float]]:
        """Like ``search`` but with already-tokenised terms and optional per-term weights."""
        if k <= 0:
            return []
        with self._lock:
            n = len(self._slot_of)
            if n == 0:
                return []
            avg_len = self._total_len / n or 1.0
            scores: Column | None = None
            for term in dict.fromkeys(words):
                entry = self._postings.get(term)
                if entry is None:
                    continue
                weight = self.idf(term) * (weights.get(term, 1.0) if weights else 1.0)
                if weight <= 0:
                    continue
                slots, part = self._term_part(term, entry, avg_len)
                if scores is None:
                    scores = np.zeros(self._next_slot, dtype=np.float64)
                scores[slots] += weight * part
            if scores is None:
                return []
            return self._top(scores, k)

    def _term_part(self, term: str, entry: _Postings, avg_len: float) -> tuple[npt.NDArray[np.int32], Column]:
        """A term's postings slots and (k1 + 1) tf / (tf + k1 (1 - b + b len / avg_len)), 0 for dead slots."""
        cached = self._term_parts.get(term)
        if cached is not None:
            return cached
        k1, b = self.k1, self.b
        slots = np.frombuffer(entry.slots, dtype=np.int32).copy()
        tfs = np.frombuffer(entry.tfs, dtype=np.float32).astype(np.float64)
        norm = k1 * (1.0 - b) + (k1 * b / avg_len) * self._doc_len[slots]
        part = (k1 + 1.0) * tfs / (tfs + norm)
        if entry.dead:
            part *= self._alive[slots]
        if self._cached_postings + len(slots) > MAX_CACHED_POSTINGS:
            self._forget_term_parts()
        self._term_parts[term] = (slots, part)
        self._cached_postings += len(slots)
        return slots, part

    def _top(self, scores: Column, k: int) -> list[tuple[str, float]]:
        positive = np.flatnonzero(scores > 0)
        id_of = self._id_of
        if len(positive) > k:
            values = scores[positive]
            threshold = np.partition(values, len(values) - k)[len(values) - k]
            above = positive[values > threshold].tolist()
            tied = positive[values == threshold].tolist()
            # Ties at the boundary are settled by id, like the final order; nsmallest keeps it O(ties).
            tied_ids = heapq.nsmallest(k - len(above), (id_of[s] for s in tied))
            chosen = [(id_of[s], float(scores[s])) for s in above]
            chosen.extend((doc_id, float(threshold)) for doc_id in tied_ids)
        else:
            chosen = [(id_of[s], float(scores[s])) for s in positive.tolist()]
        chosen.sort(key=lambda item: (-item[1], item[0]))
        return chosen
