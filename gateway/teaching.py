"""After a score: teach the knowledge graph what helped and what misled.

Best effort: the score is already applied in the memory service, so a kg
failure here is logged and reported, never raised. The backends come in as
``Backends`` (``gateway/backends.py``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shlex
from collections import defaultdict
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from typing import cast

import numpy as np

from gateway import problem_vector
from gateway.backends import BackendError, Backends, EmbeddingBackend, MemoryBackend
from gateway.replies.reply_json import JsonObject
from gateway.replies.score_replies import Episode, Teaching
from gateway.tool_observations import primary_command, run_summary
from kernel.error_signature import of_output
from kernel.privacy import redact
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

KG_TEXT_CHARS = 20_000
log = logging.getLogger("mnemex.gateway.teaching")

PROBLEM_CHARS = 2_000
ANSWER_CHARS = 400
MAX_SESSION_CHARS = 256
EMBED_CHARS = 2_000
MAX_ACTIONS = 20
TIMEOUT = 1.0


@dataclass(frozen=True)
class ScoredExchange:
    """What teaching needs of the scored exchange's stored memory ('' where unknown)."""

    prompt: str = ""
    answer: str = ""
    session_id: str = ""  # the session it belongs to (an MCP score names none: memory picks the latest)


async def exchange_parts(memory: MemoryBackend, scope: common_pb.Scope, exchange_id: str) -> ScoredExchange:
    """The user prompt, the assistant answer and the session of the scored exchange, from its memory."""
    if not exchange_id:
        return ScoredExchange()
    try:
        found = await memory.get(mem_pb.GetRequest(scope=scope, id=exchange_id), TIMEOUT)
    except BackendError:
        return ScoredExchange()
    if found is None:
        return ScoredExchange()
    try:
        metadata = json.loads(found.metadata_json or "{}")
    except ValueError:
        metadata = {}
    if not isinstance(metadata, dict):
        metadata = {}
    answer = assistant_part(found.content)
    session = str(metadata.get("session_id") or "")[:MAX_SESSION_CHARS]
    for key in ("prompt", "user_text", "user"):
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return ScoredExchange(value[:PROBLEM_CHARS], answer, session)
    return ScoredExchange(user_part(found.content)[:PROBLEM_CHARS], answer, session)


async def problem_text(memory: MemoryBackend, scope: common_pb.Scope, exchange_id: str) -> str:
    """The user prompt of the scored exchange (or its stored text)."""
    return (await exchange_parts(memory, scope, exchange_id)).prompt


def assistant_part(exchange: str) -> str:
    """'User: q\nAssistant: a' -> 'a' (what the assistant tried or answered), bounded."""
    _, sep, answer = exchange.partition("\nAssistant: ")
    if not sep and exchange.startswith("Assistant: "):
        answer = exchange[len("Assistant: ") :]
    return answer.strip()[:ANSWER_CHARS]


async def _embedded(embedding: EmbeddingBackend, text: str) -> bytes:
    """The text's vector as packed float32 for the kg, or b"" when the embedding service cannot answer."""
    if not text.strip():
        return b""
    try:
        vector = await embedding.embed([text[:EMBED_CHARS]], TIMEOUT)
    except BackendError as exc:
        log.info("episode turn without a vector: %s", exc.code)
        return b""
    return np.asarray(vector[0], dtype="<f4").tobytes()


async def _statement(embedding: EmbeddingBackend, prompt: str) -> bytes:
    """The prompt's statement vector for the kg (problem_vector.py), or b"" without the embedding service."""
    if not prompt.strip():
        return b""
    vector = await problem_vector.statement_vector(embedding, prompt, TIMEOUT)
    return b"" if vector is None else np.asarray(vector, dtype="<f4").tobytes()


