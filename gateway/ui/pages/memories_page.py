"""Memories: the filtered, sorted, paged list (or a hybrid search), one memory, and edit / archive / restore."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse

from gateway import input_validation
from gateway.gateway_errors import InvalidInput
from gateway.ui.data import ViewerData
from gateway.ui.memory_query import (
    ARCHIVED,
    BROWSE_SORTS,
    BULK_LIMIT,
    COLLECTIONS,
    KINDS,
    PAGE_SIZE,
    SEARCH_POOL,
    SEARCH_SORTS,
    MemoryQuery,
    kind_of,
)
from gateway.ui.page_render import UiRoute, is_htmx, render, url
from gateway.ui.page_shapes import MemoryJson, TurnRow
from gateway.ui.pages import preview_page
from gateway.ui.project_scope import user_wide
from gateway.ui.viewer_deps import mutation, viewer

router = APIRouter(route_class=UiRoute)
router.include_router(preview_page.router)  # what the next prompt would get: the search's companion
SORT_LABELS = {
    "relevance": "relevance",
    "recency": "recent first",
    "score": "score",
    "wilson": "Wilson",
    "uses": "uses",
}


@router.get("/ui/memories", include_in_schema=False)
async def memories(
    request: Request,
    project: str = Query("", max_length=64),
    q: str = Query("", max_length=input_validation.MAX_QUERY_CHARS),
    collection: str = Query("", max_length=32),
    tag: str = Query("", max_length=input_validation.MAX_TAG_CHARS),
    sort: str = Query("", max_length=16),
    archived: str = Query("active", max_length=16),
    page: int = Query(1, ge=1, le=500),
    kind: str = Query("", max_length=16),
    data: ViewerData = Depends(viewer),
) -> HTMLResponse:
    query = MemoryQuery(q.strip(), collection, tag.strip(), sort, archived or "active", page, kind)
    result, names = await asyncio.gather(data.memories.page(project, query), data.project_names())
    project = project or data.default_project()
    pages = max(1, -(-result["total"] // PAGE_SIZE))

    def page_link(n: int) -> str:
        return url(
            "/ui/memories",
            project,
            q=q,
            collection=collection,
            kind=kind,
            tag=tag,
            sort=sort,
            archived=archived,
            page=n,
        )

    template = (
        "memories_results.html"
        if is_htmx(request) and request.headers.get("hx-target") == "results"
        else "memories.html"
    )
    return render(
        request,
        template,
        page="Memories",
        project=project,
        project_names=names,
        q=query,
        result=result,
        pages=pages,
        page_link=page_link,
        results_url=page_link(query.page),
        collections=COLLECTIONS,
        kinds=KINDS,
        kind_of=kind_of,
        user_wide=user_wide,
        search_pool=SEARCH_POOL,
        sorts=SEARCH_SORTS if query.query else BROWSE_SORTS,  # no query: nothing to rank by relevance
        sort_labels=SORT_LABELS,
        filtered=bool(query.query or collection or kind or tag or archived != "active"),
        archived_states=ARCHIVED,
    )


@router.get("/ui/memories/{memory_id}", include_in_schema=False)
async def memory(
    request: Request, memory_id: str, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found, names = await asyncio.gather(data.memories.view(project, memory_id), data.project_names())

    def rank_of(turn: TurnRow) -> str:
        ids = [i.split("_")[-1] for i in turn["injected"]]
        uid = memory_id.split("_")[-1]
        return str(ids.index(uid) + 1) if uid in ids else "—"

    return render(
        request,
        "memory.html",
        page="Memories",
        project=project or data.default_project(),
        project_names=names,
        rank_of=rank_of,
        saved="",
        **found,
    )


def _card(request: Request, project: str, memory: MemoryJson, saved: str) -> HTMLResponse:
    return render(request, "memory_card.html", project=project, memory=memory, saved=saved)


@router.post("/ui/memories/{memory_id}/edit", include_in_schema=False)
async def edit(
    request: Request,
    memory_id: str,
    project: str = Query("", max_length=64),
    content: str = Form(max_length=input_validation.MAX_CONTENT_CHARS),
    tags: str = Form("", max_length=2000),
    data: ViewerData = Depends(mutation),
) -> HTMLResponse:
    tag_list = [t.strip() for t in tags.split(",") if t.strip()]
    updated = await data.memories.update(project, memory_id, content=content, tags=tag_list)
    return _card(request, project or data.default_project(), updated, "Saved.")


@router.post("/ui/memories/{memory_id}/archive", include_in_schema=False)
async def archive(
    request: Request, memory_id: str, project: str = Query("", max_length=64), data: ViewerData = Depends(mutation)
) -> HTMLResponse:
    updated = await data.memories.archive(project, memory_id)
    return _card(
        request, project or data.default_project(), updated, "Archived: it no longer surfaces in context or search."
    )


@router.post("/ui/memories/{memory_id}/restore", include_in_schema=False)
async def restore(
    request: Request, memory_id: str, project: str = Query("", max_length=64), data: ViewerData = Depends(mutation)
) -> HTMLResponse:
    updated = await data.memories.restore(project, memory_id)
    return _card(request, project or data.default_project(), updated, "Restored.")


def _bulk_reply(request: Request, project: str, ids: list[str], *, archived: bool) -> HTMLResponse:
    reply = render(request, "bulk_result.html", project=project, ids=ids, archived=archived)
    reply.headers["hx-trigger"] = "mnemex-bulk"  # the list reloads itself (memories.html listens for it)
    return reply


@router.post("/ui/memories/bulk-archive", include_in_schema=False)
async def bulk_archive(
    request: Request,
    project: str = Query("", max_length=64),
    ids: list[str] = Form([]),
    data: ViewerData = Depends(mutation),
) -> HTMLResponse:
    """Archive the ticked rows; the answer names them and offers an undo (restore of exactly those)."""
    if not ids:
        raise InvalidInput("tick at least one memory to archive")
    if len(ids) > BULK_LIMIT:
        raise InvalidInput(f"{len(ids)} memories ticked: archive at most {BULK_LIMIT} (one page) at a time")
    done = await data.memories.archive_many(project, ids)
    return _bulk_reply(request, project or data.default_project(), done, archived=True)


@router.post("/ui/memories/bulk-restore", include_in_schema=False)
async def bulk_restore(
    request: Request,
    project: str = Query("", max_length=64),
    ids: list[str] = Form([]),
    data: ViewerData = Depends(mutation),
) -> HTMLResponse:
    if not ids or len(ids) > BULK_LIMIT:
        raise InvalidInput(f"restore 1-{BULK_LIMIT} memories at a time")
    done = await data.memories.restore_many(project, ids)
    return _bulk_reply(request, project or data.default_project(), done, archived=False)
