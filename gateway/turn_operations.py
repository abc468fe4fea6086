"""A session's turns as the clients report them: prompt in, answer out, memories shown.

A mixin of ``Operations`` (it relies on ``scopes``, ``_opts`` and
``backends`` there). The memory service owns the turn state
(``services.memory.storage.session_state``); these calls only report to it:

- ``begin_turn``: a prompt that gets no context (Cursor's beforeSubmitPrompt
  cannot add any) still opens the turn, so the answer is stored with it.
  Nothing is recorded as injected: the model was shown nothing.
- ``stop``: store the exchange and complete the turn. ``turn_key`` names the
  turn when a client reports one answer from several hooks; the first report
  stores it, later ones store nothing.
- ``remember_shown``: memories an MCP tool returned join the turn in progress
  of the scope's latest session (the same session an empty ``session_id``
  scores), so ``score_response`` with ``related`` omitted scores them with
  that turn, on the next turn. Best effort: it never fails the tool.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import grpc

from gateway import validation
from gateway.rpc import call
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

if TYPE_CHECKING:
    from gateway.backends import Backends

JSON = dict[str, Any]
log = logging.getLogger("mnemex.gateway.turns")

MAX_SHOWN_IDS = 200  # the memory service records at most this many per call
SHOWN_TIMEOUT = 1.0


class TurnOperations:
    if TYPE_CHECKING:  # provided by Operations
        backends: Backends

        def scopes(self, cwd: str | None) -> tuple[common_pb.Scope, Any]: ...
        def _opts(self, timeout: float | None = None) -> dict[str, Any]: ...

    async def begin_turn(self, *, cwd: str | None, session_id: str, prompt: str, client: str = "") -> JSON:
        """Open the session's next turn with its prompt and nothing injected."""
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        prompt = validation.text(prompt, "prompt", validation.MAX_PROMPT_CHARS)
        if not prompt.strip():
            return {"recorded": False}
        request = mem_pb.RecordInjectionRequest(
            scope=self.scopes(cwd)[0], session_id=session_id, prompt=prompt, client=client
        )
        await call("memory", self.backends.memory.RecordInjection(request, **self._opts()))
        return {"recorded": True}

    async def stop(
        self,
        *,
        cwd: str | None,
        session_id: str,
        assistant_text: str,
        user_text: str = "",
        turn_key: str = "",
        client: str = "",
    ) -> JSON:
        """Store the finished exchange in working memory and mark the turn completed.

        ``user_text`` may be empty: the memory service then uses the prompt
        recorded with the turn (get-context or ``begin_turn``). A ``turn_key``
        seen before in the session stores nothing (``already_recorded``).
        """
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        validation.text(assistant_text, "assistant_text", validation.MAX_ASSISTANT_CHARS)
        validation.text(user_text, "user_text", validation.MAX_PROMPT_CHARS)
        validation.text(turn_key, "turn_key", validation.MAX_ID_CHARS)
        request = mem_pb.RecordExchangeRequest(
            scope=self.scopes(cwd)[0],
            session_id=session_id,
            assistant_text=assistant_text,
            user_text=user_text,
            turn_key=turn_key,
            client=client,
        )
        reply = await call("memory", self.backends.memory.RecordExchange(request, **self._opts()))
        return {"exchange_id": reply.exchange_id, "already_recorded": reply.already_recorded}

    async def remember_shown(self, *, cwd: str | None, ids: Iterable[str], session_id: str = "") -> bool:
        """Add ``ids`` to the turn in progress (``session_id`` empty: the scope's latest session).

        A score applies to the last finished turn only, so ids shown while answering
        turn N are scored with turn N's exchange by the score sent during turn N+1.
        """
        shown = list(dict.fromkeys(i for i in ids if i))[:MAX_SHOWN_IDS]
        if not shown:
            return False
        request = mem_pb.RecordInjectionRequest(scope=self.scopes(cwd)[0], session_id=session_id, ids=shown)
        try:
            await self.backends.memory.RecordInjection(request, timeout=SHOWN_TIMEOUT, metadata=self.backends.metadata)
        except grpc.aio.AioRpcError as exc:
            log.info("shown memories not recorded for scoring: %s", exc.code().name)
            return False
        return True
