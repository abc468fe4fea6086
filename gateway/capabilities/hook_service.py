"""What the client hooks report and ask for: get-context, turns, session start, pre-compact, tool uses.

- ``get_context``: KNOWN CONTEXT (+ the scoring prompt) for a prompt (``gateway.prompt_context``);
  backend failures degrade, never raise.
- ``begin_turn``: a prompt that gets no context (Cursor's beforeSubmitPrompt cannot add any)
  still opens the turn, so the answer is stored with it. Nothing is recorded as injected.
- ``stop``: store the exchange and complete the turn. ``turn_key`` names the turn when a client
  reports one answer from several hooks; the first report stores it, later ones store nothing.
- ``session_start`` / ``pre_compact``: the bounded startup seed and the compaction reminder.
- ``observation`` / ``record_observation`` / ``learn_tool_use``: what a PostToolUse event is
  worth remembering, stored in working memory, and taught to the kg (run in the background).

The memory service owns the turn state (``services.memory.storage.turns``); these
calls only report to it.
"""

from __future__ import annotations

import json
import logging

import grpc

from gateway import activity_feed, formatting, input_validation, prompt_context, teaching
from gateway.backends import Backends
from gateway.caller import Caller
from gateway.capabilities.top_facts import top_facts
from gateway.context_reply import ContextReply
from gateway.replies.hook_replies import CompactReminder, ExchangeStored, ObservationStored, SessionSeed, TurnStarted
from gateway.replies.memory_replies import Memory, memories_json, memories_of
from gateway.rpc import Rpc
from gateway.tool_observations import Observation, observe
from kernel.config import Settings
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.hooks")

SEED_FACTS = 5
SEED_RECENT = 3
SEED_PROVEN = 3
SEED_TIMEOUT = 1.0
OBSERVATION_TIMEOUT = 5.0

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


