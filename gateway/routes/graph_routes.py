"""Statistics of a project and the knowledge graph view."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from gateway.caller import CallerResolver
from gateway.capabilities.library_service import LibraryService
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import GraphOut, StatsOut
from gateway.routes.json_route import JSONRoute
from gateway.service_deps import caller_resolver, library_service

router = APIRouter(prefix="/api", tags=["system"], route_class=JSONRoute)


@router.get("/stats", response_model=StatsOut, response_model_exclude_unset=True)
async def stats(
    cwd: str | None = Query(default=None, max_length=4096),
    library: LibraryService = Depends(library_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    return (await library.stats(callers.resolve(cwd))).to_json()


@router.get("/kg", response_model=GraphOut)
async def kg(
    cwd: str | None = Query(default=None, max_length=4096),
    entities: str = Query(default="", max_length=2000, description="comma-separated entity names"),
    limit: int = Query(default=50, ge=1, le=500),
    library: LibraryService = Depends(library_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    names = [e.strip() for e in entities.split(",") if e.strip()]
    return (await library.graph(callers.resolve(cwd), entities=names, limit=limit)).to_json()
