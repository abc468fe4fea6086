"""Backfill REST endpoint: a client's history, posted in batches (``mnemex backfill``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from gateway.deps import get_operations
from gateway.operations import Operations
from gateway.routes.json_route import JSONRoute
from gateway.schemas import BackfillBody

router = APIRouter(prefix="/api", tags=["backfill"], route_class=JSONRoute)


@router.post("/backfill")
async def backfill(body: BackfillBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """Store up to 256 past exchanges as memories dated when they happened; replays store nothing twice."""
    return await ops.backfill(body.exchanges, dry_run=body.dry_run)
