"""Knowledge graph: routing, entities → facts and problem → solution, drawn by Cytoscape.js.

``?find=`` centres the graph on a concept, entity or problem (``hops`` 1 or 2); the routing
table below is sorted (``rsort``, "-" for descending) and paged (``rpage``) on the server.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway import input_validation
from gateway.ui import graph_view
from gateway.ui.data import ViewerData
from gateway.ui.page_render import UiRoute, render, url
from gateway.ui.viewer_deps import viewer

router = APIRouter(route_class=UiRoute)
KINDS = ("concept", "collection", "entity", "fact", "problem", "solution")


@router.get("/ui/graph", include_in_schema=False)
async def graph(
    request: Request,
    project: str = Query("", max_length=64),
    find: str = Query("", max_length=input_validation.MAX_ID_CHARS),
    hops: int = Query(1, ge=1, le=2),
    rsort: str = Query("-uses", max_length=16),
    rpage: int = Query(1, ge=1, le=1000),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    found, names = await asyncio.gather(data.graph(project, find, hops), data.project_names())
    project = project or data.default_project()
    elements = found["elements"]
    routing = found["routing"]
    rows, pages = graph_view.sorted_page(routing, rsort, rpage)

    def routing_link(sort: str = rsort, page: int = 1) -> str:
        return url("/ui/graph", project, find=find, hops=hops if find else "", rsort=sort, rpage=page) + "#routing"

    def sort_link(column: str) -> str:
        return routing_link(column if rsort == f"-{column}" else f"-{column}")

    return render(
        request,
        "graph.html",
        page="Graph",
        project=project,
        project_names=names,
        kinds=KINDS,
        graph=elements,
        graph_data=elements,
        find=find,
        hops=hops,
        routing=rows,
        routing_total=len(routing),
        rpage=min(rpage, pages),
        rpages=pages,
        rsort=rsort,
        routing_link=routing_link,
        sort_link=sort_link,
    )
