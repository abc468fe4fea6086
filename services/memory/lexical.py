"""In-memory BM25 keyword index with incremental add/remove.

Plain module (no grpc, no chromadb). One ``LexicalIndex`` per scope+collection
(or per scope); the memory service keeps it in step with its vector store and
fuses ``search`` results with dense results (see ``fusion.rrf_fuse``).

Structure: an inverted index ``term -> {doc_slot: term_frequency}`` plus each
document's term counts and length, so ``add`` and ``remove`` touch only the
document's own terms (no rebuild). ``search`` scores only documents that share
a query term (BM25, Lucene-style idf that never goes negative).

Thread safety: every public method takes one lock, so a servicer may call it
from ``asyncio.to_thread`` workers.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable

from services.memory.retrieval_text import query_terms, terms

MAX_DOC_CHARS = 100_000
MAX_QUERY_CHARS = 4_000
MAX_QUERY_TERMS = 64


class LexicalIndex:
    """BM25 over short documents, keyed by the caller's string ids."""

    def __init__(
        self,
        k1: float = 1.2,
        b: float = 0.75,
        tokenize: Callable[[str], list[str]] = terms,
    ) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1 (got k1={k1}, b={b})")
        self.k1 = k1
        self.b = b
        self._tokenize = tokenize
        self._lock = threading.RLock()
        self._postings: dict[str, dict[int, int]] = {}
        self._doc_terms: dict[int, Counter[str]] = {}
        self._doc_len: dict[int, int] = {}
        self._slot_of: dict[str, int] = {}
        self._id_of: dict[int, str] = {}
        self._next_slot = 0
        self._total_len = 0

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    def add(self, doc_id: str, text: str) -> None:
        """Index ``text`` under ``doc_id``, replacing any earlier text for that id."""
        counts = Counter(self._tokenize(text[:MAX_DOC_CHARS]))
        with self._lock:
            self._remove_locked(doc_id)
            slot = self._next_slot
            self._next_slot += 1
            self._slot_of[doc_id] = slot
            self._id_of[slot] = doc_id
            self._doc_terms[slot] = counts
            length = sum(counts.values())
            self._doc_len[slot] = length
            self._total_len += length
            for term, tf in counts.items():
                self._postings.setdefault(term, {})[slot] = tf

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        for doc_id, text in docs:
            self.add(doc_id, text)

    def remove(self, doc_id: str) -> None:
        """Forget ``doc_id``; unknown ids are ignored."""
        with self._lock:
            self._remove_locked(doc_id)

    def clear(self) -> None:
        with self._lock:
            self.__init__(self.k1, self.b, self._tokenize)  # type: ignore[misc]

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._slot_of)

    def _remove_locked(self, doc_id: str) -> None:
        slot = self._slot_of.pop(doc_id, None)
        if slot is None:
            return
        del self._id_of[slot]
        counts = self._doc_terms.pop(slot)
        self._total_len -= self._doc_len.pop(slot)
        for term in counts:
            posting = self._postings[term]
            del posting[slot]
            if not posting:
                del self._postings[term]

    def idf(self, term: str) -> float:
        """Lucene BM25 idf: log(1 + (N - df + 0.5) / (df + 0.5)), always > 0 for known terms."""
        n = len(self._slot_of)
        df = len(self._postings.get(term, ()))
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top ``k`` (doc_id, bm25 score) for ``query``, best first; ties broken by id."""
        if k <= 0:
            return []
        words = query_terms(query[:MAX_QUERY_CHARS])[:MAX_QUERY_TERMS]
        return self.search_terms(words, k)

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
            k1, b = self.k1, self.b
            scores: dict[int, float] = {}
            doc_len = self._doc_len
            for term in dict.fromkeys(words):
                posting = self._postings.get(term)
                if not posting:
                    continue
                weight = self.idf(term) * (weights.get(term, 1.0) if weights else 1.0)
                if weight <= 0:
                    continue
                scale = weight * (k1 + 1.0)
                base = k1 * (1.0 - b)
                per_len = k1 * b / avg_len
                get = scores.get
                for slot, tf in posting.items():
                    scores[slot] = get(slot, 0.0) + scale * tf / (tf + base + per_len * doc_len[slot])
            id_of = self._id_of
            return heapq.nsmallest(
                k, ((id_of[slot], score) for slot, score in scores.items()), key=lambda item: (-item[1], item[0])
            )
