"""The graph page's read: the kg view around the project's top entities (or around a concept), its facts
and problem → solution links, another project's facts taken out and the first memories labelled."""

from __future__ import annotations

import asyncio

from gateway import input_validation
from gateway.caller import Caller
from gateway.capabilities.browse_service import BrowseService
from gateway.capabilities.library_service import LibraryService
from gateway.ui import graph_view
from gateway.ui.page_shapes import GraphView
from gateway.ui.project_scope import Facts, PageCallers, facts_of, without_memories
from gateway.ui.shared_reads import SharedReads
from gateway.ui.viewer_memories import ViewerMemories
from kernel.json_values import str_at

GRAPH_NODES = 500  # the kg view's own cap; graph.js switches layout above 200
FOCUS_ENTITIES = 15
LABELLED_MEMORIES = 30


class ViewerGraph:
    """The graph page's data: the kg view through ``LibraryService``, the kg export and the facts through
    ``BrowseService``, memory labels through ``ViewerMemories``."""

    def __init__(
        self, pages: PageCallers, browse: BrowseService, library: LibraryService, memories: ViewerMemories
    ) -> None:
        self.pages = pages
        self.browser = browse
        self.library = library
        self.memories = memories
        self._shared = SharedReads()

    async def view(self, project: str, find: str = "", hops: int = 1) -> GraphView:
        """Routing and the top entities (kg view), those entities' facts, and problem → solution links.

        With ``find``: the graph around that concept or problem instead, ``hops`` (1 or 2) entity hops out.
        """
        caller = self.pages.caller(project)
        find = input_validation.text(find, "find", input_validation.MAX_ID_CHARS).strip()
        who = (caller.user, caller.project)
        base, export, facts = await asyncio.gather(
            self._shared.read(("kg_graph", *who), lambda: self.library.graph(caller, limit=GRAPH_NODES)),
            self._shared.read(("kg_export", *who), lambda: self.browser.kg_export(caller)),
            self._shared.read(("facts", *who), lambda: self._facts(caller)),
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

    async def _facts(self, caller: Caller) -> Facts:
        return facts_of(await self.browser.overview(caller))

    async def _label_memories(self, caller: Caller, elements: graph_view.Elements) -> None:
        """Label the first fact and solution nodes with their memories' text (the rest keep what
        ``graph_view`` names them by: the entities or problem they link to)."""
        nodes = [n["data"] for n in elements["nodes"] if n["data"]["kind"] in ("solution", "fact")]
        nodes = sorted(nodes, key=lambda n: n["kind"] != "solution")[:LABELLED_MEMORIES]  # solutions first
        found = await self.memories.lookup(caller, [n.get("memory", "") for n in nodes], archived=False)
        for node in nodes:
            memory = found.get(node.get("memory", ""))
            if memory is not None:
                node["label"] = graph_view.short(str_at(memory, "content"))
