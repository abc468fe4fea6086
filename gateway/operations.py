"""The one implementation behind REST routes, MCP tools and the CLI.

Every method is async and keyword-only, takes ``cwd`` (the project is
``mnemex.projects.resolve(cwd, settings.home)``, the user is
``settings.user``) and returns plain JSON-able dicts. Failures are
``gateway.errors`` exceptions: InvalidInput, NotFound, BackendUnavailable.
An empty ``session_id`` means the scope's most recently active session
(the memory service resolves it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import Any

import grpc

from gateway import context, convert, formatting, teaching, validation
from gateway.backends import Backends
from gateway.errors import InvalidInput, NotFound
from gateway.hook_operations import HookOperations
from gateway.rpc import call
from mnemex import projects
from mnemex.config import Settings
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

JSON = dict[str, Any]
log = logging.getLogger("mnemex.gateway.operations")


class Operations(HookOperations):
    def __init__(self, backends: Backends, settings: Settings, deadlines: context.Deadlines | None = None) -> None:
        self.backends = backends
        self.settings = settings
        self.deadlines = deadlines or context.Deadlines()
        # Session writes finishing after the response (RecordInjection), by (project, session).
        self._pending: dict[tuple[str, str], asyncio.Task[None]] = {}

    # -- scope ---------------------------------------------------------------
    def project(self, cwd: str | None) -> str:
        return projects.resolve(cwd, self.settings.home)

    def scopes(self, cwd: str | None) -> tuple[mem_pb.Scope, kg_pb.Scope]:
        project = self.project(cwd)
        return (
            mem_pb.Scope(user=self.settings.user, project=project),
            kg_pb.Scope(user=self.settings.user, project=project),
        )

    def _opts(self, timeout: float | None = None) -> dict[str, Any]:
        return {"timeout": timeout or self.backends.timeout, "metadata": self.backends.metadata}

    # -- the prompt hot path -------------------------------------------------
    async def get_context(self, *, session_id: str, prompt: str, cwd: str | None, limit: int = 5) -> JSON:
        """{"context", "memories", "scoring_required", "scoring_ids", "scoring_prompt", ...}; never raises for backends."""
        validation.in_range(limit, "limit", validation.LIMIT_RANGE)
        validation.text(prompt, "prompt", validation.MAX_PROMPT_CHARS)
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        mem_scope, kg_scope = self.scopes(cwd)
        key = (mem_scope.project, session_id)
        await self._settle(key)
        return await context.build_bounded(
            self.backends, mem_scope, kg_scope,
            session_id=session_id, prompt=prompt, limit=limit, deadlines=self.deadlines,
            defer=lambda write: self._defer(key, write),
        )

    def _defer(self, key: tuple[str, str], write: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(write)
        self._pending[key] = task
        task.add_done_callback(lambda done: self._pending.pop(key, None) if self._pending.get(key) is done else None)

    async def _settle(self, key: tuple[str, str]) -> None:
        """Wait for this session's deferred write, so turns stay in order within a replica."""
        task = self._pending.get(key)
        if task is not None:
            await asyncio.shield(task)

    async def drain(self) -> None:
        """Finish every deferred write (called on shutdown)."""
        if self._pending:
            await asyncio.gather(*list(self._pending.values()), return_exceptions=True)

    async def insights(self, *, cwd: str | None, session_id: str, query: str) -> JSON:
        """Routing for the query's concepts, the top memories and the user's top facts, as text and data."""
        validation.text(query, "query", validation.MAX_QUERY_CHARS, required=True)
        mem_scope, kg_scope = self.scopes(cwd)
        routing_r, search_r, facts_r = await asyncio.gather(
            context.kg_routing(self.backends, kg_scope, query, self.deadlines.kg * 3),
            call("memory", self.backends.memory.Search(
                mem_pb.SearchRequest(scope=mem_scope, query=query, limit=5, sort_by=mem_pb.SORT_BY_RELEVANCE),
                **self._opts(),
            )),
            self._top_facts(mem_scope, 5),
            return_exceptions=True,
        )
        if isinstance(search_r, BaseException):
            raise search_r
        routing = routing_r if isinstance(routing_r, context.Routing) else context.Routing()
        memories = convert.memories_to_dicts(search_r.memories)
        facts = [] if isinstance(facts_r, BaseException) else facts_r
        seen = {m["id"] for m in memories}
        combined = memories + [f for f in facts if f["id"] not in seen]
        route = routing.as_dict()
        lines = []
        if route["has_preference"]:
            lines.append("Collections that helped for these concepts: " + ", ".join(route["recommended"]))
        elif route["concepts"]:
            lines.append("No learned collection preference yet for: " + ", ".join(route["concepts"][:8]))
        text = "\n".join(lines + [formatting.known_context(combined)]).strip()
        return {"text": text, "memories": combined, "routing": route}

    async def _top_facts(self, scope: mem_pb.Scope, limit: int) -> list[JSON]:
        """memory_bank facts ranked by importance x confidence."""
        reply = await call("memory", self.backends.memory.List(
            mem_pb.ListRequest(scope=scope, collection="memory_bank", limit=50, sort_by=mem_pb.SORT_BY_SCORE),
            **self._opts(),
        ))
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
        """Semantic, time-window or id lookup. ``session_id`` is accepted for symmetry; results are not cached."""
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
        self, *, cwd: str | None, content: str, tags: Sequence[str] = (), importance: float = 0.7, confidence: float = 0.7
    ) -> JSON:
        content = validation.text(content, "content", validation.MAX_CONTENT_CHARS, required=True)
        mem_scope, kg_scope = self.scopes(cwd)
        reply = await call("memory", self.backends.memory.Store(
            mem_pb.StoreRequest(
                scope=mem_scope,
                collection="memory_bank",
                content=content,
                tags=validation.tags(tags),
                importance=validation.unit(importance, "importance"),
                confidence=validation.unit(confidence, "confidence"),
            ),
            **self._opts(),
        ))
        memory = convert.memory_to_dict(reply.memory)
        entities = await self._index_fact(kg_scope, memory["id"], memory["content"])
        return {"memory": memory, "deduplicated": reply.deduplicated, "entities": entities}

    async def _index_fact(self, scope: kg_pb.Scope, fact_id: str, text: str) -> list[str]:
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
            reason=validation.text(reason, "reason", validation.MAX_QUERY_CHARS),
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
        memory_scores: dict[str, str] | None = None,
        related: Sequence[str] | None = None,
    ) -> JSON:
        """Score the session's last exchange; ``related`` None = all injected, [] = none, list = exactly those."""
        exchange_outcome = convert.memory_outcome(outcome)
        per_memory = {
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
        kg = await teaching.teach(self.backends, mem_scope, kg_scope, reply, exchange_outcome)
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
        initial = convert.memory_outcome(initial_score, "initial_score") if initial_score else mem_pb.OUTCOME_UNSPECIFIED
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

    async def stop(self, *, cwd: str | None, session_id: str, assistant_text: str, user_text: str = "") -> JSON:
        """Store the finished exchange in working memory and mark the turn completed.

        ``user_text`` may be empty: the memory service then uses the prompt
        recorded with the turn's injection.
        """
        validation.text(session_id, "session_id", validation.MAX_ID_CHARS)
        validation.text(assistant_text, "assistant_text", validation.MAX_ASSISTANT_CHARS)
        validation.text(user_text, "user_text", validation.MAX_PROMPT_CHARS)
        mem_scope = self.scopes(cwd)[0]
        await self._settle((mem_scope.project, session_id))
        request = mem_pb.RecordExchangeRequest(
            scope=mem_scope, session_id=session_id, assistant_text=assistant_text, user_text=user_text
        )
        reply = await call("memory", self.backends.memory.RecordExchange(request, **self._opts()))
        return {"exchange_id": reply.exchange_id}

    # -- knowledge graph ---------------------------------------------------------
    async def kg_graph(self, *, cwd: str | None, entities: Sequence[str] | None = None, limit: int = 50) -> JSON:
        names = [validation.text(e, "entity", validation.MAX_ID_CHARS) for e in entities or () if e]
        validation.in_range(limit, "limit", (1, 500))
        request = kg_pb.GraphRequest(scope=self.scopes(cwd)[1], entities=names, limit=limit)
        reply = await call("kg", self.backends.kg.Graph(request, **self._opts()))
        return convert.graph_to_dict(reply)

    # -- books -------------------------------------------------------------------
    async def ingest_book(self, *, cwd: str | None, title: str, filename: str, data: bytes, source: str = "") -> JSON:
        validation.book_size(data)
        title = validation.text(title, "title", validation.MAX_TITLE_CHARS, required=True).strip()
        request = mem_pb.IngestBookRequest(
            scope=self.scopes(cwd)[0],
            title=title,
            source=validation.text(source, "source", validation.MAX_TITLE_CHARS),
            data=data,
            filename=validation.text(filename, "filename", validation.MAX_TITLE_CHARS, required=True),
            skip_if_unchanged=True,
        )
        reply = await call("memory", self.backends.memory.IngestBook(request, **self._opts(60.0)))
        return {"title": reply.title, "chunks": reply.chunks, "skipped_unchanged": reply.skipped_unchanged,
                "ids": list(reply.ids)}

    async def list_books(self, *, cwd: str | None) -> JSON:
        reply = await call("memory", self.backends.memory.ListBooks(
            mem_pb.ListBooksRequest(scope=self.scopes(cwd)[0]), **self._opts()
        ))
        return {"books": [
            {"title": b.title, "source": b.source, "chunks": b.chunks, "created_at": b.created_at,
             "content_hash": b.content_hash}
            for b in reply.books
        ]}

    async def remove_book(self, *, cwd: str | None, title: str) -> JSON:
        title = validation.text(title, "title", validation.MAX_TITLE_CHARS, required=True).strip()
        mem_scope, kg_scope = self.scopes(cwd)
        missing = NotFound(f"no book titled {title!r} in this project: list titles with GET /api/books or `mnemex books`")
        try:
            reply = await call("memory", self.backends.memory.RemoveBook(
                mem_pb.RemoveBookRequest(scope=mem_scope, title=title), **self._opts(30.0)
            ))
        except NotFound:
            raise missing from None
        if reply.removed_chunks == 0:
            raise missing
        references = 0
        try:
            kg_reply = await self.backends.kg.RemoveDocs(
                kg_pb.RemoveDocsRequest(scope=kg_scope, doc_ids=list(reply.removed_ids)), **self._opts(5.0)
            )
            references = kg_reply.references_removed
        except grpc.aio.AioRpcError as exc:
            log.warning("kg RemoveDocs after removing %r failed: %s", title, exc.code().name)
        return {"title": title, "removed_chunks": reply.removed_chunks, "removed_ids": list(reply.removed_ids),
                "kg_references_removed": references}

    # -- state -------------------------------------------------------------------
    async def stats(self, *, cwd: str | None) -> JSON:
        mem_scope, kg_scope = self.scopes(cwd)
        memory_r, kg_r = await asyncio.gather(
            call("memory", self.backends.memory.Stats(mem_pb.StatsRequest(scope=mem_scope), **self._opts())),
            call("kg", self.backends.kg.Stats(kg_pb.StatsRequest(scope=kg_scope), **self._opts())),
            return_exceptions=True,
        )
        if isinstance(memory_r, BaseException):
            raise memory_r
        return {
            "user": mem_scope.user,
            "project": mem_scope.project,
            "memory": {
                "counts": dict(memory_r.counts),
                "score_histogram": dict(memory_r.score_histogram),
                "events": dict(memory_r.events),
                "data_bytes": memory_r.data_bytes,
                "events_by_day": convert._json_object(memory_r.events_by_day_json),
            },
            "kg": {"counts": dict(kg_r.counts)} if not isinstance(kg_r, BaseException) else {"error": str(kg_r)},
        }

    async def health(self) -> JSON:
        services = await self.backends.health()
        ok = all(s["status"] == "SERVING" for s in services.values())
        return {"status": "ok" if ok else "degraded", "services": services}
