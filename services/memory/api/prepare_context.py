"""PrepareContext: the prompt hot path in one call.

The session's scoring state (as it stood before this prompt), the search when
the request has one (``retrieval.searcher``), and the record of what is
injected now, written after the caller has its answer (``TurnWrites`` keeps
it ordered before the session's next operation).
"""

from __future__ import annotations

from collections.abc import Sequence

from services.memory.api.session_turns import ScoringState, SessionTurns, check_session_id, scoring_state_of
from services.memory.domain.naming import Scope
from services.memory.domain.search_params import SearchParams
from services.memory.domain.view import NormalizedMemory
from services.memory.retrieval.searcher import Searcher
from services.memory.storage.session_state import SessionState


class PrepareContext:
    def __init__(self, state: SessionState, turns: SessionTurns, searcher: Searcher) -> None:
        self._state = state
        self._turns = turns
        self._searcher = searcher

    async def prepare(
        self,
        scope: Scope,
        session_id: str,
        params: SearchParams | None,
        query_vector: bytes,
        prompt: str,
        also_injected: Sequence[str] = (),
    ) -> tuple[list[NormalizedMemory], ScoringState]:
        """``also_injected``: ids shown beside the results (the kg's lessons), recorded with them."""
        session_id = check_session_id(session_id)
        writes = self._turns.turn_writes
        await writes.settle(scope, session_id)
        # A read of about 30 microseconds under the session store's own lock: done inline, it
        # cannot queue behind Chroma writes in the I/O pool when many sessions are busy.
        state = scoring_state_of(self._state.scoring_state(scope, session_id))
        found = await self._searcher.search(scope, params, query_vector) if params is not None else []
        injected = list(dict.fromkeys([m.id for m in found] + list(also_injected)))
        writes.defer(scope, session_id, self._turns.write_injection(scope, session_id, injected, prompt))
        return found, state
