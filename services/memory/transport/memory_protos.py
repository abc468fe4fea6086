"""Protobuf <-> domain conversions shared by the memory service's RPC groups (translation only)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import Scope
from services.memory.domain.outcomes import Outcome
from services.memory.domain.search_params import SearchParams, SortBy, build_search_params
from services.memory.usecases.outcome_scoring import ScoredMemory
from services.memory.usecases.request_scopes import RequestScopes

OUTCOME_TO_PB: dict[Outcome, common_pb.Outcome] = {
    Outcome.WORKED: common_pb.OUTCOME_WORKED,
    Outcome.PARTIAL: common_pb.OUTCOME_PARTIAL,
    Outcome.UNKNOWN: common_pb.OUTCOME_UNKNOWN,
    Outcome.FAILED: common_pb.OUTCOME_FAILED,
}
OUTCOME_FROM_PB: dict[int, Outcome] = {
    common_pb.OUTCOME_WORKED: Outcome.WORKED,
    common_pb.OUTCOME_PARTIAL: Outcome.PARTIAL,
    common_pb.OUTCOME_UNKNOWN: Outcome.UNKNOWN,
    common_pb.OUTCOME_FAILED: Outcome.FAILED,
}
SORT_FROM_PB: dict[int, str] = {
    pb.SORT_BY_UNSPECIFIED: "",
    pb.SORT_BY_RELEVANCE: SortBy.RELEVANCE.value,
    pb.SORT_BY_RECENCY: SortBy.RECENCY.value,
    pb.SORT_BY_SCORE: SortBy.SCORE.value,
}


def outcome(value: int, what: str = "outcome") -> Outcome | None:
    """None for OUTCOME_UNSPECIFIED; an error for numbers outside the enum."""
    if value == common_pb.OUTCOME_UNSPECIFIED:
        return None
    try:
        return OUTCOME_FROM_PB[value]
    except KeyError:
        raise InvalidRequest(f"{what}={value} is not an Outcome: use WORKED, PARTIAL, UNKNOWN or FAILED") from None


def memory_scores(entries: Mapping[str, int]) -> dict[str, Outcome]:
    out: dict[str, Outcome] = {}
    for memory_id, value in entries.items():
        parsed = outcome(value, f"memory_scores[{memory_id!r}]")
        if parsed is None:
            raise InvalidRequest(
                f"memory_scores[{memory_id!r}] is OUTCOME_UNSPECIFIED: give each id worked, partial, unknown or failed"
            )
        out[memory_id] = parsed
    return out


def sort_by(value: int) -> str:
    try:
        return SORT_FROM_PB[value]
    except KeyError:
        raise InvalidRequest(f"sort_by={value} is not a SortBy: use RELEVANCE, RECENCY or SCORE") from None


def memory(item: NormalizedMemory) -> pb.Memory:
    message = pb.Memory(
        id=item.id,
        collection=item.collection,
        content=item.content,
        created_at=item.created_at,
        age=item.age,
        score=item.score,
        wilson_score=item.wilson_score,
        uses=item.uses,
        success_count=item.success_count,
        learned_score=item.learned_score,
        last_outcome=item.last_outcome,
        outcome_history=item.outcome_history,
        tags=item.tags,
        metadata_json=json.dumps(item.metadata, ensure_ascii=False, sort_keys=True, default=str),
        project=item.project,
        archived=item.archived,
        worked_count=item.worked_count,
        partial_count=item.partial_count,
        failed_count=item.failed_count,
    )
    for name in ("importance", "confidence", "embedding_similarity", "final_rank_score"):
        value = getattr(item, name)
        if value is not None:
            setattr(message, name, value)
    return message


def scored(item: ScoredMemory) -> pb.ScoredMemory:
    return pb.ScoredMemory(
        id=item.id,
        collection_before=item.collection_before,
        collection_after=item.collection_after,
        score_before=item.score_before,
        score_after=item.score_after,
        outcome=OUTCOME_TO_PB[item.outcome],
        transition=item.transition,
        new_id=item.new_id,
    )


def scope(scopes: RequestScopes, message: common_pb.Scope) -> Scope:
    """The request's scope, checked (the shard check comes before any other)."""
    return scopes.resolve(message.user, message.project)


def search_params(request: pb.SearchRequest) -> SearchParams:
    return build_search_params(
        query=request.query,
        has_vector=bool(request.query_vector),
        collections=list(request.collections),
        limit=request.limit,
        days_back=request.days_back,
        memory_id=request.id,
        sort_by=sort_by(request.sort_by),
        filters_json=request.metadata_filters_json,
        collection_weights=dict(request.collection_weights),
        boost_ids=list(request.boost_ids),
    )
