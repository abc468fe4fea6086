"""Books: the list, an upload that reports progress, and remove.

The upload streams the memory service's progress back as NDJSON lines
(the same events as ``POST /api/ingest?progress=ndjson``); the page script
shows the bytes sent, then the chunks embedded.
"""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, StreamingResponse
from starlette.datastructures import UploadFile

from gateway import input_validation
from gateway.gateway_errors import InvalidInput
from gateway.replies.book_replies import IngestEvent
from gateway.ui.data import ViewerData
from gateway.ui.page_render import UiRoute, render
from gateway.ui.viewer_deps import mutation, viewer

router = APIRouter(route_class=UiRoute)


@router.get("/ui/books", include_in_schema=False)
async def books(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found, names = await asyncio.gather(data.books(project), data.project_names())
    return render(
        request,
        "books.html",
        page="Books",
        project=project or data.default_project(),
        project_names=names,
        books=found.books,
        removed="",
    )


def _line(event: IngestEvent) -> bytes:
    return json.dumps(event.to_json(), ensure_ascii=False).encode("utf-8") + b"\n"


@router.post("/ui/books/upload", include_in_schema=False)
async def upload(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(mutation)
) -> StreamingResponse:
    form = await request.form(max_files=1, max_fields=5)
    file = form.get("file")
    if not isinstance(file, UploadFile):
        raise InvalidInput("choose a file to upload")
    content = await file.read(input_validation.MAX_BOOK_BYTES + 1)
    filename = (file.filename or "").rsplit("/", 1)[-1]
    title = str(form.get("title") or "").strip() or filename
    events = await data.ingest_progress(project, title=title, filename=filename, data=content, source="viewer upload")
    return StreamingResponse((_line(event) async for event in events), media_type="application/x-ndjson")


@router.post("/ui/books/remove", include_in_schema=False)
async def remove(
    request: Request,
    project: str = Query("", max_length=64),
    title: str = Form(max_length=input_validation.MAX_TITLE_CHARS),
    data: ViewerData = Depends(mutation),
) -> HTMLResponse:
    pinned = data.caller(project).project
    await data.remove_book(project, title)
    found = await data.books(project)
    return render(request, "books_list.html", project=pinned, books=found.books, removed=title)
