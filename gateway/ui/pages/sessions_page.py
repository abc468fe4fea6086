"""Sessions: the list, and one session's turns with what was injected and what came of it."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway import input_validation
from gateway.ui.data import ViewerData
from gateway.ui.page_render import UiRoute, is_htmx, render
from gateway.ui.viewer_deps import viewer

router = APIRouter(route_class=UiRoute)


@router.get("/ui/sessions", include_in_schema=False)
async def sessions(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found, names = await asyncio.gather(data.sessions(project), data.project_names())
    template = "sessions_rows.html" if is_htmx(request) else "sessions.html"  # the list polls itself for new turns
    project = project or data.default_project()
    return render(request, template, page="Sessions", project=project, project_names=names, sessions=found)


@router.get("/ui/session", include_in_schema=False)
async def session(
    request: Request,
    id: str = Query(max_length=input_validation.MAX_ID_CHARS),
    project: str = Query("", max_length=64),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    found = await data.session(project, id)
    return render(request, "session.html", page="Sessions", project=project or data.default_project(), **found)
