"""Search: one entry point that resolves the query and picks the ranking path.

``Searcher.search`` answers a ``SearchParams``: an id lookup, a prompt (query
vector, relevance order, no filters, no time window: ``column_ranking``, the
get-context hot path) or anything else (``full_ranking``, which ranks every
candidate). Both paths rank with the same formulas, and a test holds their
results equal. A text query without a vector is embedded here, once; when the
embedding service is down, hybrid mode answers from keyword matches alone.
``Searcher.listing`` answers the same search as a list for a person or the
model (``retrieval.listing``: copies collapsed, the relevance floor).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from kernel.blocking_io import BlockingIO
from services.memory.domain.arrays import Vector
from services.memory.domain.distinct_results import DEFAULT_LISTING, Listed, ListingRules
from services.memory.domain.memory_errors import EmbeddingUnavailable
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import Scope
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.search_params import SearchParams, SortBy
from services.memory.retrieval.column_ranking import rank_columns
from services.memory.retrieval.embedding_calls import Vectors, vector_from_bytes
from services.memory.retrieval.full_ranking import rank_every_candidate
from services.memory.retrieval.hybrid import QueryPlan, RetrievalSettings
from services.memory.retrieval.listing import Listing, list_distinct
from services.memory.retrieval.mirror_text import MirrorTexts
from services.memory.storage.memory_store import MemoryStore

log = logging.getLogger("mnemex.memory.search")
# Changes a mirror's text may lag and still catch up on the event loop, inside the search (about 40 µs each);
# further behind (a backfill or an import since the last prompt), it catches up on a worker thread first.
SYNC_ON_LOOP = 64


class Searcher:
    def __init__(
        self,
        store: MemoryStore,
        texts: MirrorTexts,
        io: BlockingIO,
        vectors: Vectors,
        *,
        retrieval: RetrievalSettings,
        weights: RankingWeights,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._texts = texts  # the BM25 index and time cues of each mirror, synced before each read
        self._io = io
        self._vectors = vectors
        self._retrieval = retrieval
        self._weights = weights
        self._clock = clock

    async def warm(self, scope: Scope, collection: str) -> None:
        """Build the collection's mirror and its text indexes now (the service's start warms them all)."""
        await self._io.run(self._warm_text, scope, collection)

    def _warm_text(self, scope: Scope, collection: str) -> None:
        with self._store.mirrors.read(scope, collection) as mirror:
            self._texts.synced(mirror)

    async def search(self, scope: Scope, params: SearchParams, query_vector: bytes = b"") -> list[NormalizedMemory]:
        if params.memory_id:
            return await self._by_id(scope, params.memory_id)
        vector, lexical_only = await self._query_vector(params, query_vector)
        return await self._ranked(scope, params, vector, lexical_only)

    async def listing(
        self, scope: Scope, params: SearchParams, query_vector: bytes = b"", rules: ListingRules = DEFAULT_LISTING
    ) -> Listing:
        """The search as a list for a person or the model: copies collapsed, the limit counting distinct
        results, and with a query only the relevant ones (``retrieval.listing``)."""
        if params.memory_id:
            return Listing([Listed(m) for m in await self._by_id(scope, params.memory_id)], judged=False)
        vector, lexical_only = await self._query_vector(params, query_vector)

        async def rank(window: int) -> list[NormalizedMemory]:
            return await self._ranked(scope, replace(params, limit=window), vector, lexical_only)

        return await list_distinct(
            rank,
            self._store,
            self._texts,
            scope,
            query=params.query,
            judged=vector is not None or lexical_only,
            limit=params.limit,
            rules=rules,
        )

    async def _by_id(self, scope: Scope, memory_id: str) -> list[NormalizedMemory]:
        record = await self._store.locate(scope, memory_id)
        if record is None or record.archived:
            return []
        return [view(record, now=self._clock(), weights=self._weights)]

    async def _query_vector(self, params: SearchParams, query_vector: bytes) -> tuple[Vector | None, bool]:
        """(the query's unit vector, None without one; True when the query could not be embedded and hybrid
        mode answers from keyword matches alone)."""
        if query_vector:
            return vector_from_bytes(query_vector, self._vectors.dim), False
        if not params.query:
            return None, False
        try:
            return await self._vectors.vector_for(params.query), False
        except EmbeddingUnavailable as exc:
            if not self._retrieval.hybrid:
                raise
            log.warning("search: %s; answering from keyword matches alone", exc)
            return None, True

    async def _ranked(
        self, scope: Scope, params: SearchParams, vector: Vector | None, lexical_only: bool
    ) -> list[NormalizedMemory]:
        now = self._clock()
        cutoff = now - timedelta(days=params.days_back) if params.days_back else None
        plan = QueryPlan.of(params.query) if params.query and self._retrieval.hybrid else None
        if vector is not None and params.sort_by is SortBy.RELEVANCE and not params.filters and cutoff is None:
            mirrors = self._store.mirrors
            for collection in params.collections:
                mirror = mirrors.peek(scope, collection)
                if mirror is None or self._texts.behind(mirror) > SYNC_ON_LOOP:
                    await self.warm(scope, collection)  # a mirror to build, or text far behind: on a worker thread
            return await rank_columns(
                self._store,
                self._texts,
                scope,
                params,
                vector,
                plan,
                now=now,
                retrieval=self._retrieval,
                weights=self._weights,
            )
        return await rank_every_candidate(
            self._store,
            self._texts,
            self._io,
            scope,
            params,
            vector=vector,
            plan=plan,
            lexical_only=lexical_only,
            cutoff=cutoff,
            now=now,
            retrieval=self._retrieval,
            weights=self._weights,
        )
