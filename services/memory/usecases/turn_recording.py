"""Use cases of a session's turns: record what was injected, record the exchange, read the scoring state.

A turn is one prompt and its answer (``storage.turns``). Every call
first waits for the session's writes still in flight (``TurnWrites.settle``),
so a turn is recorded before the next operation on it reads it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime

from kernel.blocking_io import BlockingIO
from kernel.privacy import redact
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import WORKING, Scope, check_id, memory_id, new_uid
from services.memory.storage.turns import MAX_SESSION_ID_CHARS, Turn, TurnStore
from services.memory.usecases.exchange_intake import ExchangeIntake
from services.memory.usecases.memory_writes import MemoryWrites
from services.memory.usecases.turn_write_queue import TurnWrites

MAX_INJECTED_IDS = 200
MAX_PROMPT_CHARS = 20_000
EXCHANGE_PART_CHARS = 20_000

# (scoring required, ids injected into the previous turn, that turn's exchange id)
ScoringState = tuple[bool, list[str], str]


def scoring_state_of(turn: Turn | None) -> ScoringState:
    return (False, [], "") if turn is None else (True, turn.injected_ids, turn.exchange_id)


def check_session_id(session_id: str) -> str:
    value = session_id.strip()
    if len(value) > MAX_SESSION_ID_CHARS:
        raise InvalidRequest(f"session_id is longer than {MAX_SESSION_ID_CHARS} characters")
    return redact(value)  # an id is stored and logged: a token pasted as one must not be


def _redacted_pair(user_text: str, assistant_text: str) -> tuple[str, str]:
    return redact(user_text).strip(), redact(assistant_text).strip()


def exchange_text(user_text: str, assistant_text: str) -> str:
    parts = []
    if user_text:
        parts.append(f"User: {user_text[:EXCHANGE_PART_CHARS]}")
    if assistant_text:
        parts.append(f"Assistant: {assistant_text[:EXCHANGE_PART_CHARS]}")
    return "\n".join(parts)


class SessionTurns:
    def __init__(
        self,
        turn_store: TurnStore,
        io: BlockingIO,
        turn_writes: TurnWrites,
        writes: MemoryWrites,
        intake: ExchangeIntake,
        *,
        clock: Callable[[], datetime],
    ) -> None:
        self._turn_store = turn_store
        self._io = io
        self.turn_writes = turn_writes
        self._writes = writes
        self._intake = intake
        self._clock = clock

    async def scoring_state(self, scope: Scope, session_id: str) -> ScoringState:
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        return scoring_state_of(await self._io.run(self._turn_store.scoring_state, scope, session_id))

    async def record_injection(self, scope: Scope, session_id: str, ids: Sequence[str], prompt: str) -> None:
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        await self.write_injection(scope, session_id, ids, prompt)

    async def write_injection(
        self,
        scope: Scope,
        session_id: str,
        ids: Sequence[str],
        prompt: str,
        *,
        choices: str = "",
        client: str = "",
    ) -> None:
        """Record ``ids`` as injected into the session's turn (``session_id`` already checked and settled),
        with ``choices`` (JSON, "" for none) and ``client`` in the same transaction."""
        if len(ids) > MAX_INJECTED_IDS:
            raise InvalidRequest(f"{len(ids)} ids given; record at most {MAX_INJECTED_IDS} per call")
        clean = [check_id(i) for i in ids]
        prompt = redact(prompt[:MAX_PROMPT_CHARS]).strip()
        now = self._clock().timestamp()
        await self._io.run(
            functools.partial(
                self._turn_store.record_injection, scope, session_id, clean, prompt, now, choices=choices, client=client
            )
        )

    async def record_exchange_once(
        self, scope: Scope, session_id: str, turn_key: str, user_text: str, assistant_text: str
    ) -> str | None:
        """``record_exchange`` for the first report of the turn named ``turn_key``; None for any later one.

        A client may report one answer from several hooks (Cursor: afterAgentResponse,
        then stop with the transcript): the key is claimed in the same commit that
        journals the exchange, so whichever report comes first stores it, exactly once.

        The exchange is stored even when the caller stops waiting (a hook that gave up,
        a gRPC deadline that passed): the work is not cancelled with the call, and once
        journaled (``usecases.exchange_intake``) it survives a crash too.
        """
        key = turn_key.strip()
        if len(key) > MAX_SESSION_ID_CHARS:
            raise InvalidRequest(f"turn_key is longer than {MAX_SESSION_ID_CHARS} characters")
        return await self.turn_writes.finish(self._record(scope, session_id, key, user_text, assistant_text))

    async def record_exchange(self, scope: Scope, session_id: str, user_text: str, assistant_text: str) -> str:
        """Store prompt + answer as one working memory and complete the session's turn."""
        return await self._record(scope, session_id, "", user_text, assistant_text) or ""

    async def _record(self, scope: Scope, session_id: str, key: str, user_text: str, assistant_text: str) -> str | None:
        """Journal the exchange and complete the turn (one commit), then hand it to the intake.

        The id returned is the stored memory's, or, when storing takes longer than the
        intake's wait, the id it will be stored under (``ExchangeIntake``).
        """
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id, stored=False)  # the turn, not the last exchange
        turn = await self._io.run(self._turn_store.open_turn, scope, session_id)
        # redaction of a long exchange takes a tenth of a second or more: on the pool, not on the event loop
        user, answer = await self._io.run(_redacted_pair, user_text, assistant_text)
        user = user or (turn.prompt if turn else "")
        content = self._writes.check_content(exchange_text(user, answer)) if user or answer else ""
        entry = await self._io.run(
            self._turn_store.journal_exchange,
            scope,
            session_id,
            key,
            memory_id(WORKING, new_uid()),
            content,
            user,
            answer[:EXCHANGE_PART_CHARS],
            self._clock().timestamp(),
        )
        if entry is None:
            return None
        return await self._intake.accept(entry) if entry.id else ""
