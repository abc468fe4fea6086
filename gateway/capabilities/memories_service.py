"""Reading and writing memories: search, the memory_bank (add, update, archive), scores, takeaways, insights.

``remember_shown``: memories an MCP tool returned join the turn in progress of the
scope's latest session (the same session an empty ``session_id`` scores), so
``score`` with ``related`` omitted scores them with that turn, on the next turn.
Best effort: it never fails the tool. REST searches (a UI browsing memories) record nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence

import grpc

from gateway import activity_feed, input_validation, insights, prompt_context, proto_dicts, teaching
from gateway.backends import Backends
from gateway.caller import Caller
from gateway.capabilities.top_facts import top_facts
from gateway.gateway_errors import InvalidInput, NotFound
from gateway.replies.memory_replies import Memory, MemoryChange, SearchHit, SearchReply, StoredFact, memories_of
from gateway.replies.score_replies import ScoredMemory, ScoreReply
from gateway.rpc import Rpc
from kernel.config import Settings
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.memories")

INDEX_FACT_TIMEOUT = 1.0
MAX_SHOWN_IDS = 200  # the memory service records at most this many per call
SHOWN_TIMEOUT = 1.0


class MemoriesService:
    def __init__(
        self,
        rpc: Rpc,
        settings: Settings,
        deadlines: prompt_context.Deadlines,
        backends: Backends,
        activity: activity_feed.ActivityFeed | None = None,
    ) -> None:
        self.activity = activity or activity_feed.ActivityFeed()  # scores reach the viewer's live activity
        self.rpc = rpc
        self.backends = backends  # what insights and teaching call (gateway/backends.py)
        self.settings = settings
        self.deadlines = deadlines

    async def find(
        self,
        caller: Caller,
        *,
        query: str | None = None,
        days_back: int | None = None,
        id: str | None = None,
        collections: Sequence[str] | None = None,
        limit: int = 10,
        sort_by: str = "relevance",
        metadata: Mapping[str, object] | None = None,
        all_projects: bool = False,
    ) -> SearchReply:
        """Semantic, time-window or id lookup. A read only: the MCP tool records what it shows
        (``remember_shown``); REST searches (a UI browsing memories) score nothing.

        Answered as a list (``distinct_relevant``): copies of one text come back once, with
        ``duplicates`` (how many copies were collapsed into it) and ``duplicate_ids``, and the
        limit counts distinct memories. With a query, only memories that pass the memory
        service's relevance floor come back and ``relevant`` is their count (0: nothing stored
        is relevant to the query); without one (a time window, an id) ``relevant`` is None.

        ``all_projects``: every project of the caller's user is searched (each as its own scope, so each
        applies its own relevance floor), and the best ``limit`` of all come back, each with its project."""
        query = input_validation.text(query, "query", input_validation.MAX_QUERY_CHARS).strip()
        lookup = input_validation.memory_id(id) if id else ""
        if days_back is not None:
            input_validation.in_range(days_back, "days_back", input_validation.DAYS_BACK_RANGE)
        if not (query or days_back or lookup):
            raise InvalidInput(
                "nothing to search for: pass query (text), days_back (1-3650, e.g. 7 for last week's memories) "
                "or id (from an [id:...] tag)"
            )
        input_validation.in_range(limit, "limit", input_validation.LIMIT_RANGE)
        request = mem_pb.SearchRequest(
            query=query,
            collections=proto_dicts.collections(collections),
            limit=limit,
            days_back=days_back or 0,
            id=lookup,
            sort_by=proto_dicts.sort_by(sort_by),
            metadata_filters_json=input_validation.metadata_json(metadata),
            distinct_relevant=True,
        )
        if all_projects:
            projects = await self._projects_of(caller.user)
            found = await asyncio.gather(
                *(self._search_scope(Caller(caller.user, p, caller.remote), request) for p in projects)
            )
            memories, judged = _best_of(found, sort_by, limit), any(j for _, j in found)
        else:
            memories, judged = await self._search_scope(caller, request)
        if lookup and not memories:
            raise NotFound(f"no memory with id {lookup!r} in this project or your memory_bank")
        return SearchReply(hits=tuple(memories), relevant=len(memories) if judged else None)

    async def _search_scope(self, caller: Caller, request: mem_pb.SearchRequest) -> tuple[list[SearchHit], bool]:
        scoped = mem_pb.SearchRequest()
        scoped.CopyFrom(request)
        scoped.scope.CopyFrom(caller.scope)
        reply: mem_pb.SearchResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Search, scoped)
        hits = [
            SearchHit(
                memory,
                tuple(reply.duplicate_ids[memory.id].ids) if memory.id in reply.duplicate_ids else (),
            )
            for memory in memories_of(reply.memories)
        ]
        return hits, reply.relevance_judged

    async def _projects_of(self, user: str) -> list[str]:
        """Every project holding this user's memories (the memory_bank's user-wide scope included)."""
        reply = await self.rpc.scopes()
        return sorted({info.scope.project for info in reply.scopes if info.scope.user == user})

    async def insights(self, caller: Caller, *, query: str) -> insights.Insights:
        """Routing, solutions, failures, action effectiveness, top memories and facts (gateway/insights.py)."""
        input_validation.text(query, "query", input_validation.MAX_QUERY_CHARS, required=True)
        scope = caller.scope
        return await insights.insights(
            self.rpc, self.backends, self.deadlines, scope, query, top_facts(self.rpc, scope, 5)
        )

    async def remember_shown(self, caller: Caller, *, ids: Iterable[str], session_id: str = "") -> bool:
        """Add ``ids`` to the turn in progress (``session_id`` empty: the scope's latest session).

        A score applies to the last finished turn only, so ids shown while answering
        turn N are scored with turn N's exchange by the score sent during turn N+1.
        """
        shown = list(dict.fromkeys(i for i in ids if i))[:MAX_SHOWN_IDS]
        if not shown:
            return False
        request = mem_pb.RecordInjectionRequest(scope=caller.scope, session_id=session_id, ids=shown)
        try:
            await self.rpc.call(self.rpc.memory(caller.user).RecordInjection, request, SHOWN_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            log.info("shown memories not recorded for scoring: %s", exc.code().name)
            return False
        return True

    # -- the memory_bank -------------------------------------------------------
    async def add_memory_bank(
        self,
        caller: Caller,
        *,
        content: str,
        tags: Sequence[str] = (),
        importance: float = 0.7,
        confidence: float = 0.7,
        user_wide: bool = False,
    ) -> StoredFact:
        content = input_validation.text(content, "content", input_validation.MAX_CONTENT_CHARS, required=True)
        request = mem_pb.StoreRequest(
            scope=caller.scope,
            collection="memory_bank",
            content=content,
            tags=input_validation.tags(tags),
            importance=input_validation.unit(importance, "importance"),
            confidence=input_validation.unit(confidence, "confidence"),
            user_wide=bool(user_wide),
        )
        reply: mem_pb.StoreResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Store, request)
        memory = Memory.from_proto(reply.memory)
        entities = await self._index_fact(caller, memory.id, memory.content)
        return StoredFact(
            memory=memory,
            deduplicated=reply.deduplicated,
            entities=tuple(entities),
            superseded=tuple(reply.superseded_ids),
        )

    async def _index_fact(self, caller: Caller, fact_id: str, text: str) -> list[str]:
        request = kg_pb.IndexFactRequest(scope=caller.scope, fact_id=fact_id, text=text[:20_000])
        try:
            reply: kg_pb.IndexFactResponse = await self.rpc.call(
                self.rpc.kg(caller.user).IndexFact, request, INDEX_FACT_TIMEOUT
            )
        except grpc.aio.AioRpcError as exc:
            log.info("kg IndexFact skipped: %s", exc.code().name)
            return []
        return [e.name for e in reply.entities]

    async def update(
        self,
        caller: Caller,
        *,
        id: str,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
    ) -> MemoryChange:
        memory_id = input_validation.memory_id(id)
        if content is None and tags is None and importance is None and confidence is None:
            raise InvalidInput("nothing to update: pass content, tags, importance or confidence")
        if content is not None:
            input_validation.text(content, "content", input_validation.MAX_CONTENT_CHARS, required=True)
        request = mem_pb.UpdateRequest(
            scope=caller.scope,
            id=memory_id,
            content=content,
            tags=input_validation.tags(tags),
            replace_tags=tags is not None,
            importance=input_validation.unit(importance, "importance"),
            confidence=input_validation.unit(confidence, "confidence"),
        )
        reply: mem_pb.UpdateResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Update, request)
        memory = Memory.from_proto(reply.memory)
        if content is not None and memory.collection == "memory_bank":
            await self._index_fact(caller, memory.id, memory.content)
        return MemoryChange(memory)

    async def archive(self, caller: Caller, *, id: str, reason: str = "") -> MemoryChange:
        request = mem_pb.ArchiveRequest(
            scope=caller.scope,
            id=input_validation.memory_id(id),
            reason=input_validation.text(reason, "reason", input_validation.MAX_REASON_CHARS),
        )
        reply: mem_pb.ArchiveResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Archive, request)
        return MemoryChange(Memory.from_proto(reply.memory))

    # -- outcomes --------------------------------------------------------------
    async def score(
        self,
        caller: Caller,
        *,
        session_id: str,
        outcome: str,
        memory_scores: Mapping[str, str] | None = None,
        related: Sequence[str] | None = None,
    ) -> ScoreReply:
        """Score the session's last exchange; ``related`` None = all injected, [] = none, list = exactly those."""
        exchange_outcome = proto_dicts.memory_outcome(outcome)
        per_memory: dict[str, common_pb.Outcome] = {
            key: proto_dicts.memory_outcome(value, f"memory_scores[{key!r}]")
            for key, value in (memory_scores or {}).items()
        }
        input_validation.ids(per_memory, "memory_scores")
        input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS)
        scope = caller.scope
        request = mem_pb.ScoreRequest(
            scope=scope, session_id=session_id, outcome=exchange_outcome, memory_scores=per_memory
        )
        if related is not None:
            request.related.CopyFrom(mem_pb.IdList(ids=input_validation.ids(related, "related")))
        reply: mem_pb.ScoreResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Score, request)
        kg = await teaching.teach(self.backends, scope, reply, exchange_outcome, session_id)
        scored = tuple(ScoredMemory.from_proto(s, proto_dicts.outcome_from_proto(s.outcome)) for s in reply.scored)
        self.activity.publish(
            lambda: activity_feed.scored_event(caller.user, caller.project, session_id, outcome, scored)
        )
        return ScoreReply(scored=scored, not_found=tuple(reply.not_found), exchange_id=reply.exchange_id, kg=kg)

    async def record_takeaway(
        self, caller: Caller, *, session_id: str, key_takeaway: str, initial_score: str | None = None
    ) -> MemoryChange:
        content = input_validation.text(key_takeaway, "key_takeaway", input_validation.MAX_CONTENT_CHARS, required=True)
        initial = (
            proto_dicts.memory_outcome(initial_score, "initial_score")
            if initial_score
            else common_pb.OUTCOME_UNSPECIFIED
        )
        request = mem_pb.StoreRequest(
            scope=caller.scope,
            collection="working",
            content=content,
            initial_outcome=initial,
            session_id=input_validation.text(session_id, "session_id", input_validation.MAX_ID_CHARS),
            metadata_json='{"type": "takeaway"}',
        )
        reply: mem_pb.StoreResponse = await self.rpc.unary("memory", self.rpc.memory(caller.user).Store, request)
        return MemoryChange(Memory.from_proto(reply.memory), deduplicated=reply.deduplicated)


def _relevance(hit: SearchHit) -> float:
    m = hit.memory
    if m.final_rank_score is not None:
        return m.final_rank_score
    return m.embedding_similarity if m.embedding_similarity is not None else 0.0


_SORT_KEYS: dict[str, Callable[[SearchHit], float | str]] = {
    "relevance": _relevance,
    "recency": lambda h: h.memory.created_at,
    "score": lambda h: h.memory.score,
}


def _best_of(found: Sequence[tuple[list[SearchHit], bool]], sort_by: str, limit: int) -> list[SearchHit]:
    """The best ``limit`` memories of several projects' answers, each once (the user-wide memory_bank
    answers in every project)."""
    seen: dict[str, SearchHit] = {}
    for hits, _ in found:
        for hit in hits:
            seen.setdefault(hit.memory.id, hit)
    key = _SORT_KEYS.get(sort_by, _SORT_KEYS["relevance"])
    return sorted(seen.values(), key=key, reverse=True)[:limit]
