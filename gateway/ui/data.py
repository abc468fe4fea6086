"""What the viewer's pages show, read through the gateway's services.

``ViewerData`` answers each page in one typed object (TypedDicts, which the templates
read as dicts). A page names its project explicitly (``?project=``), so every call acts
for a ``Caller`` pinned to that project (``CallerResolver.pinned``) instead of one
resolved from a working directory. Searches, edits and archives go through
``MemoriesService``, books and the kg view through ``LibraryService``, the viewer's own
reads (Browse, Restore, ListSessions, ListTurns, OutcomeLog, kg Export) through
``BrowseService``. Their typed replies become what the pages read here, at the viewer's
edge: a memory is its JSON (``memory_replies.Memory.to_json``), the other shapes are the
TypedDicts of ``page_shapes``; the memories page's query is ``memory_query.MemoryQuery``, a session's
turns become rows in ``turn_rows``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from gateway import input_validation
from gateway.caller import Caller, CallerResolver
from gateway.capabilities.browse_service import BrowseService
from gateway.capabilities.library_service import LibraryService
from gateway.capabilities.memories_service import MemoriesService
from gateway.capabilities.preview_service import PreviewService
from gateway.context_reply import ContextReply
from gateway.gateway_errors import InvalidInput, NotFound
from gateway.replies.book_replies import BookRemoved, Books, IngestEvent
from gateway.replies.memory_replies import Memory, memories_json, memories_of
from gateway.replies.reply_json import json_object
from gateway.ui import graph_view
from gateway.ui.memory_query import (
    BROWSE_SORTS,
    BULK_LIMIT,
    PAGE_SIZE,
    SEARCH_POOL,
    MemoryQuery,
    collections_of,
    memory_kind,
    sort_key,
)
from gateway.ui.page_shapes import (
    GraphView,
    InjectedLine,
    MemoryJson,
    MemoryPage,
    MemoryView,
    Overview,
    OverviewStats,
    SessionRow,
    SessionView,
)
from gateway.ui.project_scope import Facts, ScopeRow, scoped_counts, shows_in, without_memories
from gateway.ui.shared_reads import SharedReads
from gateway.ui.turn_rows import answer_of, injected_tokens, outcome_row, turn_row
from kernel import projects
from kernel.json_values import str_at
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

LOOKUP_CHUNK = 100  # ids named in one Browse (the memory service's page limit)
TURNS_SHOWN = 100
GRAPH_NODES = 500  # the kg view's own cap; graph.js switches layout above 200
FOCUS_ENTITIES = 15
LABELLED_MEMORIES = 30


class ViewerData:
    """The viewer's one service: each page's data, for a caller pinned to the page's project."""

    def __init__(
        self,
        callers: CallerResolver,
        browse: BrowseService,
        memories: MemoriesService,
        library: LibraryService,
        previews: PreviewService | None = None,
    ) -> None:
        self.callers = callers
        self.browser = browse
        self.memories_service = memories
        self.library = library
        self.previews = previews
        self._shared = SharedReads()

    async def preview(self, caller: Caller, prompt: str) -> ContextReply:
        """The block the next prompt of ``caller``'s project would get (``PreviewService``: records nothing)."""
        if self.previews is None:
            raise InvalidInput("the preview is not available in this viewer")
        return await self.previews.preview(caller, prompt=prompt)

    # -- scope ----------------------------------------------------------------------------
    def default_project(self) -> str:
        return self.callers.resolve(None).project

    def caller(self, project: str) -> Caller:
        """The caller for ``?project=`` (checked), or for the default project when it is empty."""
        try:
            name = projects.validate_name(project) if project else self.default_project()
        except projects.InvalidProjectName as exc:
            raise InvalidInput(f"project: {exc}") from None
        return self.callers.pinned(name)

    async def projects(self) -> list[ScopeRow]:
        """The current user's projects with their counts per collection (memory_bank is user-wide)."""
        reply = await self.browser.scopes()
        user = self.callers.user()
        return [
            ScopeRow(project=s.scope.project or "(user-wide)", name=s.scope.project, counts=dict(s.counts))
            for s in reply.scopes
            if s.scope.user == user
        ]

    async def project_names(self) -> list[str]:
        return sorted({s["name"] for s in await self.projects() if s["name"]})

    async def most_active_project(self, scopes: Sequence[ScopeRow] | None = None) -> str:
        """The project whose latest session turn is newest; else the one with the most memories; else the default.

        ``/ui`` lands here, so a user with full projects never lands on an empty "default".
        """
        named = [s for s in (await self.projects() if scopes is None else scopes) if s["name"]]
        if not named:
            return self.default_project()

        async def last_activity(name: str) -> str:
            reply = await self.browser.sessions(self.callers.pinned(name), limit=1)
            return reply.sessions[0].last_activity if reply.sessions else ""

        latest = await asyncio.gather(*(last_activity(s["name"]) for s in named))
        ranked = sorted(
            zip(named, latest, strict=True),
            key=lambda pair: (pair[1], sum(pair[0]["counts"].values()), pair[0]["name"]),
            reverse=True,
        )
        return ranked[0][0]["name"]

    # -- pages ----------------------------------------------------------------------------
    async def overview(self, project: str) -> Overview:
        """The project's counts (the memory service leaves other projects' facts out), score histogram,
        lifecycle events, and every project's row; no ``project``: the most active one."""
        if project:
            caller = self.caller(project)
            reply, scopes = await asyncio.gather(self.browser.overview(caller), self.projects())
        else:
            scopes = await self.projects()
            caller = self.caller(await self.most_active_project(scopes))
            reply = await self.browser.overview(caller)
        stats = OverviewStats(
            counts=dict(reply.counts),
            score_histogram=dict(reply.score_histogram),
            events=dict(reply.events),
            events_by_day=json_object(reply.events_by_day_json),
        )
        return Overview(project=caller.project, stats=stats, projects=scoped_counts(scopes, _facts(reply)))

    async def project_table(self) -> list[ScopeRow]:
        """``projects`` with each memory_bank fact counted on the row of the project it belongs to."""
        scopes, facts = await asyncio.gather(self.projects(), self.facts(self.caller("")))
        return scoped_counts(scopes, facts)

    async def facts(self, caller: Caller) -> Facts:
        """The user's memory_bank facts (archived ones too), each with the project it belongs to."""
        return _facts(await self.browser.overview(caller))

    async def memories(self, project: str, q: MemoryQuery) -> MemoryPage:
        """A page of memories: the search's relevant ones for a query, else the browsed list.

        Another project's facts neither show nor count: the memory service's Browse leaves them out
        before paging. A search answers as the REST search does (``MemoriesService.search``): only
        memories above the relevance floor, copies of one text collapsed into one row
        (``duplicates``); ``relevant`` is how many passed the floor here.
        """
        caller = self.caller(project)
        q = q.checked()
        if q.query:
            return await self._search(caller, q)
        sort = q.sort if q.sort in BROWSE_SORTS else "recency"  # no query: nothing to be relevant to
        reply = await self.browser.browse(
            caller,
            collections=[q.collection] if q.collection else [],
            tag=q.tag,
            sort=sort,
            limit=PAGE_SIZE,
            offset=(q.page - 1) * PAGE_SIZE,
            archived=q.archived,
            kind=q.kind,
        )
        return MemoryPage(
            memories=memories_json(memories_of(reply.memories)),
            total=reply.total,
            relevant=None,
            capped=False,
            tags=list(reply.tags),
            sort=sort,
        )

    async def _search(self, caller: Caller, q: MemoryQuery) -> MemoryPage:
        reply = await self.memories_service.find(
            caller,
            query=q.query,
            collections=[q.collection] if q.collection else None,
            limit=SEARCH_POOL,
            sort_by="relevance",
            metadata={"tags": {"$contains": q.tag}} if q.tag else None,
        )
        judged = reply.relevant is not None
        relevant = [h for h in reply.hits if shows_in(h.memory, caller.project)]
        hits = relevant
        if q.archived == "archived":
            hits = [h for h in hits if h.memory.archived]
        if q.kind:
            hits = [h for h in hits if memory_kind(h.memory.collection, h.memory.metadata or {}) == q.kind]
        sort = q.sort or "relevance"
        if sort != "relevance":
            hits = sorted(hits, key=lambda h: sort_key(sort, h.memory), reverse=True)
        offset = (q.page - 1) * PAGE_SIZE
        return MemoryPage(
            memories=[h.to_json() for h in hits[offset : offset + PAGE_SIZE]],
            total=len(hits),
            # how many passed the relevance floor in this project, before the kind and state filters
            relevant=len(relevant) if judged else None,
            capped=len(reply.hits) >= SEARCH_POOL,  # the ranking stopped at the pool: more may match
            tags=sorted({t for h in hits for t in h.memory.tags}),
            sort=sort,
        )

    async def get_memory(self, project: str, memory_id: str) -> MemoryJson:
        caller = self.caller(project)
        memory_id = input_validation.memory_id(memory_id)
        try:
            memory = await self.browser.get(caller, memory_id)
        except NotFound:
            raise NotFound(
                f"no memory {memory_id!r} in project {caller.project!r}: it may belong to another project "
                "(switch project at the top) or have been deleted; find it from the Memories page"
            ) from None
        return Memory.from_proto(memory).to_json()

    async def memory_page(self, project: str, memory_id: str) -> MemoryView:
        caller = self.caller(project)
        memory_id = input_validation.memory_id(memory_id)
        memory, log, turns = await asyncio.gather(
            self.get_memory(project, memory_id),
            self.browser.outcome_log(caller, memory_id),
            self.browser.turns(caller, memory_id=memory_id, limit=50),
        )
        return MemoryView(
            memory=memory,
            outcomes=[outcome_row(e) for e in log.entries],
            turns=[turn_row(t) for t in turns.turns],
            written_by=turns.written_by,
        )

    async def update(self, project: str, memory_id: str, *, content: str, tags: Sequence[str]) -> MemoryJson:
        caller = self.caller(project)
        result = await self.memories_service.update(caller, id=memory_id, content=content, tags=list(tags))
        return result.memory.to_json()

    async def archive(self, project: str, memory_id: str) -> MemoryJson:
        caller = self.caller(project)
        result = await self.memories_service.archive(caller, id=memory_id, reason="archived in the viewer")
        return result.memory.to_json()

    async def archive_many(self, project: str, memory_ids: Sequence[str]) -> list[str]:
        """Archive each id; returns those archived (an id already gone is skipped, not an error)."""
        caller = self.caller(project)
        ids = list(dict.fromkeys(input_validation.memory_id(i) for i in memory_ids))[:BULK_LIMIT]

        async def one(memory_id: str) -> str:
            try:
                await self.memories_service.archive(caller, id=memory_id, reason="archived in bulk in the viewer")
            except NotFound:
                return ""
            return memory_id

        return [i for i in await asyncio.gather(*(one(i) for i in ids)) if i]

    async def restore_many(self, project: str, memory_ids: Sequence[str]) -> list[str]:
        ids = list(dict.fromkeys(input_validation.memory_id(i) for i in memory_ids))[:BULK_LIMIT]

        async def one(memory_id: str) -> str:
            try:
                await self.restore(project, memory_id)
            except NotFound:
                return ""
            return memory_id

        return [i for i in await asyncio.gather(*(one(i) for i in ids)) if i]

    async def restore(self, project: str, memory_id: str) -> MemoryJson:
        restored = await self.browser.restore(self.caller(project), input_validation.memory_id(memory_id))
        return restored.to_json()

    async def sessions(self, project: str) -> list[SessionRow]:
        reply = await self.browser.sessions(self.caller(project), limit=100)
        return [
            SessionRow(
                session_id=s.session_id,
                last_activity=s.last_activity,
                turns=s.turns,
                title=s.first_prompt,
                clients=list(s.clients),
            )
            for s in reply.sessions
        ]

    async def session(self, project: str, session_id: str) -> SessionView:
        """The session's turns; each injected memory with its rank, what it is now and the outcome it got."""
        caller = self.caller(project)
        session_id = input_validation.text(session_id, "session", input_validation.MAX_ID_CHARS, required=True)
        reply = await self.browser.turns(caller, session_id=session_id, limit=TURNS_SHOWN)
        if not reply.turns:
            raise NotFound(f"no turns recorded for session {session_id!r} in this project")
        turns = [turn_row(t) for t in reply.turns]
        exchanges = [t["exchange_id"] for t in turns if t["exchange_id"]]
        known = await self.lookup(caller, [*(i for t in turns for i in t["injected"]), *exchanges])
        for turn in turns:
            exchange = known.get(turn["exchange_id"]) if turn["exchange_id"] else None
            turn["answer"] = answer_of(str_at(exchange, "content"), turn["prompt"]) if exchange else None
            outcomes = {o["memory_id"]: o for o in turn["outcomes"]}
            chosen = {str(c.get("id")): c for c in turn["choices"]}
            lines = [
                InjectedLine(rank=rank, id=i, memory=known.get(i), outcome=outcomes.get(i), choice=chosen.get(i))
                for rank, i in enumerate(turn["injected"], start=1)
            ]
            turn["memories"] = lines
            turn["left_out"] = [c for c in turn["choices"] if not c.get("kept")]
            turn["tokens"] = injected_tokens([line["memory"] for line in lines if line["memory"]])
        return SessionView(session_id=session_id, turns=turns)

    async def _label_memories(self, caller: Caller, elements: graph_view.Elements) -> None:
        """Label the first fact and solution nodes with their memories' text (the rest keep what
        ``graph_view`` names them by: the entities or problem they link to)."""
        nodes = [n["data"] for n in elements["nodes"] if n["data"]["kind"] in ("solution", "fact")]
        nodes = sorted(nodes, key=lambda n: n["kind"] != "solution")[:LABELLED_MEMORIES]  # solutions first
        found = await self.lookup(caller, [n.get("memory", "") for n in nodes], archived=False)
        for node in nodes:
            memory = found.get(node.get("memory", ""))
            if memory is not None:
                node["label"] = graph_view.short(str_at(memory, "content"))

    async def lookup(self, caller: Caller, ids: Sequence[str], *, archived: bool = True) -> dict[str, MemoryJson]:
        """The memories of ``ids`` still stored, by id: the active ones in one Browse per hundred (the memory
        service's mirrors), then (``archived``) a Get for each of the rest (archived, or another project's fact)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, MemoryJson] = {}
        for start in range(0, len(wanted), LOOKUP_CHUNK):
            chunk = wanted[start : start + LOOKUP_CHUNK]
            reply = await self.browser.browse(
                caller,
                collections=collections_of(chunk),
                tag="",
                sort="recency",
                limit=len(chunk),
                offset=0,
                archived="active",
                kind="",
                ids=chunk,
            )
            found.update((m.id, m.to_json()) for m in memories_of(reply.memories))
        rest = [i for i in wanted if i not in found] if archived else []
        for memory_id, memory in zip(rest, await asyncio.gather(*(self._get(caller, i) for i in rest)), strict=True):
            if memory is not None:
                found[memory_id] = memory
        return found

    async def _get(self, caller: Caller, memory_id: str) -> MemoryJson | None:
        try:
            memory = await self.browser.get(caller, memory_id)
        except NotFound:
            return None
        return Memory.from_proto(memory).to_json()

    async def graph(self, project: str, find: str = "", hops: int = 1) -> GraphView:
        """Routing and the top entities (kg view), those entities' facts, and problem → solution links.

        With ``find``: the graph around that concept or problem instead, ``hops`` (1 or 2) entity hops out.
        """
        caller = self.caller(project)
        find = input_validation.text(find, "find", input_validation.MAX_ID_CHARS).strip()
        who = (caller.user, caller.project)
        base, export, facts = await asyncio.gather(
            self._shared.read(("kg_graph", *who), lambda: self.library.graph(caller, limit=GRAPH_NODES)),
            self._shared.read(("kg_export", *who), lambda: self.browser.kg_export(caller)),
            self._shared.read(("facts", *who), lambda: self.facts(caller)),
        )
        problems = graph_view.problems_of(export.graph_json)
        rates = graph_view.rates_of(base.routing)
        if find:
            first = await self.library.graph(caller, entities=[find], limit=GRAPH_NODES)
            more = graph_view.hop_entities(first, {find}, FOCUS_ENTITIES) if hops > 1 else []
            second = await self.library.graph(caller, entities=more, limit=GRAPH_NODES) if more else None
            shown = graph_view.matching_problems(problems, find)
            elements = graph_view.elements(first, second, shown, rates)
        else:
            top = [n.label for n in base.nodes if n.kind not in graph_view.NOT_ENTITIES][:FOCUS_ENTITIES]
            focused = await self.library.graph(caller, entities=top, limit=GRAPH_NODES) if top else None
            elements = graph_view.elements(base, focused, problems, rates)
        elements = without_memories(elements, facts.foreign_ids(caller.project))  # another project's facts
        await self._label_memories(caller, elements)
        return GraphView(elements=elements, routing=graph_view.routing_rows(base.routing), problems=problems)

    async def books(self, project: str) -> Books:
        return await self.library.books(self.caller(project))

    async def ingest_progress(
        self, project: str, *, title: str, filename: str, data: bytes, source: str = ""
    ) -> AsyncIterator[IngestEvent]:
        return await self.library.ingest_progress(
            self.caller(project), title=title, filename=filename, data=data, source=source
        )

    async def remove_book(self, project: str, title: str) -> BookRemoved:
        return await self.library.remove(self.caller(project), title=title)


def _facts(overview: mem_pb.OverviewResponse) -> Facts:
    return Facts(tuple((f.id, f.project, f.archived) for f in overview.facts))
