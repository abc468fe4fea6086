"""The memories pages' reads and writes: a page of memories (browsed, or a search's relevant ones), one
memory with its outcomes and turns, edits, archives and restores, and the lookup of memories by id that the
session and graph pages share. Each acts for the caller pinned to the page's project (``PageCallers``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from gateway import input_validation
from gateway.caller import Caller
from gateway.capabilities.browse_service import BrowseService
from gateway.capabilities.memories_service import MemoriesService
from gateway.gateway_errors import NotFound
from gateway.replies.memory_replies import Memory, memories_json, memories_of
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
from gateway.ui.page_shapes import MemoryJson, MemoryPage, MemoryView
from gateway.ui.project_scope import PageCallers, shows_in
from gateway.ui.turn_rows import outcome_row, turn_row

LOOKUP_CHUNK = 100  # ids named in one Browse (the memory service's page limit)


class ViewerMemories:
    """The memories pages' data, read through ``BrowseService`` and written through ``MemoriesService``."""

    def __init__(self, pages: PageCallers, browse: BrowseService, memories: MemoriesService) -> None:
        self.pages = pages
        self.browser = browse
        self.memories_service = memories

    async def page(self, project: str, q: MemoryQuery) -> MemoryPage:
        """A page of memories: the search's relevant ones for a query, else the browsed list.

        Another project's facts neither show nor count: the memory service's Browse leaves them out
        before paging. A search answers as the REST search does (``MemoriesService.search``): only
        memories above the relevance floor, copies of one text collapsed into one row
        (``duplicates``); ``relevant`` is how many passed the floor here.
        """
        caller = self.pages.caller(project)
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

    async def get(self, project: str, memory_id: str) -> MemoryJson:
        caller = self.pages.caller(project)
        memory_id = input_validation.memory_id(memory_id)
        try:
            memory = await self.browser.get(caller, memory_id)
        except NotFound:
            raise NotFound(
                f"no memory {memory_id!r} in project {caller.project!r}: it may belong to another project "
                "(switch project at the top) or have been deleted; find it from the Memories page"
            ) from None
        return Memory.from_proto(memory).to_json()

    async def view(self, project: str, memory_id: str) -> MemoryView:
        caller = self.pages.caller(project)
        memory_id = input_validation.memory_id(memory_id)
        memory, log, turns = await asyncio.gather(
            self.get(project, memory_id),
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
        caller = self.pages.caller(project)
        result = await self.memories_service.update(caller, id=memory_id, content=content, tags=list(tags))
        return result.memory.to_json()

    async def archive(self, project: str, memory_id: str) -> MemoryJson:
        caller = self.pages.caller(project)
        result = await self.memories_service.archive(caller, id=memory_id, reason="archived in the viewer")
        return result.memory.to_json()

    async def archive_many(self, project: str, memory_ids: Sequence[str]) -> list[str]:
        """Archive each id; returns those archived (an id already gone is skipped, not an error)."""
        caller = self.pages.caller(project)
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
        restored = await self.browser.restore(self.pages.caller(project), input_validation.memory_id(memory_id))
        return restored.to_json()

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
