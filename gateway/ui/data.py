"""What the viewer's pages show, read through the gateway's services.

``ViewerData`` is the pages' one service: it answers the project pages (overview, the projects table, books,
the preview) itself and holds the reads of the other page families, each in its module: ``memories``
(``ViewerMemories``: the memories pages), ``sessions`` (``ViewerSessions``) and ``graph`` (``ViewerGraph``).
A page names its project explicitly (``?project=``), so every call acts for a ``Caller`` pinned to that
project (``PageCallers``) instead of one resolved from a working directory. Searches, edits and archives go
through ``MemoriesService``, books and the kg view through ``LibraryService``, the viewer's own reads
(Browse, Restore, ListSessions, ListTurns, OutcomeLog, Overview, kg Export) through ``BrowseService``.
Their typed replies become what the pages read at the viewer's edge: a memory is its JSON
(``memory_replies.Memory.to_json``), the other shapes are the TypedDicts of ``page_shapes``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from gateway.caller import Caller, CallerResolver
from gateway.capabilities.browse_service import BrowseService
from gateway.capabilities.library_service import LibraryService
from gateway.capabilities.memories_service import MemoriesService
from gateway.capabilities.preview_service import PreviewService
from gateway.context_reply import ContextReply
from gateway.gateway_errors import InvalidInput
from gateway.replies.book_replies import BookRemoved, Books, IngestEvent
from gateway.replies.reply_json import json_object
from gateway.ui.page_shapes import Overview, OverviewStats
from gateway.ui.project_scope import Facts, PageCallers, ScopeRow, facts_of, scoped_counts
from gateway.ui.viewer_graph import ViewerGraph
from gateway.ui.viewer_memories import ViewerMemories
from gateway.ui.viewer_sessions import ViewerSessions


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
        self.library = library
        self.previews = previews
        self.pages = PageCallers(callers)
        self.memories = ViewerMemories(self.pages, browse, memories)
        self.sessions = ViewerSessions(self.pages, browse, self.memories)
        self.graph = ViewerGraph(self.pages, browse, library, self.memories)

    async def preview(self, caller: Caller, prompt: str) -> ContextReply:
        """The block the next prompt of ``caller``'s project would get (``PreviewService``: records nothing)."""
        if self.previews is None:
            raise InvalidInput("the preview is not available in this viewer")
        return await self.previews.preview(caller, prompt=prompt)

    # -- scope ----------------------------------------------------------------------------
    def default_project(self) -> str:
        return self.pages.default_project()

    def caller(self, project: str) -> Caller:
        """The caller for ``?project=`` (checked), or for the default project when it is empty."""
        return self.pages.caller(project)

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

    # -- the project pages --------------------------------------------------------------------
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
        return Overview(project=caller.project, stats=stats, projects=scoped_counts(scopes, facts_of(reply)))

    async def project_table(self) -> list[ScopeRow]:
        """``projects`` with each memory_bank fact counted on the row of the project it belongs to."""
        scopes, facts = await asyncio.gather(self.projects(), self.facts(self.caller("")))
        return scoped_counts(scopes, facts)

    async def facts(self, caller: Caller) -> Facts:
        """The user's memory_bank facts (archived ones too), each with the project it belongs to."""
        return facts_of(await self.browser.overview(caller))

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
