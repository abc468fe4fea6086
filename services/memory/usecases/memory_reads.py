"""Use cases that read memories by id or by collection: Get and List."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from services.memory.domain.filters import sort_memories
from services.memory.domain.memory_errors import InvalidRequest, MemoryNotFound
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import Scope, check_collection, check_id
from services.memory.domain.ranking import RankingWeights, RankInput, final_rank
from services.memory.domain.search_params import DEFAULT_LIMIT, MAX_LIMIT, SortBy
from services.memory.storage.memory_store import MemoryStore

MAX_LIST_OFFSET = 1_000_000
MAX_FIND_MANY = 16


class MemoryReads:
    def __init__(self, store: MemoryStore, *, weights: RankingWeights, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._weights = weights
        self._clock = clock

    async def get(self, scope: Scope, memory_id: str) -> NormalizedMemory:
        memory_id = check_id(memory_id)
        record = await self._store.locate(scope, memory_id)
        if record is None:
            raise MemoryNotFound(
                f"no memory {memory_id!r} in this scope: check the id, or search with days_back to browse"
            )
        return view(record, now=self._clock(), weights=self._weights)

    async def find_many(self, scope: Scope, memory_ids: list[str]) -> list[NormalizedMemory]:
        """The active memories among ``memory_ids``, in order (a moved one under its new id); no error for the rest."""
        if len(memory_ids) > MAX_FIND_MANY:
            raise InvalidRequest(f"{len(memory_ids)} ids given; ask for at most {MAX_FIND_MANY} at once")
        found: list[NormalizedMemory] = []
        seen: set[str] = set()
        for memory_id in memory_ids:
            record = await self._store.locate(scope, check_id(memory_id))
            if record is not None and not record.archived and record.id not in seen:
                seen.add(record.id)
                found.append(view(record, now=self._clock(), weights=self._weights))
        return found

    async def list_memories(
        self,
        scope: Scope,
        collection: str,
        *,
        limit: int,
        offset: int,
        include_archived: bool,
        sort_by: str,
    ) -> tuple[list[NormalizedMemory], int]:
        check_collection(collection)
        limit = limit or DEFAULT_LIMIT
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequest(f"limit={limit} is out of range: use 1-{MAX_LIMIT}")
        if offset > MAX_LIST_OFFSET:
            raise InvalidRequest(f"offset={offset} is too large (max {MAX_LIST_OFFSET})")
        try:
            order = SortBy(sort_by) if sort_by else SortBy.RECENCY
        except ValueError:
            raise InvalidRequest(f"sort_by={sort_by!r} is unknown: use relevance, recency or score") from None
        now = self._clock()
        items = []
        for record in await self._store.scan(scope, collection):
            if not include_archived and record.archived:
                continue
            rank = final_rank(RankInput.of(record, now=now), self._weights)
            items.append(view(record, now=now, final_rank_score=rank, weights=self._weights))
        ordered = sort_memories(items, order)
        return ordered[offset : offset + limit], len(ordered)