async def record_turn(
    backends: Backends,
    kg_scope: common_pb.Scope,
    session_id: str,
    prompt: str,
    answer: str,
    outcome: common_pb.Outcome,
    exchange_id: str,
) -> kg_pb.RecordTurnResponse | None:
    """Tell the kg's episode book about a scored turn; its reply names the episode's problem statement."""
    if not session_id or int(outcome) == 0:
        return None
    request = kg_pb.RecordTurnRequest(
        scope=kg_scope,
        session_id=session_id,
        prompt=prompt[:PROBLEM_CHARS],
        prompt_vector=await _statement(backends.embedding, prompt),
        outcome=outcome,
        answer=answer[:ANSWER_CHARS],
        doc_id=exchange_id,
    )
    try:
        return await backends.kg.record_turn(request, TIMEOUT)
    except BackendError as exc:
        log.info("episode turn not recorded: %s %s", exc.code, exc.details)
        return None


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
    scope: common_pb.Scope,
    reply: mem_pb.ScoreResponse,
    exchange_outcome: common_pb.Outcome,
    session_id: str = "",
) -> Teaching:
    """The turn to the session's episode (RecordTurn), then RecordOutcome per outcome group (concepts of
    the episode's problem statement -> collections, doc ids) and RecordAction per memory."""
    # The kg rejects texts over 20k characters; the head of a prompt carries its concepts. The turn's
    # own prompt comes first: the exchange may have been merged into an older near-duplicate.
    stored = await exchange_parts(backends.memory, scope, reply.exchange_id)
    prompt = (reply.prompt[:PROBLEM_CHARS] or stored.prompt)[:KG_TEXT_CHARS]
    # The scored turn's session as the memory service picked it: the exchange memory's own session
    # may be an older near-duplicate's ("still broken" said the same way in another session).
    session = session_id or reply.session_id or stored.session_id
    # A fix the score credits to a memory points at that memory (shown once, as the memory's lesson);
    # otherwise at the exchange itself.
    credited = [i.id for i in reply.scored if i.id != reply.exchange_id and _outcome(i, 0) == common_pb.OUTCOME_WORKED]
    fix_doc = credited[0] if credited else reply.exchange_id
    episode = await record_turn(backends, scope, session, prompt, stored.answer, exchange_outcome, fix_doc)
    # Teach on the episode's problem statement: in a multi-turn fix the scored turn's own prompt is
    # the complaint ("still broken, same traceback"), not the problem.
    problem = (episode.problem if episode is not None and episode.problem.strip() else prompt)[:KG_TEXT_CHARS]
    concepts: list[str] = []
    context_type = ""
    try:
        if problem:
            extracted = await backends.kg.extract_concepts(problem, TIMEOUT)
            concepts = list(extracted.concepts)
            context_type = extracted.context_type
        groups: dict[int, list[mem_pb.ScoredMemory]] = defaultdict(list)
        for item in reply.scored:
            groups[_outcome(item, exchange_outcome)].append(item)
        calls: list[Awaitable[object]] = [
            backends.kg.record_outcome(
                kg_pb.RecordOutcomeRequest(
                    scope=scope,
                    concepts=concepts,
                    collections=sorted({i.collection_before for i in items if i.collection_before}),
                    # The exchange is the scored turn itself, not something that solved it.
                    doc_ids=[i.id for i in items if i.id != reply.exchange_id],
                    outcome=cast(common_pb.Outcome, outcome),
                    context_type=context_type,
                    problem=problem,
                ),
                TIMEOUT,
            )
            for outcome, items in groups.items()
        ]
        calls += [
            backends.kg.record_action(
                kg_pb.RecordActionRequest(
                    scope=scope,
                    context_type=context_type or "general",
                    action="score_response",
                    collection=item.collection_before,
                    outcome=cast(common_pb.Outcome, _outcome(item, exchange_outcome)),
                    doc_id=item.id,
                ),
                TIMEOUT,
            )
            for item in list(reply.scored)[:MAX_ACTIONS]
        ]
        await asyncio.gather(*calls)
    except BackendError as exc:
        log.info("kg teaching skipped: %s %s", exc.code, exc.details)
        return Teaching(taught=False, concepts=tuple(concepts), error=exc.code)
    return Teaching(
        taught=True,
        concepts=tuple(concepts),
        context_type=context_type,
        outcome_groups=len(groups),
        episode=Episode(episode.problem[:200], episode.status) if episode is not None else None,
    )


