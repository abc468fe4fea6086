"""Use cases behind the web viewer: browse memories, list sessions and turns, a memory's outcome log.

``browse`` pages through the active memories from the search mirrors (built
on first use, as for search), and archived ones from the store. The turn and
outcome reads come from ``storage.turns`` and ``storage.outcome_log``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from kernel.blocking_io import BlockingIO
from kernel.outcome_entry import OutcomeEntry
from services.memory.domain import browse as browsing
from services.memory.domain.client_names import check_client
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import COLLECTIONS, SCORED_COLLECTIONS, Scope, check_id
from services.memory.domain.ranking import RankingWeights, RankInput, final_rank
from services.memory.domain.record import MemoryRecord
from services.memory.storage.lifecycle_events import LifecycleEvents
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.outcome_log import OutcomeLog
from services.memory.storage.turns import MAX_SESSION_ID_CHARS, SessionRow, Turn, TurnStore
from services.memory.usecases.turn_write_queue import TurnWrites

MAX_HISTORY_ROWS = 500


class ViewerReads:
    def __init__(
        self,
        store: MemoryStore,
        turns: TurnStore,
        turn_writes: TurnWrites,
        outcome_log: OutcomeLog,
        events: LifecycleEvents,
        io: BlockingIO,
        *,
        weights: RankingWeights,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._turns = turns
        self._turn_writes = turn_writes
        self._outcome_log = outcome_log
        self._events = events
        self._io = io
        self._weights = weights
        self._clock = clock

    def _active_rows(self, scope: Scope, collection: str) -> list[MemoryRecord]:
        with self._store.mirrors.read(scope, collection) as mirror:
            return list(mirror.rows_since(None))

    async def _records(self, scope: Scope, collection: str, which: browsing.ArchivedFilter) -> list[MemoryRecord]:
        found: list[MemoryRecord] = []
        if which is not browsing.ArchivedFilter.ARCHIVED:
            found += await self._io.run(self._active_rows, scope, collection)
        if which is not browsing.ArchivedFilter.ACTIVE:
            found += await self._store.scan(scope, collection, where={"archived": True})
        return found

    async def browse(self, scope: Scope, query: browsing.BrowseQuery) -> tuple[list[NormalizedMemory], int, list[str]]:
        """(the page, matches before paging, the most used tags of the browsed collections)."""
        records: list[MemoryRecord] = []
        for collection in query.collections:
            records += await self._records(scope, collection, query.archived)
        records = browsing.in_project(records, scope.project)  # another project's facts are not this one's
        chosen, total = browsing.select(records, query)
        now = self._clock()
        weights = self._weights
        shown = [
            view(r, now=now, final_rank_score=final_rank(RankInput.of(r, now=now), weights), weights=weights)
            for r in chosen
        ]
        return shown, total, browsing.top_tags(records)

    def _fact_owners(self, scope: Scope) -> list[browsing.FactOwner]:
        with self._store.mirrors.read(scope, browsing.FACTS) as mirror:
            return browsing.fact_owners(mirror.records())

    async def facts(self, scope: Scope) -> list[browsing.FactOwner]:
        """Every memory_bank fact of the scope's user with the project it belongs to, archived ones included."""
        return await self._io.run(self._fact_owners, scope)

    def _counted(self, scope: Scope, collection: str) -> tuple[int, int, list[float]]:
        """(active rows, archived rows, the active rows' scores) of one collection's mirror."""
        with self._store.mirrors.read(scope, collection) as mirror:
            active = [r.counters.score for r in mirror.rows_since(None)]
            return len(active), len(mirror) - len(active), active

    async def overview(self, scope: Scope) -> browsing.Overview:
        """Counts per collection (and archived), the score histogram, lifecycle events: from the mirrors."""
        counts: dict[str, int] = {"archived": 0}
        scores: list[float] = []
        for collection in COLLECTIONS:
            active, archived, found = await self._io.run(self._counted, scope, collection)
            counts[collection] = active
            counts["archived"] += archived
            if collection in SCORED_COLLECTIONS:
                scores += found
        totals, by_day = await self._io.run(self._events.summary, scope)
        return browsing.Overview(counts, browsing.score_histogram(scores), totals, by_day)

    async def sessions(self, scope: Scope, limit: int) -> list[SessionRow]:
        return await self._io.run(self._turns.sessions, scope, _limit(limit))

    async def turns(self, scope: Scope, *, session_id: str, memory_id: str, limit: int) -> list[Turn]:
        session_id = session_id.strip()
        if len(session_id) > MAX_SESSION_ID_CHARS:
            raise InvalidRequest(f"session_id is longer than {MAX_SESSION_ID_CHARS} characters")
        if memory_id:
            memory_id = check_id(memory_id)
        elif not session_id:
            raise InvalidRequest("pass session_id (a session's turns) or memory_id (the turns it was injected into)")
        await self._turn_writes.settle(scope, session_id, stored=False)  # a turn whose injection is still deferred
        return await self._io.run(
            self._turns.turns, scope, session_id=session_id, memory_id=memory_id, limit=_limit(limit)
        )

    async def written_by(self, scope: Scope, memory_id: str) -> str:
        """The client whose turn stored ``memory_id`` as its exchange ("" when unknown)."""
        return await self._io.run(self._turns.written_by, scope, check_id(memory_id))

    async def record_client(self, scope: Scope, session_id: str, client: str) -> None:
        """Name the client of the session's latest turn (a turn-start or a stop that said it)."""
        client = check_client(client)
        if client and session_id.strip():
            await self._io.run(self._turns.record_client, scope, session_id.strip(), client)

    async def outcome_log(self, scope: Scope, memory_id: str, limit: int) -> list[OutcomeEntry]:
        return await self._io.run(self._outcome_log.of_memory, scope, check_id(memory_id), _limit(limit))


def _limit(limit: int) -> int:
    limit = limit or 100
    if not 1 <= limit <= MAX_HISTORY_ROWS:
        raise InvalidRequest(f"limit={limit} is out of range: use 1-{MAX_HISTORY_ROWS}")
    return limit
