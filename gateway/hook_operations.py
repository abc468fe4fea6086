"""Operations only the client hooks use: session start, pre-compact, tool observations.

A mixin of ``Operations`` (it relies on ``scopes``, ``_opts`` and
``_top_facts`` there), kept apart so each module stays small.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import grpc

from gateway import convert, formatting, teaching, validation
from gateway.observations import Observation, observe
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

if TYPE_CHECKING:
    from gateway.backends import Backends

JSON = dict[str, Any]
log = logging.getLogger("mnemex.gateway.hooks")

SEED_FACTS = 5
SEED_RECENT = 3
SEED_PROVEN = 3
SEED_TIMEOUT = 1.0

# Claude Code drops PreCompact output; the SessionStart that follows compaction
# (source "compact") reaches the model, so the reminder travels there, in past tense.
POST_COMPACT_REMINDER = (
    "mnemex: this conversation was just compacted; its earlier part survives only as a summary. "
    "If that part settled a decision, found a fix that worked, or corrected you, save it now with "
    "record_response(key_takeaway=...) or add_to_memory_bank(...)."
)
# For clients that show pre-compaction hook output to the user only (Cursor's user_message).
PRE_COMPACT_USER_NOTICE = (
    "mnemex: this chat is being compacted. To keep a decision or a fix from it, "
    "ask the agent to save it (record_response or add_to_memory_bank)."
)


class HookOperations:
    if TYPE_CHECKING:  # provided by Operations
        backends: Backends

        def scopes(self, cwd: str | None) -> tuple[common_pb.Scope, Any]: ...
        async def _top_facts(self, scope: common_pb.Scope, limit: int) -> list[JSON]: ...

    async def session_start(self, *, cwd: str | None, session_id: str, source: str = "startup") -> JSON:
        """A bounded startup seed: top memory_bank facts, recent and proven project memories.

        Each part degrades on its own; a dead memory service gives an empty seed.
        """
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        mem_scope = self.scopes(cwd)[0]
        facts: list[JSON] = []
        recent: list[JSON] = []
        proven: list[JSON] = []
        try:
            facts = await self._top_facts(mem_scope, SEED_FACTS)
        except Exception as exc:
            log.info("session-start facts skipped: %s", exc)
        try:
            reply = await self.backends.memory.Search(
                mem_pb.SearchRequest(
                    scope=mem_scope,
                    days_back=7,
                    collections=["working", "history"],
                    limit=SEED_RECENT,
                    sort_by=mem_pb.SORT_BY_RECENCY,
                ),
                timeout=SEED_TIMEOUT,
                metadata=self.backends.metadata,
            )
            recent = convert.memories_to_dicts(reply.memories)
        except grpc.aio.AioRpcError as exc:
            log.info("session-start recent skipped: %s", exc.code().name)
        try:
            reply_list = await self.backends.memory.List(
                mem_pb.ListRequest(
                    scope=mem_scope, collection="patterns", limit=SEED_PROVEN, sort_by=mem_pb.SORT_BY_SCORE
                ),
                timeout=SEED_TIMEOUT,
                metadata=self.backends.metadata,
            )
            proven = convert.memories_to_dicts(reply_list.memories)
        except grpc.aio.AioRpcError as exc:
            log.info("session-start proven skipped: %s", exc.code().name)
        seed = formatting.session_seed(facts, recent, proven)
        text = formatting.compose(POST_COMPACT_REMINDER, seed) if source == "compact" else seed
        return {"context": text, "memories": facts + recent + proven}

    async def pre_compact(self, *, cwd: str | None, session_id: str, trigger: str = "") -> JSON:
        """The reminder before compaction: ``context`` for a client that passes it to the model
        (Claude Code does not: it gets it from SessionStart "compact"), ``user_message`` for the user."""
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        return {"context": formatting.PRE_COMPACT_REMINDER, "user_message": PRE_COMPACT_USER_NOTICE}

    def observation(
        self, *, cwd: str | None, tool_name: str, tool_input: Any, tool_response: Any
    ) -> Observation | None:
        """Pure and fast: what a PostToolUse event is worth remembering, if anything."""
        return observe(tool_name, tool_input, tool_response, cwd)

    async def learn_tool_use(
        self, *, cwd: str | None, tool_name: str, tool_input: Any, tool_response: Any, session_id: str = ""
    ) -> JSON:
        """Teach the kg a tool call's outcome (its episode, and the action graph; run in the background)."""
        return await teaching.teach_tool_use(
            self.backends, self.scopes(cwd)[1], tool_name, tool_input, tool_response, session_id
        )

    async def record_observation(self, *, cwd: str | None, session_id: str, observation: Observation) -> JSON:
        """Store an observation in working memory (run in the background by the route)."""
        metadata = {"type": "observation", "kind": observation.kind, "files": ",".join(observation.files)}
        request = mem_pb.StoreRequest(
            scope=self.scopes(cwd)[0],
            collection="working",
            content=observation.text,
            session_id=session_id,
            metadata_json=json.dumps(metadata),
        )
        try:
            reply = await self.backends.memory.Store(request, timeout=5.0, metadata=self.backends.metadata)
        except grpc.aio.AioRpcError as exc:
            log.info("observation not stored: %s", exc.code().name)
            return {"stored": False}
        return {"stored": True, "id": reply.memory.id, "deduplicated": reply.deduplicated}
