"""Admin endpoints the CLI needs: show, projects, versions, export and import.

    GET  /api/memories/{id}?cwd=     one memory, normalized, all metadata
    GET  /api/projects               the current user's scopes with counts, and bindings
    GET  /api/versions               package and service versions (for ``mnemex doctor``)
    POST /api/export                 JSONL stream of every memory and knowledge graph
    POST /api/import?cwd=            JSONL body (a batch of lines) into memory and kg

The JSONL format is described in ``gateway.export_format``. On import, a
record or graph without a scope goes to the caller's project (``cwd``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import StreamingResponse

from gateway.deps import get_operations
from gateway.export_format import jsonl_lines
from gateway.operations import Operations
from gateway.routes.json_route import JSONRoute

router = APIRouter(prefix="/api", tags=["admin"], route_class=JSONRoute)
_CWD = Query(default=None, max_length=4096)


@router.get("/memories/{memory_id}")
async def show_memory(
    memory_id: str = Path(min_length=1, max_length=200),
    cwd: str | None = _CWD,
    ops: Operations = Depends(get_operations),
) -> dict[str, Any]:
    """Archived memories are shown too (with ``archived: true``): search hides them, show does not."""
    return await ops.show_memory(cwd=cwd, id=memory_id)


@router.get("/projects")
async def list_projects(cwd: str | None = _CWD, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    return await ops.projects(cwd=cwd)


@router.get("/versions")
async def versions(ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """The gateway's version and each backend's; a backend that cannot answer gets ``{"error": "<gRPC code>"}``."""
    return await ops.versions()


@router.post("/export")
async def export(ops: Operations = Depends(get_operations)) -> StreamingResponse:
    """Every memory of this gateway's user (all projects and the memory_bank), then each project's graph."""
    return StreamingResponse(await ops.export(), media_type="application/x-ndjson")


@router.post("/import")
async def import_lines(
    request: Request,
    cwd: str | None = _CWD,
    keep_user: bool = Query(
        default=False, description="refuse records that name another user instead of adopting them as yours"
    ),
    ops: Operations = Depends(get_operations),
) -> dict[str, Any]:
    """Import a batch of JSONL lines. Ids already present are skipped, so re-running duplicates nothing."""
    return await ops.import_lines(lines=jsonl_lines(request.stream()), cwd=cwd, keep_user=keep_user)
