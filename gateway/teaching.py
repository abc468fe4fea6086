"""After a score: teach the knowledge graph what helped and what misled.

Best effort: the score is already applied in the memory service, so a kg
failure here is logged and reported, never raised.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shlex
from collections import defaultdict
from typing import Any, cast

import grpc

from gateway.backends import Backends
from gateway.observations import primary_command, run_summary
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
    # The kg rejects texts over 20k characters; the head of a prompt carries its concepts. The turn's
    # own prompt comes first: the exchange may have been merged into an older near-duplicate.
    problem = (reply.prompt[:PROBLEM_CHARS] or await problem_text(backends, mem_scope, reply.exchange_id))[
        :KG_TEXT_CHARS
    ]
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
                    # The exchange is the scored turn itself, not something that solved it.
                    doc_ids=[i.id for i in items if i.id != reply.exchange_id],
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


# -- tool use: what a command's own output says about its outcome ------------------
TOOL_CONTEXT = "coding"
_FLAG = re.compile(r"-{1,2}[A-Za-z0-9][A-Za-z0-9_.=-]{0,20}")
_FAILED_TALLY = re.compile(r"\b[1-9]\d* (?:failed|errors?)\b|\bFAIL\b|test result: FAILED")
_PASSED_TALLY = re.compile(r"\b[1-9]\d* passed\b|^ok$|test result: ok|\b[1-9]\d* total\b")
MAX_FLAGS = 3


def command_action(command: str) -> str:
    """'cd app && uv run pytest -x -q tests/a.py' -> 'pytest -x -q': the program (and subcommand) with its flags."""
    name = primary_command(command)
    if not name:
        return ""
    program = name.split()[0]
    for segment in reversed(re.split(r"&&|\|\||;|\|", command)):
        try:
            words = shlex.split(segment, posix=True)
        except ValueError:
            words = segment.split()
        starts = [i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == program]
        if starts:
            flags = [w for w in words[starts[0] + 1 :] if _FLAG.fullmatch(w)][:MAX_FLAGS]
            return " ".join([name, *flags])[:80]
    return name[:80]


def tool_outcome(tool_response: Any) -> common_pb.Outcome | None:
    """worked / failed from the tool's own report (exit code, interruption, a test tally); None when it says nothing."""
    if isinstance(tool_response, dict):
        if tool_response.get("interrupted"):
            return common_pb.OUTCOME_FAILED
        for key in ("exit_code", "exitCode", "returncode", "return_code"):
            code = tool_response.get(key)
            if isinstance(code, int) and not isinstance(code, bool):
                return common_pb.OUTCOME_WORKED if code == 0 else common_pb.OUTCOME_FAILED
        text = "\n".join(str(tool_response.get(k) or "") for k in ("stdout", "stderr", "output", "result"))
    elif isinstance(tool_response, str):
        text = tool_response
    else:
        return None
    tally = run_summary(text[-4000:])
    if not tally:
        return None
    if _FAILED_TALLY.search(tally):
        return common_pb.OUTCOME_FAILED
    if _PASSED_TALLY.search(tally):
        return common_pb.OUTCOME_WORKED
    return None


async def teach_tool_use(
    backends: Backends, kg_scope: common_pb.Scope, tool_name: str, tool_input: Any, tool_response: Any
) -> dict[str, Any]:
    """RecordAction for a shell command whose outcome its output tells (the action graph's tool statistics)."""
    if tool_name != "Bash" or not isinstance(tool_input, dict):
        return {"taught": False}
    action = command_action(str(tool_input.get("command") or ""))
    outcome = tool_outcome(tool_response)
    if not action or outcome is None:
        return {"taught": False}
    request = kg_pb.RecordActionRequest(
        scope=kg_scope, context_type=TOOL_CONTEXT, action=action, collection="", outcome=outcome
    )
    try:
        reply = await backends.kg.RecordAction(request, timeout=TIMEOUT, metadata=backends.metadata)
    except grpc.aio.AioRpcError as exc:
        log.info("tool outcome not taught: %s %s", exc.code().name, exc.details())
        return {"taught": False, "error": exc.code().name}
    return {"taught": True, "action": action, "success_rate": reply.success_rate, "total": reply.total}
