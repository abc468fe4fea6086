"""Health, statistics and the knowledge graph view."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from gateway.deps import get_operations
from gateway.operations import Operations
from gateway.routes.json_route import JSONRoute

router = APIRouter(prefix="/api", tags=["system"], route_class=JSONRoute)


@router.get("/health")
async def health(ops: Operations = Depends(get_operations)) -> JSONResponse:
    """Each backend's grpc.health.v1 status; 200 when all serve, else 503. Needs no token."""
    report = await ops.health()
    return JSONResponse(report, status_code=200 if report["status"] == "ok" else 503)


@router.get("/stats")
async def stats(
    cwd: str | None = Query(default=None, max_length=4096), ops: Operations = Depends(get_operations)
) -> dict[str, Any]:
    return await ops.stats(cwd=cwd)


@router.get("/kg")
async def kg(
    cwd: str | None = Query(default=None, max_length=4096),
    entities: str = Query(default="", max_length=2000, description="comma-separated entity names"),
    limit: int = Query(default=50, ge=1, le=500),
    ops: Operations = Depends(get_operations),
) -> dict[str, Any]:
    names = [e.strip() for e in entities.split(",") if e.strip()]
    return await ops.kg_graph(cwd=cwd, entities=names, limit=limit)
