"""Memory REST API: outcomes, search, memory_bank management."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from gateway.caller import CallerResolver
from gateway.capabilities.memory_service import MemoryService
from gateway.routes.json_route import JSONRoute
from gateway.schemas import ArchiveBody, MemoryBankAddBody, MemoryBankUpdateBody, RecordOutcomeBody, SearchBody
from gateway.service_deps import caller_resolver, memory_service

router = APIRouter(prefix="/api", tags=["memory"], route_class=JSONRoute)


@router.post("/record-outcome")
async def record_outcome(
    body: RecordOutcomeBody,
    memories: MemoryService = Depends(memory_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> dict[str, Any]:
    """Score the last exchange; ``related`` omitted = all injected memories, [] = none, list = exactly those."""
    related = body.related if "related" in body.model_fields_set else None
    return await memories.score(
        callers.resolve(body.cwd),
        session_id=body.session_id,
        outcome=body.outcome,
        memory_scores=body.memory_scores,
        related=related,
    )


@router.post("/search")
async def search(
    body: SearchBody,
    memories: MemoryService = Depends(memory_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> dict[str, Any]:
    return await memories.search(
        callers.resolve(body.cwd),
        query=body.query,
        days_back=body.days_back,
        id=body.id,
        collections=body.collections,
        limit=body.limit,
        sort_by=body.sort_by,
        metadata=body.metadata,
        all_projects=body.all_projects,
    )


@router.post("/memory-bank/add")
async def memory_bank_add(
    body: MemoryBankAddBody,
    memories: MemoryService = Depends(memory_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> dict[str, Any]:
    return await memories.add_memory_bank(
        callers.resolve(body.cwd),
        content=body.content,
        tags=body.tags,
        importance=body.importance,
        confidence=body.confidence,
        user_wide=body.user_wide,
    )


@router.post("/memory-bank/update")
async def memory_bank_update(
    body: MemoryBankUpdateBody,
    memories: MemoryService = Depends(memory_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> dict[str, Any]:
    return await memories.update_memory(
        callers.resolve(body.cwd),
        id=body.id,
        content=body.content,
        tags=body.tags,
        importance=body.importance,
        confidence=body.confidence,
    )


@router.post("/memory-bank/archive")
async def memory_bank_archive(
    body: ArchiveBody,
    memories: MemoryService = Depends(memory_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> dict[str, Any]:
    return await memories.archive_memory(callers.resolve(body.cwd), id=body.id, reason=body.reason)
