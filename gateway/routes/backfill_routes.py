"""Backfill REST endpoint: a client's history, posted in batches (``mnemex backfill``)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from gateway.caller import CallerResolver
from gateway.capabilities.backfill_service import BackfillService
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import BackfillOut
from gateway.routes.json_route import JSONRoute
from gateway.schemas import BackfillBody
from gateway.service_deps import backfill_service, caller_resolver

router = APIRouter(prefix="/api", tags=["backfill"], route_class=JSONRoute)


@router.post("/backfill", response_model=BackfillOut, response_model_exclude_unset=True)
async def backfill(
    body: BackfillBody,
    backfills: BackfillService = Depends(backfill_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """Store up to 256 past exchanges as memories dated when they happened; replays store nothing twice."""
    exchanges = [(callers.resolve(exchange.cwd or None), exchange) for exchange in body.exchanges]
    return (await backfills.backfill(exchanges, dry_run=body.dry_run)).to_json()
