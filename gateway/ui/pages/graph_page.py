"""Knowledge graph: routing, entities → facts and problem → solution, drawn by Cytoscape.js.

The page answers a question (``graph_answer``): ``?find=`` looks for its words in every node's title and
in the project's memories (a search), ``hops`` (1 or 2) links out from what holds them, over the whole
graph joined with the kg's own neighbourhood of ``find`` (an entity outside the whole view's top ones);
``kind`` (repeated) keeps those kinds. The routing table below is sorted (``rsort``, "-" for descending)
and paged (``rpage``) on the server.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway import input_validation
from gateway.ui import graph_answer, graph_view
from gateway.ui.data import ViewerData
from gateway.ui.memory_query import MemoryQuery
from gateway.ui.page_render import UiRoute, render, url
from gateway.ui.page_shapes import GraphView, MemoryJson
from gateway.ui.viewer_deps import viewer

router = APIRouter(route_class=UiRoute)
KIND_NAMES = {
    "concept": "concept (a prompt's topic)",
    "collection": "collection",
    "entity": "entity (a name in a fact)",
    "fact": "fact",
    "problem": "problem",
    "solution": "solution",
    "memory": "memory that holds the words",
}


async def _memories(data: ViewerData, project: str, query: graph_answer.GraphQuery) -> list[MemoryJson]:
    """The project's memories that a search for ``find`` ranks above its relevance floor (none without find)."""
    if not query.words:
        return []
    found = await data.memories.page(project, MemoryQuery(query=query.find))
    return list(found["memories"])


async def _nothing() -> GraphView:
    return GraphView(elements=graph_view.NO_ELEMENTS, routing=[], problems=[])


@router.get("/ui/graph", include_in_schema=False)
async def graph(
    request: Request,
    project: str = Query("", max_length=64),
    find: str = Query("", max_length=input_validation.MAX_ID_CHARS),
    hops: int = Query(1, ge=1, le=2),
    kind: list[str] = Query([], max_length=len(graph_answer.KINDS)),
    rsort: str = Query("-uses", max_length=16),
    rpage: int = Query(1, ge=1, le=1000),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    query = graph_answer.GraphQuery.of(find, hops, kind)
    found, around, names, memories = await asyncio.gather(
        data.graph.view(project),
        data.graph.view(project, query.find, hops) if query.words else _nothing(),
        data.project_names(),
        _memories(data, project, query),
    )
    project = project or data.default_project()
    elements = graph_answer.merged(found["elements"], around["elements"])
    shown = graph_answer.answer(elements, memories, query)
    routing = found["routing"]
    rows, pages = graph_view.sorted_page(routing, rsort, rpage)
    kinds = [] if query.every_kind else list(query.kinds)

    def routing_link(sort: str = rsort, page: int = 1) -> str:
        link = url("/ui/graph", project, find=query.find, hops=hops if query.find else "", rsort=sort, rpage=page)
        return link + "".join(f"&kind={k}" for k in kinds) + "#routing"

    def sort_link(column: str) -> str:
        return routing_link(column if rsort == f"-{column}" else f"-{column}")

    return render(
        request,
        "graph.html",
        page="Graph",
        project=project,
        project_names=names,
        kinds=graph_answer.KINDS,
        kind_names=KIND_NAMES,
        query=query,
        shown=shown,
        graph_data=shown.elements(),
        find=query.find,
        hops=hops,
        routing=rows,
        routing_total=len(routing),
        rpage=min(rpage, pages),
        rpages=pages,
        rsort=rsort,
        routing_link=routing_link,
        sort_link=sort_link,
    )
