"""Sessions: the list, and one session's turns with what was injected and what came of it."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway import validation
from gateway.ui.data import ViewerData
from gateway.ui.deps import viewer
from gateway.ui.render import UiRoute, render

router = APIRouter(route_class=UiRoute)


@router.get("/ui/sessions", include_in_schema=False)
async def sessions(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found = await data.sessions(project)
    return render(request, "sessions.html", page="Sessions", project=project or data.default_project(), sessions=found)


@router.get("/ui/session", include_in_schema=False)
async def session(
    request: Request,
    id: str = Query(max_length=validation.MAX_ID_CHARS),
    project: str = Query("", max_length=64),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    found = await data.session(project, id)
    return render(request, "session.html", page="Sessions", project=project or data.default_project(), **found)
