"""Admin endpoints the CLI needs: show, projects, versions (export and import: ``portability_routes``).

GET  /api/memories/{id}?cwd=     one memory, normalized, all metadata
GET  /api/projects               the current user's scopes with counts, and bindings
GET  /api/versions               package and service versions (for ``mnemex doctor``)
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Query

from gateway.caller import CallerResolver
from gateway.capabilities.admin_service import AdminService
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import MemoryOut, ProjectsOut, VersionsOut
from gateway.routes.json_route import JSONRoute
from gateway.service_deps import admin_service, caller_resolver

router = APIRouter(prefix="/api", tags=["admin"], route_class=JSONRoute)
_CWD = Query(default=None, max_length=4096)


@router.get("/memories/{memory_id}", response_model=MemoryOut, response_model_exclude_unset=True)
async def show_memory(
    memory_id: str = Path(min_length=1, max_length=200),
    cwd: str | None = _CWD,
    admin: AdminService = Depends(admin_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """Archived memories are shown too (with ``archived: true``): search hides them, show does not."""
    return (await admin.show_memory(callers.resolve(cwd), id=memory_id)).to_json()


@router.get("/projects", response_model=ProjectsOut)
async def list_projects(
    cwd: str | None = _CWD,
    admin: AdminService = Depends(admin_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    return (await admin.projects(callers.resolve(cwd), cwd_given=bool(cwd))).to_json()


@router.get("/versions", response_model=VersionsOut, response_model_exclude_unset=True)
async def versions(admin: AdminService = Depends(admin_service)) -> JsonObject:
    """The gateway's version and each backend's; a backend that cannot answer gets ``{"error": "<gRPC code>"}``."""
    return (await admin.versions()).to_json()
