"""What the knowledge graph learned about a problem, with the memories' text.

The kg's Recall answers, beside routing and facts, the docs that worked for
a matching problem (solutions) and those that failed more often than they
worked (failures), with their outcome counts. ``select`` keeps the few worth
showing; on get-context their ids ride along in the one PrepareContext call
(``lesson_ids``), which returns their memories and records them as injected,
so lessons cost no extra round trip. ``resolve`` reads them with one ``Get``
per id instead, for get_context_insights. ``combine`` turns the memories into
``Lesson`` records (``gateway.context_reply``): a memory that moved collection since it was scored comes
back under its new id, and kg entries for the same memory (scored before and
after a promotion) merge. A memory that is gone or archived is dropped.

Episode lessons (``episode_lessons``) are the kg's own short text: the fixes
and failed attempts ("command -> error") of the known problems that match
the prompt's vector or the session's recent tool errors. get-context asks
for them once the prompt is embedded, side by side with the memory call;
``merge`` joins them with the memory-backed lessons, local project first.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from gateway import problem_vector
from gateway.backends import BackendError, Backends, MemoryBackend
from gateway.context_reply import Lesson
from gateway.proto_dicts import COLLECTIONS
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
EPISODE_LESSON_LIMIT = 6  # fixes and failed attempts of matching known problems, asked of the kg
PROMPT_CHARS = 4_000
_PREFIXES = sorted(COLLECTIONS, key=len, reverse=True)


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
                merged[memory.id] = replace(
                    lesson,
                    worked=lesson.worked + item.worked,
                    failed=lesson.failed + item.failed,
                    uses=lesson.uses + item.uses,
                )
    ordered = sorted(merged.values(), key=lambda x: x.exchange)  # stable: the kg's order within each group
    return [x for x in ordered if x.kind == "solution"] + [x for x in ordered if x.kind == "failure"]


async def _get(memory: MemoryBackend, scope: common_pb.Scope, doc_id: str, timeout: float) -> mem_pb.Memory | None:
    try:
        return await memory.get(mem_pb.GetRequest(scope=scope, id=doc_id), timeout)
    except BackendError as exc:
        log.info("lesson %s not read: %s", doc_id, exc.code)
        return None


async def resolve(
    memory: MemoryBackend,
    scope: common_pb.Scope,
    solutions: Sequence[kg_pb.Solution],
    failures: Sequence[kg_pb.Solution],
    timeout: float,
) -> list[Lesson]:
    """``combine`` with the memories read one ``Get`` each, side by side; never raises for a memory."""
    ids = wanted_ids(solutions, failures)
    found = await asyncio.gather(*(_get(memory, scope, doc_id, timeout) for doc_id in ids))
    return combine(solutions, failures, [m for m in found if m is not None])


def _is_exchange(memory: mem_pb.Memory) -> bool:
    try:
        metadata = json.loads(memory.metadata_json or "{}")
    except ValueError:
        return False
    return isinstance(metadata, dict) and metadata.get("kind") == "exchange"


# -- episodes: lessons the kg holds as its own short text ----------------------------------
async def episode_lessons(
    backends: Backends, kg_scope: common_pb.Scope, session_id: str, prompt: str, vector: object, timeout: float
) -> list[Lesson]:
    """Fixes and failed attempts of the known problems matching the prompt's vector and the session's
    recent tool errors (kg EpisodeLessons). Their text lives in the kg, so a lesson outlives the
    exchange it came from. A lesson from another project carries that project. Never raises."""
    if vector is not None:  # the kg judges a statement by the whole prompt and its head line together
        vector = await problem_vector.statement_vector(
            backends.embedding, prompt, timeout, whole=np.asarray(vector, np.float32)
        )
    packed = b"" if vector is None else np.asarray(vector, dtype="<f4").tobytes()
    request = kg_pb.EpisodeLessonsRequest(
        scope=kg_scope,
        session_id=session_id,
        query_vector=packed,
        limit=EPISODE_LESSON_LIMIT,
        prompt=prompt[:PROMPT_CHARS],
    )
    try:
        found = await backends.kg.episode_lessons(request, timeout)
    except BackendError as exc:
        log.info("episode lessons skipped: %s", exc.code)
        return []
    return [
        Lesson(
            id="",
            content=x.text,
            collection="",
            kind=x.kind,
            worked=x.worked,
            failed=x.failed,
            uses=x.worked + x.failed,
            project="" if x.project == kg_scope.project else x.project,
            doc_id=x.doc_id,
            why=x.why,
        )
        for x in found
        if x.kind in ("solution", "failure") and x.text.strip()
    ]


def start_episode_lessons(
    backends: Backends,
    kg_scope: common_pb.Scope,
    session_id: str,
    prompt: str,
    vector: object,
    timeout: float,
    *,
    enabled: bool,
) -> asyncio.Future[list[Lesson]]:
    """``episode_lessons`` started now (side by side with the memory call), or an empty result."""
    if enabled:
        return asyncio.ensure_future(episode_lessons(backends, kg_scope, session_id, prompt, vector, timeout))
    done: asyncio.Future[list[Lesson]] = asyncio.get_running_loop().create_future()
    done.set_result([])
    return done


def merge(memory_lessons: list[Lesson], episodes: list[Lesson], *, judged: bool = False) -> list[Lesson]:
    """Memory-backed lessons and episode lessons as one list: solutions then failures, this project's
    before other projects'. ``judged``: the kg's episode judge saw the prompt (the user has known
    problems); when it recognised none, the memory-backed lessons go too: they match a problem by
    shared concept words alone, and an unrelated fix "worked before" is worse than nothing.
    Once an episode names this project's fix (short, with its count), the
    stored exchanges credited as solutions are not repeated beside it: an exchange is the whole turn,
    and one may be "credited" for warning off a fix that failed. An episode fix whose memory (a
    takeaway, a pattern) is shown is left out: that line says it with its id. Once episodes name failed
    attempts (command and error), failed exchanges are not repeated beside them either."""
    if judged and not episodes:
        return []
    attempts = [x for x in episodes if x.kind == "failure"]
    local_fix = any(not x.project for x in episodes if x.kind == "solution")
    kept = [
        x
        for x in memory_lessons
        if not (x.exchange and ((attempts and x.kind == "failure") or (local_fix and x.kind == "solution")))
    ]
    shown = {uid(x.id) for x in kept}
    fixes = [x for x in episodes if x.kind == "solution" and not (x.doc_id and uid(x.doc_id) in shown)]
    solutions = [x for x in kept if x.kind == "solution"] + fixes
    failures = [x for x in kept if x.kind == "failure"] + attempts
    return sorted(solutions, key=lambda x: bool(x.project)) + sorted(failures, key=lambda x: bool(x.project))
