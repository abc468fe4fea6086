"""The one implementation behind REST routes, MCP tools and the CLI.

Every method is async and keyword-only, takes ``cwd`` (the project is
``kernel.projects.resolve(cwd, settings.home)``, the user is
``settings.user``) and returns plain JSON-able dicts. Failures are
``gateway.errors`` exceptions: InvalidInput, NotFound, BackendUnavailable.
An empty ``session_id`` means the scope's most recently active session
(the memory service resolves it).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import grpc

from gateway import context, convert, insights, teaching, validation
from gateway.admin_operations import AdminOperations
from gateway.backends import Backends
from gateway.backfill_operations import BackfillOperations
from gateway.consolidation_operations import ConsolidationOperations
from gateway.errors import InvalidInput, NotFound
from gateway.hook_operations import HookOperations
from gateway.library_operations import LibraryOperations
from gateway.portability_operations import PortabilityOperations
from gateway.rpc import call
from gateway.turn_operations import TurnOperations
from gateway.user_tokens import UserTokens, authenticated_user
from kernel import projects
from kernel.config import Settings
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

JSON = dict[str, Any]
log = logging.getLogger("mnemex.gateway.operations")


class Operations(
    HookOperations,
    TurnOperations,
    LibraryOperations,
    AdminOperations,
    PortabilityOperations,
    BackfillOperations,
    ConsolidationOperations,
):
    def __init__(self, backends: Backends, settings: Settings, deadlines: context.Deadlines | None = None) -> None:
        self.backends = backends
        self.settings = settings
        self.deadlines = deadlines or context.Deadlines()
        self._projects = projects.CachedResolver(settings.home)
        # MNEMEX_USER_TOKENS: per-user tokens; a request made with one acts as its user (gateway/user_tokens.py)
        self.user_tokens = UserTokens(settings.user_tokens_file) if settings.user_tokens_file else None

    # -- scope ---------------------------------------------------------------
    def project(self, cwd: str | None) -> str:
        if self.acts_for_one_user:  # a per-user token: the cwd is a path on the user's machine, never ours to probe
            return projects.resolve_remote(cwd, self.settings.home)
        return self._projects(cwd)

    @property
    def user(self) -> str:
        """Whose memories this request reaches: a per-user token's user, else the configured user."""
        return authenticated_user.get() or self.settings.user

    @property
    def acts_for_one_user(self) -> bool:
        """True when a per-user token made this request: it may not reach other users' data."""
        return authenticated_user.get() is not None

    def scopes(self, cwd: str | None) -> tuple[common_pb.Scope, common_pb.Scope]:
        project = self.project(cwd)
        user = self.user
        return common_pb.Scope(user=user, project=project), common_pb.Scope(user=user, project=project)

    def _opts(self, timeout: float | None = None) -> dict[str, Any]:
        return {"timeout": timeout or self.backends.timeout, "metadata": self.backends.metadata}

    # -- the prompt hot path -------------------------------------------------
    async def get_context(
        self, *, session_id: str, prompt: str, cwd: str | None, limit: int = 5, client: str = ""
    ) -> JSON:
        """KNOWN CONTEXT (+ scoring prompt) for a prompt; backend failures degrade, never raise."""
        validation.in_range(limit, "limit", validation.LIMIT_RANGE)
        validation.text(prompt, "prompt", validation.MAX_PROMPT_CHARS)
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        mem_scope, kg_scope = self.scopes(cwd)
        return await context.build_bounded(
            self.backends,
            mem_scope,
            kg_scope,
            session_id=session_id,
            prompt=prompt,
            limit=limit,
            deadlines=self.deadlines,
            use_kg=self.settings.kg_context,
            client=client,
        )

    async def insights(self, *, cwd: str | None, session_id: str, query: str) -> JSON:
        """Routing, solutions, failures, action effectiveness, top memories and facts (gateway/insights.py)."""
        validation.text(query, "query", validation.MAX_QUERY_CHARS, required=True)
        mem_scope, kg_scope = self.scopes(cwd)
        return await insights.insights(
            self.backends, self.deadlines, mem_scope, kg_scope, query, self._top_facts(mem_scope, 5)
        )

    async def _top_facts(self, scope: common_pb.Scope, limit: int) -> list[JSON]:
        """memory_bank facts ranked by importance x confidence."""
        reply = await call(
            "memory",
            self.backends.memory.List(
                mem_pb.ListRequest(scope=scope, collection="memory_bank", limit=50, sort_by=mem_pb.SORT_BY_SCORE),
                **self._opts(),
            ),
        )
        facts = convert.memories_to_dicts(reply.memories)
        facts.sort(key=lambda f: -((f.get("importance") or 0.0) * (f.get("confidence") or 0.0)))
        return facts[:limit]

    # -- search and memory_bank ----------------------------------------------
    async def search(
        self,
        *,
        cwd: str | None,
        query: str | None = None,
        days_back: int | None = None,
        id: str | None = None,
        collections: Sequence[str] | None = None,
        limit: int = 10,
        sort_by: str = "relevance",
        metadata: dict[str, Any] | None = None,
        session_id: str = "",
    ) -> JSON:
        """Semantic, time-window or id lookup. A read only: the MCP tool records what it shows
        (``remember_shown``); REST searches (a UI browsing memories) score nothing."""
        query = validation.text(query, "query", validation.MAX_QUERY_CHARS).strip()
        lookup = validation.memory_id(id) if id else ""
        if days_back is not None:
            validation.in_range(days_back, "days_back", validation.DAYS_BACK_RANGE)
        if not (query or days_back or lookup):
            raise InvalidInput(
                "nothing to search for: pass query (text), days_back (1-365, e.g. 7 for last week's memories) "
                "or id (from an [id:...] tag)"
            )
        validation.in_range(limit, "limit", validation.LIMIT_RANGE)
        request = mem_pb.SearchRequest(
            scope=self.scopes(cwd)[0],
            query=query,
            collections=convert.collections(collections),
            limit=limit,
            days_back=days_back or 0,
            id=lookup,
            sort_by=convert.sort_by(sort_by),
            metadata_filters_json=validation.metadata_json(metadata),
        )
        reply = await call("memory", self.backends.memory.Search(request, **self._opts()))
        memories = convert.memories_to_dicts(reply.memories)
        if lookup and not memories:
            raise NotFound(f"no memory with id {lookup!r} in this project or your memory_bank")
        return {"memories": memories}

    async def add_memory_bank(
        self,
        *,
        cwd: str | None,
        content: str,
        tags: Sequence[str] = (),
        importance: float = 0.7,
        confidence: float = 0.7,
        user_wide: bool = False,
    ) -> JSON:
        content = validation.text(content, "content", validation.MAX_CONTENT_CHARS, required=True)
        mem_scope, kg_scope = self.scopes(cwd)
        reply = await call(
            "memory",
            self.backends.memory.Store(
                mem_pb.StoreRequest(
                    scope=mem_scope,
                    collection="memory_bank",
                    content=content,
                    tags=validation.tags(tags),
                    importance=validation.unit(importance, "importance"),
                    confidence=validation.unit(confidence, "confidence"),
                    user_wide=bool(user_wide),
                ),
                **self._opts(),
            ),
        )
        memory = convert.memory_to_dict(reply.memory)
        entities = await self._index_fact(kg_scope, memory["id"], memory["content"])
        return {
            "memory": memory,
            "deduplicated": reply.deduplicated,
            "entities": entities,
            "superseded": list(reply.superseded_ids),
        }

    async def _index_fact(self, scope: common_pb.Scope, fact_id: str, text: str) -> list[str]:
        try:
            reply = await self.backends.kg.IndexFact(
                kg_pb.IndexFactRequest(scope=scope, fact_id=fact_id, text=text[:20_000]), **self._opts(1.0)
            )
        except grpc.aio.AioRpcError as exc:
            log.info("kg IndexFact skipped: %s", exc.code().name)
            return []
        return [e.name for e in reply.entities]

    async def update_memory(
        self,
        *,
        cwd: str | None,
        id: str,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
    ) -> JSON:
        memory_id = validation.memory_id(id)
        if content is None and tags is None and importance is None and confidence is None:
            raise InvalidInput("nothing to update: pass content, tags, importance or confidence")
        if content is not None:
            validation.text(content, "content", validation.MAX_CONTENT_CHARS, required=True)
        mem_scope, kg_scope = self.scopes(cwd)
        request = mem_pb.UpdateRequest(
            scope=mem_scope,
            id=memory_id,
            content=content,
            tags=validation.tags(tags),
            replace_tags=tags is not None,
            importance=validation.unit(importance, "importance"),
            confidence=validation.unit(confidence, "confidence"),
        )
        reply = await call("memory", self.backends.memory.Update(request, **self._opts()))
        memory = convert.memory_to_dict(reply.memory)
        if content is not None and memory["collection"] == "memory_bank":
            await self._index_fact(kg_scope, memory["id"], memory["content"])
        return {"memory": memory}

    async def archive_memory(self, *, cwd: str | None, id: str, reason: str = "") -> JSON:
        request = mem_pb.ArchiveRequest(
            scope=self.scopes(cwd)[0],
            id=validation.memory_id(id),
            reason=validation.text(reason, "reason", validation.MAX_REASON_CHARS),
        )
        reply = await call("memory", self.backends.memory.Archive(request, **self._opts()))
        return {"memory": convert.memory_to_dict(reply.memory)}

    # -- outcomes --------------------------------------------------------------
    async def score(
        self,
        *,
        cwd: str | None,
        session_id: str,
        outcome: str,
        memory_scores: Mapping[str, str] | None = None,
        related: Sequence[str] | None = None,
    ) -> JSON:
        """Score the session's last exchange; ``related`` None = all injected, [] = none, list = exactly those."""
        exchange_outcome = convert.memory_outcome(outcome)
        per_memory: dict[str, common_pb.Outcome] = {
            key: convert.memory_outcome(value, f"memory_scores[{key!r}]")
            for key, value in (memory_scores or {}).items()
        }
        validation.ids(per_memory, "memory_scores")
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        mem_scope, kg_scope = self.scopes(cwd)
        request = mem_pb.ScoreRequest(
            scope=mem_scope, session_id=session_id, outcome=exchange_outcome, memory_scores=per_memory
        )
        if related is not None:
            request.related.CopyFrom(mem_pb.IdList(ids=validation.ids(related, "related")))
        reply = await call("memory", self.backends.memory.Score(request, **self._opts()))
        kg = await teaching.teach(self.backends, mem_scope, kg_scope, reply, exchange_outcome, session_id)
        return {
            "scored": [convert.scored_to_dict(s) for s in reply.scored],
            "not_found": list(reply.not_found),
            "exchange_id": reply.exchange_id,
            "kg": kg,
        }

    async def record_takeaway(
        self, *, cwd: str | None, session_id: str, key_takeaway: str, initial_score: str | None = None
    ) -> JSON:
        content = validation.text(key_takeaway, "key_takeaway", validation.MAX_CONTENT_CHARS, required=True)
        initial = (
            convert.memory_outcome(initial_score, "initial_score") if initial_score else common_pb.OUTCOME_UNSPECIFIED
        )
        request = mem_pb.StoreRequest(
            scope=self.scopes(cwd)[0],
            collection="working",
            content=content,
            initial_outcome=initial,
            session_id=validation.text(session_id, "session_id", validation.MAX_ID_CHARS),
            metadata_json='{"type": "takeaway"}',
        )
        reply = await call("memory", self.backends.memory.Store(request, **self._opts()))
        return {"memory": convert.memory_to_dict(reply.memory), "deduplicated": reply.deduplicated}
