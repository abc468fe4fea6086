"""Memories: the filtered, sorted, paged list (or a hybrid search), one memory, and edit / archive / restore."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse

from gateway import validation
from gateway.ui.data import ARCHIVED, COLLECTIONS, PAGE_SIZE, SEARCH_SORTS, MemoryQuery, ViewerData
from gateway.ui.deps import mutation, viewer
from gateway.ui.render import UiRoute, is_htmx, render, url

router = APIRouter(route_class=UiRoute)


@router.get("/ui/memories", include_in_schema=False)
async def memories(
    request: Request,
    project: str = Query("", max_length=64),
    q: str = Query("", max_length=validation.MAX_QUERY_CHARS),
    collection: str = Query("", max_length=32),
    tag: str = Query("", max_length=validation.MAX_TAG_CHARS),
    sort: str = Query("", max_length=16),
    archived: str = Query("active", max_length=16),
    page: int = Query(1, ge=1, le=500),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    query = MemoryQuery(q.strip(), collection, tag.strip(), sort, archived or "active", page)
    result, scopes = await asyncio.gather(data.memories(project, query), data.projects())
    project = project or data.default_project()
    names = sorted({s["name"] for s in scopes if s["name"]} | {project})
    pages = max(1, -(-result["total"] // PAGE_SIZE))

    def page_link(n: int) -> str:
        return url("/ui/memories", project, q=q, collection=collection, tag=tag, sort=sort, archived=archived, page=n)

    context: dict[str, Any] = {
        "q": query,
        "result": result,
        "pages": pages,
        "page_link": page_link,
        "collections": COLLECTIONS,
        "sorts": SEARCH_SORTS,
        "archived_states": ARCHIVED,
        "project_names": names,
    }
    template = (
        "memories_results.html"
        if is_htmx(request) and request.headers.get("hx-target") == "results"
        else "memories.html"
    )
    return render(request, template, page="Memories", project=project, **context)


@router.get("/ui/memories/{memory_id}", include_in_schema=False)
async def memory(
    request: Request, memory_id: str, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found = await data.memory_page(project, memory_id)

    def rank_of(turn: dict[str, Any]) -> str:
        ids = [i.split("_")[-1] for i in turn["injected"]]
        uid = memory_id.split("_")[-1]
        return str(ids.index(uid) + 1) if uid in ids else "—"

    return render(
        request,
        "memory.html",
        page="Memories",
        project=project or data.default_project(),
        rank_of=rank_of,
        saved="",
        **found,
    )


def _card(request: Request, project: str, memory: dict[str, Any], saved: str) -> HTMLResponse:
    return render(request, "memory_card.html", project=project, memory=memory, saved=saved)


@router.post("/ui/memories/{memory_id}/edit", include_in_schema=False)
async def edit(
    request: Request,
    memory_id: str,
    project: str = Query("", max_length=64),
    content: str = Form(max_length=validation.MAX_CONTENT_CHARS),
    tags: str = Form("", max_length=2000),
    data: ViewerData = Depends(mutation),
) -> HTMLResponse:
    tag_list = [t.strip() for t in tags.split(",") if t.strip()]
    updated = await data.update(project, memory_id, content=content, tags=tag_list)
    return _card(request, project or data.default_project(), updated, "Saved.")


@router.post("/ui/memories/{memory_id}/archive", include_in_schema=False)
async def archive(
    request: Request, memory_id: str, project: str = Query("", max_length=64), data: ViewerData = Depends(mutation)
) -> HTMLResponse:
    updated = await data.archive(project, memory_id)
    return _card(
        request, project or data.default_project(), updated, "Archived: it no longer surfaces in context or search."
    )


@router.post("/ui/memories/{memory_id}/restore", include_in_schema=False)
async def restore(
    request: Request, memory_id: str, project: str = Query("", max_length=64), data: ViewerData = Depends(mutation)
) -> HTMLResponse:
    updated = await data.restore(project, memory_id)
    return _card(request, project or data.default_project(), updated, "Restored.")
