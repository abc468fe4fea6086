"""Preview: type a prompt, see exactly the KNOWN CONTEXT block the next prompt in this project would get,
with its token cost (through ``ViewerData``, the viewer's one service, to ``PreviewService``: get-context's
own pipeline, recording nothing).

A GET form, so a preview is a link and works without script; htmx swaps only the result.
Mounted through the memories page's router (``memories_page``), beside the search it previews.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway import input_validation
from gateway.context_reply import ContextReply
from gateway.ui.data import ViewerData
from gateway.ui.page_render import UiRoute, is_htmx, render
from gateway.ui.viewer_deps import viewer

router = APIRouter(route_class=UiRoute)
RESULT_ID = "preview-result"


@router.get("/ui/preview", include_in_schema=False)
async def preview(
    request: Request,
    project: str = Query("", max_length=64),
    prompt: str = Query("", max_length=input_validation.MAX_PROMPT_CHARS),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    caller = data.caller(project)
    result: ContextReply | None = None
    if prompt.strip():
        result, names = await asyncio.gather(data.preview(caller, prompt), data.project_names())
    else:
        names = await data.project_names()
    template = (
        "preview_result.html" if is_htmx(request) and request.headers.get("hx-target") == RESULT_ID else "preview.html"
    )
    return render(
        request, template, page="Memories", project=caller.project, project_names=names, prompt=prompt, result=result
    )
