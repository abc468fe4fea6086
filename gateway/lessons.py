"""What the knowledge graph learned about a problem, with the memories' text.

The kg's Recall answers, beside routing and facts, the docs that worked for
a matching problem (solutions) and those that failed more often than they
worked (failures), with their outcome counts. ``select`` keeps the few worth
showing; on get-context their ids ride along in the one PrepareContext call
(``lesson_ids``), which returns their memories and records them as injected,
so lessons cost no extra round trip. ``resolve`` reads them with one ``Get``
per id instead, for get_context_insights. ``combine`` turns the memories into
``Lesson`` records: a memory that moved collection since it was scored comes
back under its new id, and kg entries for the same memory (scored before and
after a promotion) merge. A memory that is gone or archived is dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import grpc

from gateway.backends import Backends
from gateway.convert import COLLECTIONS
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.lessons")

SOLUTION_LIMIT = 2  # solutions shown per prompt
# Failures shown per prompt: while nothing has worked yet, every attempt that failed, so the
# same few are not tried in turn again; once something worked, the two worst.
FAILURE_LIMIT = 6
FAILURE_LIMIT_SOLVED = 2
KG_LESSON_LIMIT = 6  # asked of the kg, each
_PREFIXES = sorted(COLLECTIONS, key=len, reverse=True)


@dataclass
class Lesson:
    """One memory that worked (``kind`` "solution") or failed ("failure") for a matching problem."""

    id: str
    content: str
    collection: str
    kind: str
    worked: int
    failed: int
    uses: int
    exchange: bool = False  # a stored exchange (the turn itself), shown after other memories

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "content": self.content,
            "collection": self.collection,
            "kind": self.kind,
            "worked": self.worked,
            "failed": self.failed,
            "uses": self.uses,
        }


def uid(memory_id: str) -> str:
    """The part of a memory id that survives a move between collections."""
    for prefix in _PREFIXES:
        if memory_id.startswith(prefix + "_"):
            return memory_id[len(prefix) + 1 :]
    return memory_id


def select(
    solutions: Sequence[kg_pb.Solution], failures: Sequence[kg_pb.Solution]
) -> tuple[list[kg_pb.Solution], list[kg_pb.Solution]]:
    """The solutions and failures worth showing, in the kg's order."""
    limit = FAILURE_LIMIT_SOLVED if solutions else FAILURE_LIMIT
    return list(solutions[:SOLUTION_LIMIT]), list(failures[:limit])


def wanted_ids(solutions: Sequence[kg_pb.Solution], failures: Sequence[kg_pb.Solution]) -> list[str]:
    chosen_solutions, chosen_failures = select(solutions, failures)
    return list(dict.fromkeys(s.doc_id for s in [*chosen_solutions, *chosen_failures]))


def combine(
    solutions: Sequence[kg_pb.Solution], failures: Sequence[kg_pb.Solution], memories: Iterable[mem_pb.Memory]
) -> list[Lesson]:
    """Lessons for the selected kg entries whose memories came back (solutions first, exchanges last)."""
    by_uid = {uid(m.id): m for m in memories if not m.archived and m.content.strip()}
    chosen_solutions, chosen_failures = select(solutions, failures)
    merged: dict[str, Lesson] = {}
    for kind, items in (("solution", chosen_solutions), ("failure", chosen_failures)):
        for item in items:
            memory = by_uid.get(uid(item.doc_id))
            if memory is None:
                continue
            lesson = merged.get(memory.id)
            if lesson is None:
                merged[memory.id] = Lesson(
                    memory.id,
                    memory.content,
                    memory.collection,
                    kind,
                    item.worked,
                    item.failed,
                    item.uses,
                    exchange=_is_exchange(memory),
                )
            elif lesson.kind == kind:
                lesson.worked += item.worked
                lesson.failed += item.failed
                lesson.uses += item.uses
    ordered = sorted(merged.values(), key=lambda x: x.exchange)  # stable: the kg's order within each group
    return [x for x in ordered if x.kind == "solution"] + [x for x in ordered if x.kind == "failure"]


async def _get(backends: Backends, scope: common_pb.Scope, doc_id: str, timeout: float) -> mem_pb.Memory | None:
    try:
        reply = await backends.memory.Get(
            mem_pb.GetRequest(scope=scope, id=doc_id), timeout=timeout, metadata=backends.metadata
        )
    except grpc.aio.AioRpcError as exc:
        if exc.code() != grpc.StatusCode.NOT_FOUND:
            log.info("lesson %s not read: %s", doc_id, exc.code().name)
        return None
    return reply.memory


async def resolve(
    backends: Backends,
    scope: common_pb.Scope,
    solutions: Sequence[kg_pb.Solution],
    failures: Sequence[kg_pb.Solution],
    timeout: float,
) -> list[Lesson]:
    """``combine`` with the memories read one ``Get`` each, side by side; never raises for a memory."""
    ids = wanted_ids(solutions, failures)
    found = await asyncio.gather(*(_get(backends, scope, doc_id, timeout) for doc_id in ids))
    return combine(solutions, failures, [m for m in found if m is not None])


def _is_exchange(memory: mem_pb.Memory) -> bool:
    try:
        metadata = json.loads(memory.metadata_json or "{}")
    except ValueError:
        return False
    return isinstance(metadata, dict) and metadata.get("kind") == "exchange"
