"""Request words as proto enums (outcomes, sort orders, collections), checked with errors that name the
allowed words. Replies go the other way through ``gateway.replies``: each proto becomes a frozen dataclass
there once, and its ``to_json`` is the only JSON made of it.

Imports only generated protobuf modules (no grpc runtime, no fastapi).
"""

from __future__ import annotations

from collections.abc import Iterable

from gateway.gateway_errors import InvalidInput
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

OUTCOMES = ("worked", "partial", "unknown", "failed")
SORT_ORDERS = ("relevance", "recency", "score")
COLLECTIONS = ("books", "working", "history", "patterns", "memory_bank")

_MEM_OUTCOME = {
    "worked": common_pb.OUTCOME_WORKED,
    "partial": common_pb.OUTCOME_PARTIAL,
    "unknown": common_pb.OUTCOME_UNKNOWN,
    "failed": common_pb.OUTCOME_FAILED,
}
_KG_OUTCOME = {
    "worked": common_pb.OUTCOME_WORKED,
    "partial": common_pb.OUTCOME_PARTIAL,
    "unknown": common_pb.OUTCOME_UNKNOWN,
    "failed": common_pb.OUTCOME_FAILED,
}
_OUTCOME_NAME: dict[int, str] = {int(value): name for name, value in _MEM_OUTCOME.items()}
_SORT = {
    "relevance": mem_pb.SORT_BY_RELEVANCE,
    "recency": mem_pb.SORT_BY_RECENCY,
    "score": mem_pb.SORT_BY_SCORE,
}


def outcome_name(text: str, field: str = "outcome") -> str:
    """Validate an outcome word; the error says which words are allowed."""
    value = (text or "").strip().lower()
    if value not in _MEM_OUTCOME:
        raise InvalidInput(f"{field}={text!r} is not an outcome: use one of {', '.join(OUTCOMES)}")
    return value


def memory_outcome(text: str, field: str = "outcome") -> common_pb.Outcome:
    return _MEM_OUTCOME[outcome_name(text, field)]


def kg_outcome(text: str) -> common_pb.Outcome:
    return _KG_OUTCOME[outcome_name(text)]


def outcome_from_proto(value: int) -> str:
    return _OUTCOME_NAME.get(value, "unknown")


def sort_by(text: str) -> mem_pb.SortBy:
    value = (text or "relevance").strip().lower()
    if value not in _SORT:
        raise InvalidInput(f"sort_by={text!r} is not supported: use one of {', '.join(SORT_ORDERS)}")
    return _SORT[value]


def collections(names: Iterable[str] | None) -> list[str]:
    chosen = [n.strip() for n in names or () if n and n.strip()]
    unknown = [n for n in chosen if n not in COLLECTIONS]
    if unknown:
        raise InvalidInput(
            f"unknown collection(s) {', '.join(unknown)}: choose from {', '.join(COLLECTIONS)} "
            "(or omit collections to search all five)"
        )
    return chosen
