"""Memory REST API: outcomes, search, memory_bank management."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from gateway.deps import get_operations
from gateway.operations import Operations
from gateway.routes.json_route import JSONRoute
from gateway.schemas import ArchiveBody, MemoryBankAddBody, MemoryBankUpdateBody, RecordOutcomeBody, SearchBody

router = APIRouter(prefix="/api", tags=["memory"], route_class=JSONRoute)


@router.post("/record-outcome")
async def record_outcome(body: RecordOutcomeBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """Score the last exchange; ``related`` omitted = all injected memories, [] = none, list = exactly those."""
    related = body.related if "related" in body.model_fields_set else None
    return await ops.score(
        cwd=body.cwd,
        session_id=body.session_id,
        outcome=body.outcome,
        memory_scores=body.memory_scores,
        related=related,
    )


@router.post("/search")
async def search(body: SearchBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    return await ops.search(
        cwd=body.cwd,
        query=body.query,
        days_back=body.days_back,
        id=body.id,
        collections=body.collections,
        limit=body.limit,
        sort_by=body.sort_by,
        metadata=body.metadata,
        session_id=body.session_id,
    )


@router.post("/memory-bank/add")
async def memory_bank_add(body: MemoryBankAddBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    return await ops.add_memory_bank(
        cwd=body.cwd,
        content=body.content,
        tags=body.tags,
        importance=body.importance,
        confidence=body.confidence,
        user_wide=body.user_wide,
    )


@router.post("/memory-bank/update")
async def memory_bank_update(body: MemoryBankUpdateBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    return await ops.update_memory(
        cwd=body.cwd,
        id=body.id,
        content=body.content,
        tags=body.tags,
        importance=body.importance,
        confidence=body.confidence,
    )


@router.post("/memory-bank/archive")
async def memory_bank_archive(body: ArchiveBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    return await ops.archive_memory(cwd=body.cwd, id=body.id, reason=body.reason)
