"""Export and import of a user's memories and knowledge graphs.

    POST /api/export                 JSONL stream of every memory and knowledge graph
    POST /api/import?cwd=            JSONL body (a batch of lines) into memory and kg

The JSONL format is described in ``gateway.export_format``. On import, a
record or graph without a scope goes to the caller's project (``cwd``).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse

from gateway.caller import CallerResolver
from gateway.capabilities.portability_service import PortabilityService
from gateway.export_format import jsonl_lines
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import ImportOut
from gateway.routes.json_route import JSONRoute
from gateway.service_deps import caller_resolver, portability_service

router = APIRouter(prefix="/api", tags=["admin"], route_class=JSONRoute)


@router.post("/export")
async def export(
    portability: PortabilityService = Depends(portability_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> StreamingResponse:
    """Every memory of the caller's user (all projects and the memory_bank), then each project's graph."""
    lines = await portability.export(callers.resolve(None))
    return StreamingResponse(lines, media_type="application/x-ndjson")


@router.post("/import", response_model=ImportOut)
async def import_lines(
    request: Request,
    cwd: str | None = Query(default=None, max_length=4096),
    keep_user: bool = Query(
        default=False, description="refuse records that name another user instead of adopting them as yours"
    ),
    portability: PortabilityService = Depends(portability_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """Import a batch of JSONL lines. Ids already present are skipped, so re-running duplicates nothing."""
    tally = await portability.import_lines(
        callers.resolve(cwd), lines=jsonl_lines(request.stream()), keep_user=keep_user
    )
    return tally.to_json()