# -- tool use: what a command's own output says about its outcome ------------------
TOOL_CONTEXT = "coding"
_FLAG = re.compile(r"-{1,2}[A-Za-z0-9][A-Za-z0-9_.=-]{0,20}")
_FAILED_TALLY = re.compile(r"\b[1-9]\d* (?:failed|errors?)\b|\bFAIL\b|test result: FAILED")
_PASSED_TALLY = re.compile(r"\b[1-9]\d* passed\b|^ok$|test result: ok|\b[1-9]\d* total\b")
MAX_FLAGS = 3
ERROR_OUTPUT_CHARS = 4_000
ATTEMPT_CHARS = 140


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


def tool_outcome(tool_response: object) -> common_pb.Outcome | None:
    """worked / failed from the tool's own report (a failure event, exit code, interruption, a test
    tally); None when it says nothing."""
    if isinstance(tool_response, dict):
        if tool_response.get("failed") or tool_response.get("interrupted"):
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


def failure_output(tool_response: object) -> str:
    """The error text of a failed tool call: the failure event's error, else stderr, else the output's tail."""
    if isinstance(tool_response, str):
        return tool_response[-ERROR_OUTPUT_CHARS:]
    if not isinstance(tool_response, dict):
        return ""
    for key in ("error", "stderr", "output", "stdout", "result"):
        value = tool_response.get(key)
        if isinstance(value, str) and value.strip():
            return value[-ERROR_OUTPUT_CHARS:]
    return ""


def attempted(tool_name: str, tool_input: object) -> str:
    """What a tool call tried, in a few words: the command line, or the tool and its file or URL."""
    data = tool_input if isinstance(tool_input, dict) else {}
    command = str(data.get("command") or "").strip()
    if command:
        return command[:ATTEMPT_CHARS]
    target = str(data.get("file_path") or data.get("path") or data.get("url") or "").strip()
    return f"{tool_name} {target}".strip()[:ATTEMPT_CHARS]


@dataclass(frozen=True, slots=True)
class ToolTeaching:
    """What a tool call taught the kg: the error signature its failure was filed under, the action's
    statistics (``taught``), or the kg's gRPC code when it could not be taught (``error``)."""

    taught: bool = False
    error_signature: str | None = None
    action: str = ""
    success_rate: float = 0.0
    total: int = 0
    error: str | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {"taught": self.taught}
        if self.error_signature is not None:
            out["error_signature"] = self.error_signature
        if self.taught:
            out.update(action=self.action, success_rate=self.success_rate, total=self.total)
        if self.error is not None:
            out["error"] = self.error
        return out


async def teach_tool_use(
    backends: Backends,
    kg_scope: common_pb.Scope,
    tool_name: str,
    tool_input: object,
    tool_response: object,
    session_id: str = "",
) -> ToolTeaching:
    """A tool call's outcome, for any tool and any command (build, migration, git, HTTP, install...):
    a failure goes to the session's episode with its error output (RecordToolError); a shell command
    whose outcome is known also feeds the action graph's tool statistics (RecordAction)."""
    if not tool_name or not isinstance(tool_input, dict):
        return ToolTeaching()
    outcome = tool_outcome(tool_response)
    result = ToolTeaching()
    try:
        if outcome == common_pb.OUTCOME_FAILED and session_id:
            output = failure_output(tool_response)
            line, signature = of_output(redact(output))  # the line the kg keeps, secrets masked
            signature_filed = await backends.kg.record_tool_error(
                kg_pb.RecordToolErrorRequest(
                    scope=kg_scope,
                    session_id=session_id,
                    command=attempted(tool_name, tool_input),
                    output=output,
                    # The telling error line's vector: a later prompt told by this symptom recalls the problem.
                    error_vector=await _embedded(backends.embedding, line) if signature else b"",
                ),
                TIMEOUT,
            )
            result = replace(result, error_signature=signature_filed)
        action = command_action(str(tool_input.get("command") or "")) if tool_name == "Bash" else ""
        if action and outcome is not None:
            request = kg_pb.RecordActionRequest(
                scope=kg_scope, context_type=TOOL_CONTEXT, action=action, collection="", outcome=outcome
            )
            reply = await backends.kg.record_action(request, TIMEOUT)
            result = replace(result, taught=True, action=action, success_rate=reply.success_rate, total=reply.total)
    except BackendError as exc:
        log.info("tool outcome not taught: %s %s", exc.code, exc.details)
        return replace(result, error=exc.code)
    return result