class HookService:
    def __init__(
        self,
        rpc: Rpc,
        backends: Backends,
        settings: Settings,
        deadlines: prompt_context.Deadlines,
        feed: activity_feed.ActivityFeed | None = None,
    ) -> None:
        self.rpc = rpc
        self.backends = backends  # what get-context and tool teaching call (gateway/backends.py)
        self.settings = settings
        self.deadlines = deadlines
        self.feed = feed or activity_feed.ActivityFeed()  # the viewer's live activity (fire and forget)

    # -- the prompt hot path -------------------------------------------------
    async def get_context(
        self, caller: Caller, *, session_id: str, prompt: str, limit: int = 5, client: str = ""
    ) -> ContextReply:
        """KNOWN CONTEXT (+ scoring prompt) for a prompt; backend failures degrade, never raise."""
        input_validation.in_range(limit, "limit", input_validation.LIMIT_RANGE)
        input_validation.text(prompt, "prompt", input_validation.MAX_PROMPT_CHARS)
        input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS)
        pipeline = prompt_context.build(
            self.backends,
            caller.scope,
            session_id=session_id,
            prompt=prompt,
            limit=limit,
            deadlines=self.deadlines,
            use_kg=self.settings.kg_context,
            client=client,
        )
        result = await prompt_context.within_deadline(pipeline, self.deadlines.total)
        self.feed.publish(
            lambda: activity_feed.prompt_event(caller.user, caller.project, session_id, prompt, result.to_json())
        )
        return result

    # -- turns -----------------------------------------------------------------
    async def begin_turn(self, caller: Caller, *, session_id: str, prompt: str, client: str = "") -> TurnStarted:
        """Open the session's next turn with its prompt and nothing injected."""
        input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS)
        prompt = input_validation.text(prompt, "prompt", input_validation.MAX_PROMPT_CHARS)
        if not prompt.strip():
            return TurnStarted(recorded=False)
        request = mem_pb.RecordInjectionRequest(scope=caller.scope, session_id=session_id, prompt=prompt, client=client)
        await self.rpc.unary("memory", self.rpc.memory(caller.user).RecordInjection, request)
        self.feed.publish(lambda: activity_feed.prompt_event(caller.user, caller.project, session_id, prompt, {}))
        return TurnStarted(recorded=True)

    async def stop(
        self,
        caller: Caller,
        *,
        session_id: str,
        assistant_text: str,
        user_text: str = "",
        turn_key: str = "",
        client: str = "",
    ) -> ExchangeStored:
        """Store the finished exchange in working memory and mark the turn completed.

        ``user_text`` may be empty: the memory service then uses the prompt
        recorded with the turn (get-context or ``begin_turn``). A ``turn_key``
        seen before in the session stores nothing (``already_recorded``).
        """
        input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS)
        input_validation.text(assistant_text, "assistant_text", input_validation.MAX_ASSISTANT_CHARS)
        input_validation.text(user_text, "user_text", input_validation.MAX_PROMPT_CHARS)
        input_validation.text(turn_key, "turn_key", input_validation.MAX_ID_CHARS)
        request = mem_pb.RecordExchangeRequest(
            scope=caller.scope,
            session_id=session_id,
            assistant_text=assistant_text,
            user_text=user_text,
            turn_key=turn_key,
            client=client,
        )
        reply: mem_pb.RecordExchangeResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).RecordExchange, request
        )
        if not reply.already_recorded:
            self.feed.publish(
                lambda: activity_feed.stored_event(
                    caller.user, caller.project, session_id, assistant_text, reply.exchange_id
                )
            )
        return ExchangeStored(exchange_id=reply.exchange_id, already_recorded=reply.already_recorded)

    # -- session start and compaction ------------------------------------------
    async def session_start(self, caller: Caller, *, session_id: str, source: str = "startup") -> SessionSeed:
        """A bounded startup seed: top memory_bank facts, recent and proven project memories.

        Each part degrades on its own; a dead memory service gives an empty seed.
        """
        input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS)
        scope = caller.scope
        memory = self.rpc.memory(caller.user)
        facts: tuple[Memory, ...] = ()
        recent: tuple[Memory, ...] = ()
        proven: tuple[Memory, ...] = ()
        try:
            facts = await top_facts(self.rpc, scope, SEED_FACTS)
        except Exception as exc:
            log.info("session-start facts skipped: %s", exc)
        try:
            request = mem_pb.SearchRequest(
                scope=scope,
                days_back=7,
                collections=["working", "history"],
                limit=SEED_RECENT,
                sort_by=mem_pb.SORT_BY_RECENCY,
            )
            reply: mem_pb.SearchResponse = await self.rpc.call(memory.Search, request, SEED_TIMEOUT)
            recent = memories_of(reply.memories)
        except grpc.aio.AioRpcError as exc:
            log.info("session-start recent skipped: %s", exc.code().name)
        try:
            listing = mem_pb.ListRequest(
                scope=scope, collection="patterns", limit=SEED_PROVEN, sort_by=mem_pb.SORT_BY_SCORE
            )
            reply_list: mem_pb.ListResponse = await self.rpc.call(memory.List, listing, SEED_TIMEOUT)
            proven = memories_of(reply_list.memories)
        except grpc.aio.AioRpcError as exc:
            log.info("session-start proven skipped: %s", exc.code().name)
        seed = formatting.session_seed(memories_json(facts), memories_json(recent), memories_json(proven))
        text = formatting.compose(POST_COMPACT_REMINDER, seed) if source == "compact" else seed
        return SessionSeed(context=text, memories=facts + recent + proven)

    async def pre_compact(self, caller: Caller, *, session_id: str, trigger: str = "") -> CompactReminder:
        """The reminder before compaction: ``context`` for a client that passes it to the model
        (Claude Code does not: it gets it from SessionStart "compact"), ``user_message`` for the user."""
        input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS)
        return CompactReminder(context=formatting.PRE_COMPACT_REMINDER, user_message=PRE_COMPACT_USER_NOTICE)

    # -- tool uses -------------------------------------------------------------
    def observation(
        self, *, cwd: str | None, tool_name: str, tool_input: object, tool_response: object
    ) -> Observation | None:
        """Pure and fast: what a PostToolUse event is worth remembering, if anything (``cwd`` makes paths
        relative; it is the event's own field, not a scope)."""
        return observe(tool_name, tool_input, tool_response, cwd)

    async def learn_tool_use(
        self, caller: Caller, *, tool_name: str, tool_input: object, tool_response: object, session_id: str = ""
    ) -> teaching.ToolTeaching:
        """Teach the kg a tool call's outcome (its episode, and the action graph; run in the background)."""
        return await teaching.teach_tool_use(
            self.backends, caller.scope, tool_name, tool_input, tool_response, session_id
        )

    async def record_observation(
        self, caller: Caller, *, session_id: str, observation: Observation
    ) -> ObservationStored:
        """Store an observation in working memory (run in the background by the route)."""
        metadata = {"type": "observation", "kind": observation.kind, "files": ",".join(observation.files)}
        request = mem_pb.StoreRequest(
            scope=caller.scope,
            collection="working",
            content=observation.text,
            session_id=session_id,
            metadata_json=json.dumps(metadata),
        )
        try:
            reply: mem_pb.StoreResponse = await self.rpc.call(
                self.rpc.memory(caller.user).Store, request, OBSERVATION_TIMEOUT
            )
        except grpc.aio.AioRpcError as exc:
            log.info("observation not stored: %s", exc.code().name)
            return ObservationStored(stored=False)
        return ObservationStored(stored=True, id=reply.memory.id, deduplicated=reply.deduplicated)
