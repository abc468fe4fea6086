"""After a score: teach the knowledge graph what helped and what misled.

Best effort: the score is already applied in the memory service, so a kg
failure here is logged and reported, never raised.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from typing import Any, cast

import grpc

from gateway.backends import Backends
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

KG_TEXT_CHARS = 20_000
log = logging.getLogger("mnemex.gateway.teaching")

PROBLEM_CHARS = 2_000
MAX_ACTIONS = 20
TIMEOUT = 1.0


async def problem_text(backends: Backends, scope: common_pb.Scope, exchange_id: str) -> str:
    """The user prompt of the scored exchange (or its stored text)."""
    if not exchange_id:
        return ""
    try:
        reply = await backends.memory.Get(
            mem_pb.GetRequest(scope=scope, id=exchange_id), timeout=TIMEOUT, metadata=backends.metadata
        )
    except grpc.aio.AioRpcError:
        return ""
    try:
        metadata = json.loads(reply.memory.metadata_json or "{}")
    except ValueError:
        metadata = {}
    for key in ("prompt", "user_text", "user"):
        value = metadata.get(key) if isinstance(metadata, dict) else None
        if isinstance(value, str) and value.strip():
            return value[:PROBLEM_CHARS]
    return user_part(reply.memory.content)[:PROBLEM_CHARS]


def _outcome(item: mem_pb.ScoredMemory, fallback: int) -> int:
    """kg and memory number their Outcome enums alike; unspecified falls back to the exchange's."""
    return int(item.outcome) or int(fallback)


def user_part(exchange: str) -> str:
    """'User: q\nAssistant: a' -> 'q' (the problem the memories were answering)."""
    if exchange.startswith("User: "):
        return exchange[len("User: ") :].split("\nAssistant: ", 1)[0]
    if exchange.startswith("Assistant: "):
        return ""
    return exchange


async def teach(
    backends: Backends,
    mem_scope: common_pb.Scope,
    kg_scope: common_pb.Scope,
    reply: mem_pb.ScoreResponse,
    exchange_outcome: common_pb.Outcome,
) -> dict[str, Any]:
    """RecordOutcome per outcome group (concepts of the prompt -> collections, doc ids) and RecordAction per memory."""
    md = backends.metadata
    # The kg rejects texts over 20k characters; the head of a prompt carries its concepts.
    problem = (await problem_text(backends, mem_scope, reply.exchange_id))[:KG_TEXT_CHARS]
    concepts: list[str] = []
    context_type = ""
    try:
        if problem:
            extracted = await backends.kg.ExtractConcepts(
                kg_pb.ExtractConceptsRequest(text=problem), timeout=TIMEOUT, metadata=md
            )
            concepts = list(extracted.concepts)
            context_type = extracted.context_type
        groups: dict[int, list[mem_pb.ScoredMemory]] = defaultdict(list)
        for item in reply.scored:
            groups[_outcome(item, exchange_outcome)].append(item)
        calls = [
            backends.kg.RecordOutcome(
                kg_pb.RecordOutcomeRequest(
                    scope=kg_scope,
                    concepts=concepts,
                    collections=sorted({i.collection_before for i in items if i.collection_before}),
                    doc_ids=[i.id for i in items],
                    outcome=cast(common_pb.Outcome, outcome),
                    context_type=context_type,
                    problem=problem,
                ),
                timeout=TIMEOUT,
                metadata=md,
            )
            for outcome, items in groups.items()
        ]
        calls += [
            backends.kg.RecordAction(
                kg_pb.RecordActionRequest(
                    scope=kg_scope,
                    context_type=context_type or "general",
                    action="score_response",
                    collection=item.collection_before,
                    outcome=cast(common_pb.Outcome, _outcome(item, exchange_outcome)),
                    doc_id=item.id,
                ),
                timeout=TIMEOUT,
                metadata=md,
            )
            for item in list(reply.scored)[:MAX_ACTIONS]
        ]
        await asyncio.gather(*calls)
    except grpc.aio.AioRpcError as exc:
        log.info("kg teaching skipped: %s %s", exc.code().name, exc.details())
        return {"taught": False, "concepts": concepts, "error": exc.code().name}
    return {"taught": True, "concepts": concepts, "context_type": context_type, "outcome_groups": len(groups)}
