"""What the viewer's pages show, read through the gateway's operations and backends.

``ViewerData(ops)`` answers each page in one object of plain dicts. A page
names its project explicitly (``?project=``), so every call goes through
``ProjectOperations``: the gateway's ``Operations`` with the project pinned
instead of resolved from a working directory. The memory service's viewer
RPCs (Browse, Restore, ListSessions, ListTurns, OutcomeLog) are called here.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gateway import convert, validation
from gateway.errors import InvalidInput, NotFound
from gateway.operations import Operations
from gateway.rpc import call
from gateway.ui import graph_view
from kernel import projects
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as memory_grpc

JSON = dict[str, Any]
COLLECTIONS = ("working", "history", "patterns", "memory_bank", "books")
BROWSE_SORTS = ("recency", "score", "wilson", "uses")
SEARCH_SORTS = ("relevance", *BROWSE_SORTS)
ARCHIVED = ("active", "archived", "all")
# The kind filter's choices (the memory service's ``browse.MemoryKind``), with their labels.
KINDS = {
    "exchange": "exchange",
    "observation": "tool observation",
    "takeaway": "takeaway",
    "fact": "fact",
    "book": "book chunk",
    "other": "other",
}
PAGE_SIZE = 20
BULK_LIMIT = PAGE_SIZE  # bulk archive acts on the rows of one page
SEARCH_POOL = 100  # a search ranks this many, then the page is cut from them
MAX_PAGE = 500
TURNS_SHOWN = 100
GRAPH_NODES = 500  # the kg view's own cap; graph.js switches layout above 200
FOCUS_ENTITIES = 15
LABELLED_MEMORIES = 30


class ProjectOperations(Operations):
    """``Operations`` whose project is fixed (the viewer's ``?project=``), not resolved from a cwd."""

    def __init__(self, base: Operations, project: str) -> None:  # no super().__init__(): a view of base
        self.__dict__.update(base.__dict__)  # the same backends, settings, resolver and token table, not copies
        self.pinned = project

    def project(self, cwd: str | None) -> str:
        return self.pinned


@dataclass(frozen=True)
class MemoryQuery:
    query: str = ""
    collection: str = ""
    tag: str = ""
    sort: str = ""
    archived: str = "active"
    page: int = 1
    kind: str = ""

    def checked(self) -> MemoryQuery:
        if self.collection and self.collection not in COLLECTIONS:
            raise InvalidInput(f"collection={self.collection!r} is unknown: use one of {', '.join(COLLECTIONS)}")
        if self.sort and self.sort not in SEARCH_SORTS:
            raise InvalidInput(f"sort={self.sort!r} is unknown: use one of {', '.join(SEARCH_SORTS)}")
        if self.archived not in ARCHIVED:
            raise InvalidInput(f"archived={self.archived!r} is unknown: use one of {', '.join(ARCHIVED)}")
        if self.kind and self.kind not in KINDS:
            raise InvalidInput(f"kind={self.kind!r} is unknown: use one of {', '.join(KINDS)} (or none)")
        if not 1 <= self.page <= MAX_PAGE:
            raise InvalidInput(f"page={self.page} is out of range: use 1-{MAX_PAGE}")
        validation.text(self.query, "q", validation.MAX_QUERY_CHARS)
        validation.text(self.tag, "tag", validation.MAX_TAG_CHARS)
        return self


def kind_of(memory: JSON) -> str:
    """A search hit's kind, by the rule the memory service's Browse filters on (``browse.kind_of``)."""
    collection = memory.get("collection", "")
    if collection == "books":
        return "book"
    if collection == "memory_bank":
        return "fact"
    metadata = memory.get("metadata") or {}
    if metadata.get("kind") == "exchange":
        return "exchange"
    marked = metadata.get("type")
    return marked if marked in ("observation", "takeaway") else "other"


def _sort_key(sort: str, memory: JSON) -> tuple[Any, ...]:
    if sort == "score":
        return (memory["score"],)
    if sort == "wilson":
        return (memory["wilson_score"], memory["score"])
    if sort == "uses":
        return (memory["uses"], memory["score"])
    if sort == "recency":
        return (memory["created_at"],)
    return (memory.get("final_rank_score") or 0.0,)


class ViewerData:
    def __init__(self, ops: Operations) -> None:
        self.ops = ops

    # -- scope ----------------------------------------------------------------------------
    def default_project(self) -> str:
        return self.ops.project(None)

    def project_ops(self, project: str) -> ProjectOperations:
        try:
            name = projects.validate_name(project) if project else self.default_project()
        except projects.InvalidProjectName as exc:
            raise InvalidInput(f"project: {exc}") from None
        return ProjectOperations(self.ops, name)

    def _scope(self, project: str) -> common_pb.Scope:
        return common_pb.Scope(user=self.ops.user, project=project)

    def _opts(self) -> dict[str, Any]:
        return self.ops._opts()

    @property
    def memory(self) -> memory_grpc.MemoryServiceStub:
        return self.ops.backends.memory

    async def projects(self) -> list[JSON]:
        """The current user's projects with their counts per collection (memory_bank is user-wide)."""
        reply = await call("memory", self.memory.ListScopes(mem_pb.ListScopesRequest(), **self._opts()))
        user = self.ops.user
        return [
            {"project": s.scope.project or "(user-wide)", "name": s.scope.project, "counts": dict(s.counts)}
            for s in reply.scopes
            if s.scope.user == user
        ]

    async def project_names(self) -> list[str]:
        return sorted({s["name"] for s in await self.projects() if s["name"]})

    async def most_active_project(self) -> str:
        """The project whose latest session turn is newest; else the one with the most memories; else the default.

        ``/ui`` lands here, so a user with full projects never lands on an empty "default".
        """
        scopes = [s for s in await self.projects() if s["name"]]
        if not scopes:
            return self.default_project()

        async def last_activity(name: str) -> str:
            request = mem_pb.ListSessionsRequest(scope=self._scope(name), limit=1)
            reply = await call("memory", self.memory.ListSessions(request, **self._opts()))
            return reply.sessions[0].last_activity if reply.sessions else ""

        latest = await asyncio.gather(*(last_activity(s["name"]) for s in scopes))
        ranked = sorted(
            zip(scopes, latest, strict=True),
            key=lambda pair: (pair[1], sum(pair[0]["counts"].values()), pair[0]["name"]),
            reverse=True,
        )
        return str(ranked[0][0]["name"])

    # -- pages ----------------------------------------------------------------------------
    async def overview(self, project: str) -> JSON:
        ops = self.project_ops(project)
        request = mem_pb.OverviewRequest(scope=self._scope(ops.pinned))
        reply, scopes = await asyncio.gather(
            call("memory", self.memory.Overview(request, **self._opts())), self.projects()
        )
        stats = {
            "counts": dict(reply.counts),
            "score_histogram": dict(reply.score_histogram),
            "events": dict(reply.events),
            "events_by_day": convert._json_object(reply.events_by_day_json),
        }
        return {"project": ops.pinned, "stats": stats, "projects": scopes}

    async def memories(self, project: str, q: MemoryQuery) -> JSON:
        ops = self.project_ops(project)
        q = q.checked()
        collections = [q.collection] if q.collection else []
        offset = (q.page - 1) * PAGE_SIZE
        if q.query:
            metadata = {"tags": {"$contains": q.tag}} if q.tag else None
            found = await ops.search(
                cwd=None,
                query=q.query,
                collections=collections or None,
                limit=SEARCH_POOL,
                sort_by="relevance",
                metadata=metadata,
            )
            hits = found["memories"]
            if q.archived == "archived":
                hits = [m for m in hits if m["archived"]]
            if q.kind:
                hits = [m for m in hits if kind_of(m) == q.kind]
            sort = q.sort or "relevance"
            if sort != "relevance":
                hits.sort(key=lambda m: _sort_key(sort, m), reverse=True)
            tags = sorted({t for m in hits for t in m["tags"]})
            return {
                "memories": hits[offset : offset + PAGE_SIZE],
                "total": len(hits),
                "capped": len(found["memories"]) >= SEARCH_POOL,  # the ranking stopped at the pool: more may match
                "tags": tags,
                "sort": sort,
            }
        reply = await call(
            "memory",
            self.memory.Browse(
                mem_pb.BrowseRequest(
                    scope=self._scope(ops.pinned),
                    collections=collections,
                    tag=q.tag,
                    sort=q.sort if q.sort in BROWSE_SORTS else "recency",  # no query: nothing to be relevant to
                    limit=PAGE_SIZE,
                    offset=offset,
                    archived=q.archived,
                    kind=q.kind,
                ),
                **self._opts(),
            ),
        )
        return {
            "memories": convert.memories_to_dicts(reply.memories),
            "total": reply.total,
            "capped": False,
            "tags": list(reply.tags),
            "sort": q.sort if q.sort in BROWSE_SORTS else "recency",
        }

    async def get_memory(self, project: str, memory_id: str) -> JSON:
        scope = self._scope(self.project_ops(project).pinned)
        memory_id = validation.memory_id(memory_id)
        try:
            reply = await call("memory", self.memory.Get(mem_pb.GetRequest(scope=scope, id=memory_id), **self._opts()))
        except NotFound:
            raise NotFound(
                f"no memory {memory_id!r} in project {scope.project!r}: it may belong to another project "
                "(switch project at the top) or have been deleted; find it from the Memories page"
            ) from None
        return convert.memory_to_dict(reply.memory)

    async def memory_page(self, project: str, memory_id: str) -> JSON:
        scope = self._scope(self.project_ops(project).pinned)
        memory_id = validation.memory_id(memory_id)
        memory, log, turns = await asyncio.gather(
            self.get_memory(project, memory_id),
            call(
                "memory",
                self.memory.OutcomeLog(mem_pb.OutcomeLogRequest(scope=scope, memory_id=memory_id), **self._opts()),
            ),
            call(
                "memory",
                self.memory.ListTurns(
                    mem_pb.ListTurnsRequest(scope=scope, memory_id=memory_id, limit=50), **self._opts()
                ),
            ),
        )
        return {
            "memory": memory,
            "outcomes": [_outcome(e) for e in log.entries],
            "turns": [_turn(t) for t in turns.turns],
            "written_by": turns.written_by,
        }

    async def update(self, project: str, memory_id: str, *, content: str, tags: Sequence[str]) -> JSON:
        ops = self.project_ops(project)
        result = await ops.update_memory(cwd=None, id=memory_id, content=content, tags=list(tags))
        return result["memory"]

    async def archive(self, project: str, memory_id: str) -> JSON:
        result = await self.project_ops(project).archive_memory(cwd=None, id=memory_id, reason="archived in the viewer")
        return result["memory"]

    async def archive_many(self, project: str, memory_ids: Sequence[str]) -> list[str]:
        """Archive each id; returns those archived (an id already gone is skipped, not an error)."""
        ops = self.project_ops(project)
        ids = list(dict.fromkeys(validation.memory_id(i) for i in memory_ids))[:BULK_LIMIT]

        async def one(memory_id: str) -> str:
            try:
                await ops.archive_memory(cwd=None, id=memory_id, reason="archived in bulk in the viewer")
            except NotFound:
                return ""
            return memory_id

        return [i for i in await asyncio.gather(*(one(i) for i in ids)) if i]

    async def restore_many(self, project: str, memory_ids: Sequence[str]) -> list[str]:
        ids = list(dict.fromkeys(validation.memory_id(i) for i in memory_ids))[:BULK_LIMIT]

        async def one(memory_id: str) -> str:
            try:
                await self.restore(project, memory_id)
            except NotFound:
                return ""
            return memory_id

        return [i for i in await asyncio.gather(*(one(i) for i in ids)) if i]

    async def restore(self, project: str, memory_id: str) -> JSON:
        scope = self._scope(self.project_ops(project).pinned)
        request = mem_pb.RestoreRequest(scope=scope, id=validation.memory_id(memory_id))
        reply = await call("memory", self.memory.Restore(request, **self._opts()))
        return convert.memory_to_dict(reply.memory)

    async def sessions(self, project: str) -> list[JSON]:
        scope = self._scope(self.project_ops(project).pinned)
        reply = await call(
            "memory", self.memory.ListSessions(mem_pb.ListSessionsRequest(scope=scope, limit=100), **self._opts())
        )
        return [
            {
                "session_id": s.session_id,
                "last_activity": s.last_activity,
                "turns": s.turns,
                "title": s.first_prompt,
                "clients": list(s.clients),
            }
            for s in reply.sessions
        ]

    async def session(self, project: str, session_id: str) -> JSON:
        """The session's turns; each injected memory with its rank, what it is now and the outcome it got."""
        scope = self._scope(self.project_ops(project).pinned)
        session_id = validation.text(session_id, "session", validation.MAX_ID_CHARS, required=True)
        reply = await call(
            "memory",
            self.memory.ListTurns(
                mem_pb.ListTurnsRequest(scope=scope, session_id=session_id, limit=TURNS_SHOWN), **self._opts()
            ),
        )
        if not reply.turns:
            raise NotFound(f"no turns recorded for session {session_id!r} in this project")
        turns = [_turn(t) for t in reply.turns]
        exchanges = [t["exchange_id"] for t in turns if t["exchange_id"]]
        ids = list(dict.fromkeys([*(i for t in turns for i in t["injected"]), *exchanges]))
        found = await asyncio.gather(*(self._lookup(scope, i) for i in ids))
        known = dict(zip(ids, found, strict=True))
        for turn in turns:
            exchange = known.get(turn["exchange_id"]) if turn["exchange_id"] else None
            turn["answer"] = answer_of(exchange["content"], turn["prompt"]) if exchange else None
            outcomes = {o["memory_id"]: o for o in turn["outcomes"]}
            chosen = {str(c.get("id")): c for c in turn["choices"]}
            turn["memories"] = [
                {"rank": rank, "id": i, "memory": known.get(i), "outcome": outcomes.get(i), "choice": chosen.get(i)}
                for rank, i in enumerate(turn["injected"], start=1)
            ]
            turn["left_out"] = [c for c in turn["choices"] if not c.get("kept")]
        return {"session_id": session_id, "turns": turns}

    async def _label_memories(self, scope: common_pb.Scope, elements: JSON) -> None:
        """Label the first fact and solution nodes with their memories' text (the rest keep what
        ``graph_view`` names them by: the entities or problem they link to)."""
        nodes = [n["data"] for n in elements["nodes"] if n["data"]["kind"] in ("solution", "fact")]
        nodes = sorted(nodes, key=lambda n: n["kind"] != "solution")[:LABELLED_MEMORIES]  # solutions first
        found = await asyncio.gather(*(self._lookup(scope, n["memory"]) for n in nodes))
        for node, memory in zip(nodes, found, strict=True):
            if memory is not None:
                node["label"] = graph_view.short(memory["content"])

    async def _lookup(self, scope: common_pb.Scope, memory_id: str) -> JSON | None:
        try:
            reply = await call("memory", self.memory.Get(mem_pb.GetRequest(scope=scope, id=memory_id), **self._opts()))
        except NotFound:
            return None
        return convert.memory_to_dict(reply.memory)

    async def graph(self, project: str, find: str = "", hops: int = 1) -> JSON:
        """Routing and the top entities (kg view), those entities' facts, and problem → solution links.

        With ``find``: the graph around that concept or problem instead, ``hops`` (1 or 2) entity hops out.
        """
        ops = self.project_ops(project)
        scope = self._scope(ops.pinned)
        find = validation.text(find, "find", validation.MAX_ID_CHARS).strip()
        base, export = await asyncio.gather(
            ops.kg_graph(cwd=None, limit=GRAPH_NODES),
            call("kg", self.ops.backends.kg.Export(kg_pb.ExportRequest(scope=scope), **self._opts())),
        )
        problems = graph_view.problems_of(export.graph_json)
        rates = graph_view.rates_of(base.get("routing") or {})
        if find:
            first = await ops.kg_graph(cwd=None, entities=[find], limit=GRAPH_NODES)
            more = graph_view.hop_entities(first, {find}, FOCUS_ENTITIES) if hops > 1 else []
            second = await ops.kg_graph(cwd=None, entities=more, limit=GRAPH_NODES) if more else {}
            shown = graph_view.matching_problems(problems, find)
            if not first.get("nodes"):
                first = {"nodes": [], "edges": []}
            elements = graph_view.elements(first, second, shown, rates)
        else:
            top = [n["label"] for n in base["nodes"] if n["kind"] not in graph_view.NOT_ENTITIES][:FOCUS_ENTITIES]
            focused = await ops.kg_graph(cwd=None, entities=top, limit=GRAPH_NODES) if top else {}
            elements = graph_view.elements(base, focused, problems, rates)
        await self._label_memories(scope, elements)
        return {
            "elements": elements,
            "routing": graph_view.routing_rows(base.get("routing") or {}),
            "problems": problems,
        }

    async def books(self, project: str) -> JSON:
        return await self.project_ops(project).list_books(cwd=None)


def _outcome(entry: mem_pb.OutcomeEntry) -> JSON:
    return {
        "at": entry.at,
        "memory_id": entry.memory_id,
        "outcome": entry.outcome,
        "score_before": round(entry.score_before, 4),
        "score_after": round(entry.score_after, 4),
        "collection_before": entry.collection_before,
        "collection_after": entry.collection_after,
        "transition": entry.transition,
        "new_id": entry.new_id,
        "session_id": entry.session_id,
        "turn_id": entry.turn_id,
    }


def _turn(turn: mem_pb.TurnRecord) -> JSON:
    return {
        "id": turn.id,
        "session_id": turn.session_id,
        "prompt": turn.prompt,
        "injected": list(turn.injected_ids),
        "completed": turn.completed,
        "scored": turn.scored,
        "exchange_id": turn.exchange_id,
        "started_at": turn.started_at,
        "outcome": turn.outcome,
        "outcomes": [_outcome(o) for o in turn.outcomes],
        "choices": _choices(turn.choices_json),
        "client": turn.client,
    }


ANSWER_MARK = "Assistant: "


def answer_of(exchange: str, prompt: str) -> str:
    """The assistant's answer in a stored exchange (``User: <prompt>\nAssistant: <answer>``)."""
    asked = f"User: {prompt}\n{ANSWER_MARK}"
    if prompt and exchange.startswith(asked):
        return exchange[len(asked) :]
    if exchange.startswith(ANSWER_MARK):
        return exchange[len(ANSWER_MARK) :]
    _, found, answer = exchange.partition("\n" + ANSWER_MARK)
    return answer if found else ""


def _choices(text: str) -> list[JSON]:
    """PrepareContext's choices for a turn (kept or left out, and why); [] when none were kept."""
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []
