"""PrepareContext: the prompt hot path in one call.

The session's scoring state (as it stood before this prompt), the lessons the
request names (the kg's, read by id: ``MemoryReads.find_many``), the search when
the request has one (``retrieval.searcher``), and the record of what is
injected now, written after the caller has its answer (``TurnWrites`` keeps
it ordered before the session's next operation).

Between the search and the record, ``domain.context_selection`` decides what is
injected: turns of the asking session, facts of another project (which the search
already leaves out: ``SearchParams.fact_project``), results below
the relevance floor and near-duplicates of a line already kept (an exchange that
states a fact shown, too) are left out (the search asks for a few more than the
limit, so a collapsed copy can make room); a result that states a value a newer
fact superseded gives its place to that fact (read by id when the search did
not find it). A fact shown notes the value it replaced and since when
(``domain.fact_history``, the archived fact read from the mirror). Only what is
injected is recorded; every decision comes back as a ``ContextChoice``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kernel.context_choice import ContextChoice
from services.memory.domain.arrays import Vector
from services.memory.domain.context_selection import (
    DEFAULT_SELECTION,
    STALE_VALUE_OF,
    SelectionRules,
    select,
)
from services.memory.domain.fact_history import superseded_ids, with_previous
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import Scope
from services.memory.domain.search_params import SearchParams
from services.memory.retrieval.searcher import Searcher
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.turns import TurnStore
from services.memory.usecases.memory_reads import MemoryReads
from services.memory.usecases.turn_recording import ScoringState, SessionTurns, check_session_id, scoring_state_of
from services.memory.usecases.turn_write_queue import TurnWrites

EXTRA_CANDIDATES = 3  # asked beyond the limit, so lines left out can be replaced
MAX_CURRENT_FACTS = 4  # facts read by id to stand in for results that state a superseded value


@dataclass(frozen=True)
class Prepared:
    memories: list[NormalizedMemory]
    state: ScoringState
    choices: list[ContextChoice] = field(default_factory=list)
    lessons: list[NormalizedMemory] = field(default_factory=list)  # the requested lessons, shown beside


class PrepareContext:
    def __init__(
        self,
        turn_store: TurnStore,
        turns: SessionTurns,
        turn_writes: TurnWrites,
        searcher: Searcher,
        reads: MemoryReads,
        store: MemoryStore | None = None,
        selection: SelectionRules = DEFAULT_SELECTION,
    ) -> None:
        self._turn_store = turn_store
        self._turns = turns
        self._turn_writes = turn_writes
        self._reads = reads
        self._searcher = searcher
        self._store = store  # the mirrors hold the vectors collapsing compares; None: no collapsing
        self._selection = selection

    async def select(
        self,
        scope: Scope,
        session_id: str,
        params: SearchParams | None,
        query_vector: bytes,
        prompt: str,
        lesson_ids: Sequence[str] = (),
        client: str = "",
        preview: bool = False,
    ) -> Prepared:
        """What to inject for a prompt, with the reason behind every result kept or left out and the lessons read:
        they are shown with the results (a result repeating one is collapsed into it) and recorded
        as injected with them; ``client``: the checked name of the client that sent the prompt,
        kept with the turn. ``preview``: the same answer, with nothing recorded (the viewer's preview)."""
        session_id = check_session_id(session_id)
        beside = await self._reads.find_many(scope, list(lesson_ids)) if lesson_ids else []
        writes = self._turn_writes
        await writes.settle(scope, session_id)
        # A read of about 30 microseconds under the session store's own lock: done inline, it
        # cannot queue behind Chroma writes in the I/O pool when many sessions are busy.
        state = scoring_state_of(self._turn_store.scoring_state(scope, session_id))
        found: list[NormalizedMemory] = []
        choices: list[ContextChoice] = []
        if params is not None:
            # Facts of other projects are never shown: the search leaves them out, so they take no place.
            wider = params
            if not params.memory_id:
                wider = replace(params, limit=params.limit + EXTRA_CANDIDATES, fact_project=scope.project)
            ranked = await self._searcher.search(scope, wider, query_vector)
            current = await self._current_facts(scope, ranked)
            vectors = self._vectors(scope, [*beside, *ranked, *current])
            after = len(beside) + len(ranked)
            found, choices = select(
                ranked,
                vectors[len(beside) : after],
                session_id=session_id,
                project=scope.project,
                limit=params.limit,
                rules=self._selection,
                linked=frozenset(params.boost_ids),
                prompt=params.query or prompt,
                beside=list(zip(beside, vectors[: len(beside)], strict=True)),
                current=list(zip(current, vectors[after:], strict=True)),
            )
            found = [await self._with_previous(scope, m) for m in found]
        injected = list(dict.fromkeys([m.id for m in found] + [m.id for m in beside]))
        if not preview:
            writes.defer(scope, session_id, self._record(scope, session_id, injected, prompt, choices, client))
        return Prepared(found, state, choices, beside)

    async def _record(
        self,
        scope: Scope,
        session_id: str,
        injected: list[str],
        prompt: str,
        choices: list[ContextChoice],
        client: str = "",
    ) -> None:
        """The injection with its choices and client, in one deferred write (one transaction)."""
        text = json.dumps([c.to_json() for c in choices], ensure_ascii=False) if choices and session_id else ""
        await self._turns.write_injection(scope, session_id, injected, prompt, choices=text, client=client)

    async def _current_facts(self, scope: Scope, ranked: Sequence[NormalizedMemory]) -> list[NormalizedMemory]:
        """The facts that replaced a value a result states, where the search did not find them."""
        have = {m.id for m in ranked}
        wanted = [str(m.metadata.get(STALE_VALUE_OF) or "") for m in ranked]
        missing = list(dict.fromkeys(i for i in wanted if i and i not in have))
        return await self._reads.find_many(scope, missing[:MAX_CURRENT_FACTS]) if missing else []

    async def _with_previous(self, scope: Scope, memory: NormalizedMemory) -> NormalizedMemory:
        """A fact with the value it superseded and when that changed (``fact_history``): the archived
        facts are read from the mirror, a dict lookup each."""
        ids = superseded_ids(memory)
        if not ids or self._store is None:
            return memory
        older = [r for r in [await self._store.locate(scope, i) for i in ids] if r is not None]
        return with_previous(memory, older)

    def _vectors(self, scope: Scope, ranked: Sequence[NormalizedMemory]) -> list[Vector | None]:
        """The mirrored vector of each result (None where not mirrored): a few row copies."""
        if self._store is None or len(ranked) < 2:
            return [None] * len(ranked)
        by_collection: dict[str, list[str]] = {}
        for memory in ranked:
            by_collection.setdefault(memory.collection, []).append(memory.id)
        found = self._store.mirrored_vectors(scope, by_collection)
        return [found.get(m.id) for m in ranked]
