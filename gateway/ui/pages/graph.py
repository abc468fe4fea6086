"""Knowledge graph: routing, entities → facts and problem → solution, drawn by Cytoscape.js."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway.ui.data import ViewerData
from gateway.ui.deps import viewer
from gateway.ui.render import UiRoute, render

router = APIRouter(route_class=UiRoute)
KINDS = ("concept", "collection", "entity", "fact", "problem", "solution")


@router.get("/ui/graph", include_in_schema=False)
async def graph(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found = await data.graph(project)
    elements = found["elements"]
    return render(
        request,
        "graph.html",
        page="Graph",
        project=project or data.default_project(),
        kinds=KINDS,
        graph=elements,
        graph_data=elements,
        routing=found["routing"],
    )
