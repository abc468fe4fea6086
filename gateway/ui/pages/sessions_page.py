"""Sessions: the list (live ones and imported ones, with the live activity feed), and one session's turns.

A session recorded by the hooks shows its turns with what was injected and what
came of it; one imported by ``mnemex backfill`` has no turns, so its page shows
its exchanges (``gateway.ui.imported_sessions``).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway import input_validation
from gateway.gateway_errors import NotFound
from gateway.ui.data import ViewerData
from gateway.ui.imported_sessions import imported_exchanges, imported_sessions
from gateway.ui.left_out import left_out_memories
from gateway.ui.page_render import UiRoute, is_htmx, render
from gateway.ui.viewer_deps import gateway_of, viewer

router = APIRouter(route_class=UiRoute)


@router.get("/ui/sessions", include_in_schema=False)
async def sessions(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    caller = data.caller(project)
    found, imported, names = await asyncio.gather(
        data.sessions.latest(project), imported_sessions(gateway_of(request).browse, caller), data.project_names()
    )
    live = {s["session_id"] for s in found}
    rows = found + [s for s in imported if s["session_id"] not in live]
    template = "sessions_rows.html" if is_htmx(request) else "sessions.html"  # the list refreshes itself
    project = project or data.default_project()
    return render(request, template, page="Sessions", project=project, project_names=names, sessions=rows)


@router.get("/ui/session", include_in_schema=False)
async def session(
    request: Request,
    id: str = Query(max_length=input_validation.MAX_ID_CHARS),
    project: str = Query("", max_length=64),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    project = project or data.default_project()
    try:
        found = await data.sessions.session(project, id)
    except NotFound:
        exchanges = await imported_exchanges(gateway_of(request).browse, data.caller(project), id.strip())
        if not exchanges:
            raise
        return render(
            request, "imported_session.html", page="Sessions", project=project, session_id=id, exchanges=exchanges
        )
    left_out = await left_out_memories(data, project, found["turns"])  # issue 38: the text of lines left out
    return render(request, "session.html", page="Sessions", project=project, left_out=left_out, **found)
