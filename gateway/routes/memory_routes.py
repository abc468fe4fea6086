"""Memory REST API: outcomes, search, memory_bank management."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from gateway.caller import CallerResolver
from gateway.capabilities.memories_service import MemoriesService
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import MemoryChangeOut, ScoreOut, SearchOut, StoredFactOut
from gateway.routes.json_route import JSONRoute
from gateway.schemas import ArchiveBody, MemoryBankAddBody, MemoryBankUpdateBody, RecordOutcomeBody, SearchBody
from gateway.service_deps import caller_resolver, memories_service

router = APIRouter(prefix="/api", tags=["memory"], route_class=JSONRoute)


@router.post("/record-outcome", response_model=ScoreOut, response_model_exclude_unset=True)
async def record_outcome(
    body: RecordOutcomeBody,
    memories: MemoriesService = Depends(memories_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """Score the last exchange; ``related`` omitted = all injected memories, [] = none, list = exactly those."""
    related = body.related if "related" in body.model_fields_set else None
    reply = await memories.score(
        callers.resolve(body.cwd),
        session_id=body.session_id,
        outcome=body.outcome,
        memory_scores=body.memory_scores,
        related=related,
    )
    return reply.to_json()


@router.post("/search", response_model=SearchOut, response_model_exclude_unset=True)
async def search(
    body: SearchBody,
    memories: MemoriesService = Depends(memories_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    reply = await memories.find(
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
    return reply.to_json()


@router.post("/memory-bank/add", response_model=StoredFactOut, response_model_exclude_unset=True)
async def memory_bank_add(
    body: MemoryBankAddBody,
    memories: MemoriesService = Depends(memories_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    reply = await memories.add_memory_bank(
        callers.resolve(body.cwd),
        content=body.content,
        tags=body.tags,
        importance=body.importance,
        confidence=body.confidence,
        user_wide=body.user_wide,
    )
    return reply.to_json()


@router.post("/memory-bank/update", response_model=MemoryChangeOut, response_model_exclude_unset=True)
async def memory_bank_update(
    body: MemoryBankUpdateBody,
    memories: MemoriesService = Depends(memories_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    reply = await memories.update(
        callers.resolve(body.cwd),
        id=body.id,
        content=body.content,
        tags=body.tags,
        importance=body.importance,
        confidence=body.confidence,
    )
    return reply.to_json()


@router.post("/memory-bank/archive", response_model=MemoryChangeOut, response_model_exclude_unset=True)
async def memory_bank_archive(
    body: ArchiveBody,
    memories: MemoriesService = Depends(memories_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    reply = await memories.archive(callers.resolve(body.cwd), id=body.id, reason=body.reason)
    return reply.to_json()
