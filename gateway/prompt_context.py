"""The get-context reply (KNOWN CONTEXT for a prompt), built on the hot path of every prompt.

    embed prompt ──────────────────────────────────┐
    kg Recall (concepts, route, facts, lessons) ───┴─> memory PrepareContext -> format
                                            (scoring state, search with the vector, kg weights,
                                             fact ids and lesson ids; the injection is recorded
                                             after the reply)

Lessons are what the kg learned for a matching problem: the memories that
worked before (solutions) and those that failed (failures). Their ids ride
in the same PrepareContext call, which returns their memories and records
them with the injection, so the next scoring prompt lists them: no extra
round trip. With ``use_kg`` off (MNEMEX_KG_CONTEXT=0) the kg is not asked at
all: no routing, no facts, no lessons.

Every backend call has its own short deadline and the whole pipeline an
overall one; a failing kg means search without routing, a failing embedding
means a keyword search, a failing memory service means an empty context.
Nothing here raises to the hook. The backends come in as ``Backends``
(``gateway/backends.py``): the gRPC ones wait a short grace for a channel that
is reconnecting after a restart (``gateway.rpc.reconnecting``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from gateway import formatting, lessons
from gateway.backends import BackendError, Backends, KgBackend
from gateway.context_reply import ContextReply, ContextTokens, Lesson, choice_of
from gateway.replies.kg_replies import KgRoute
from gateway.replies.memory_replies import Memory, memories_json, memories_of
from kernel.context_choice import ContextChoice
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.prompt_context")
T = TypeVar("T")

EMBED_CHARS = 2_000  # MiniLM reads ~256 tokens; more text only costs time
CONCEPT_CHARS = 4_000
RECORDED_PROMPT_CHARS = 8_000
MAX_ENTITIES = 20


@dataclass(frozen=True)
class Deadlines:
    """Seconds per backend call; ``total`` bounds the whole pipeline."""

    embed: float = 0.8
    kg: float = 0.3
    memory: float = 1.0
    total: float = 1.5

    @classmethod
    def within(cls, total: float) -> Deadlines:
        """The default split, scaled to a different overall budget (seconds)."""
        factor = total / cls.total
        base = cls()
        return cls(embed=base.embed * factor, kg=base.kg * factor, memory=base.memory * factor, total=total)


@dataclass
class Recalled:
    """What one kg Recall gave for a prompt: its concepts and entities, the route (collection weights),
    the memory_bank fact ids linked to its entities, and the lessons (solutions, failures) of matching problems."""

    concepts: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    context_type: str = ""
    route: kg_pb.RouteResponse | None = None
    fact_ids: list[str] = field(default_factory=list)
    solutions: list[kg_pb.Solution] = field(default_factory=list)
    failures: list[kg_pb.Solution] = field(default_factory=list)
    # False once the kg said it knows no problem yet: EpisodeLessons could only answer nothing.
    episodes: bool = True

    @property
    def weights(self) -> dict[str, float]:
        if self.route is None or not self.route.has_preference:
            return {}
        return dict(self.route.weights)

    def as_route(self) -> KgRoute:
        """The route, plus the memory_bank fact ids the content graph linked to the prompt's entities."""
        return KgRoute.from_proto(self.route, self.concepts, self.context_type, self.fact_ids)


async def kg_recall(
    kg: KgBackend, scope: common_pb.Scope, text: str, timeout: float, lesson_limit: int = 0
) -> Recalled:
    """Concepts -> (collection weights, memory_bank facts for the entities, and with
    ``lesson_limit`` the solutions and failures of matching problems), in one kg round trip.

    Raises ``BackendError``."""
    request = kg_pb.RecallRequest(scope=scope, text=text[:CONCEPT_CHARS], fact_limit=5, lesson_limit=lesson_limit)
    reply = await kg.recall(request, timeout)
    extracted = reply.extraction
    concepts = list(extracted.concepts)
    entities = list(dict.fromkeys([e.name for e in extracted.entities] + concepts))[:MAX_ENTITIES]
    routing = Recalled(concepts=concepts, entities=entities, context_type=extracted.context_type)
    if reply.HasField("route"):
        routing.route = reply.route
    routing.fact_ids = list(dict.fromkeys(f.fact_id for f in reply.facts if f.fact_id))
    routing.solutions = list(reply.solutions)
    routing.failures = list(reply.failures)
    routing.episodes = not reply.no_episodes
    return routing


async def recall(
    backends: Backends, scope: common_pb.Scope, text: str, deadlines: Deadlines
) -> tuple[Recalled, list[Lesson]]:
    """kg Recall with lessons, their text read with one memory ``Get`` each (get_context_insights;
    get-context has PrepareContext return them instead)."""
    routing = await kg_recall(backends.kg, scope, text, deadlines.kg, lessons.KG_LESSON_LIMIT)
    if not routing.solutions and not routing.failures:
        return routing, []
    return routing, await lessons.resolve(backends.memory, scope, routing.solutions, routing.failures, deadlines.kg)


def _failed(service: str, exc: BaseException, degraded: list[str]) -> None:
    degraded.append(service)
    if isinstance(exc, BackendError):
        log.info("get-context: %s degraded: %s", service, exc.code)
    else:
        log.info("get-context: %s degraded: %r", service, exc)


async def build(
    backends: Backends,
    scope: common_pb.Scope,
    *,
    session_id: str,
    prompt: str,
    limit: int,
    deadlines: Deadlines,
    use_kg: bool,
    client: str,
    preview: bool = False,
) -> ContextReply:
    """Run the pipeline: two calls side by side, then one memory call (``client``: kept with the turn).

    ``preview``: the same reply, but the memory service records nothing (no turn, no injection)."""
    degraded: list[str] = []
    timings: dict[str, float] = {}
    started = time.perf_counter()
    query = prompt.strip()
    vector: npt.NDArray[np.float32] | None = None
    routing = Recalled()
    learned: list[Lesson] = []
    prepare = mem_pb.PrepareContextRequest(
        scope=scope, session_id=session_id, prompt=prompt[:RECORDED_PROMPT_CHARS], client=client, preview=preview
    )
    if query:
        embed_r, routing_r = await asyncio.gather(
            timed(
                "embed",
                timings,
                backends.embedding.embed([query[:EMBED_CHARS]], deadlines.embed, reconnect=True),
            ),
            timed("kg", timings, kg_recall(backends.kg, scope, query, deadlines.kg, lessons.KG_LESSON_LIMIT))
            if use_kg
            else _no_kg(),
            return_exceptions=True,
        )
        if isinstance(embed_r, BaseException):
            _failed("embedding", embed_r, degraded)
        else:
            vector = np.asarray(embed_r[0], dtype=np.float32)
        if isinstance(routing_r, BaseException):
            _failed("kg", routing_r, degraded)
        else:
            routing = routing_r
        prepare.search.CopyFrom(
            mem_pb.SearchRequest(
                query=query[:2_000],
                query_vector=b"" if vector is None else np.asarray(vector, dtype="<f4").tobytes(),
                limit=limit,
                sort_by=mem_pb.SORT_BY_RELEVANCE,
                collection_weights=routing.weights,
                boost_ids=routing.fact_ids,
            )
        )
        prepare.lesson_ids.extend(lessons.wanted_ids(routing.solutions, routing.failures))

    memories: tuple[Memory, ...] = ()
    choices: tuple[ContextChoice, ...] = ()
    scoring_ids: list[str] = []
    scoring_required = False
    episodes = lessons.start_episode_lessons(
        backends, scope, session_id, query, vector, deadlines.kg, enabled=use_kg and bool(query) and routing.episodes
    )
    try:
        reply = await timed("memory", timings, backends.memory.prepare_context(prepare, deadlines.memory))
        memories = memories_of(reply.memories)[:limit]
        scoring_required = reply.scoring_required
        scoring_ids = list(reply.injected_ids)
        learned = lessons.combine(routing.solutions, routing.failures, reply.lessons)
        choices = tuple(choice_of(c) for c in reply.choices)
    except BackendError as exc:
        _failed("memory", exc, degraded)

    # With episodes known, the kg's judge decides whether this prompt is a known problem at all.
    learned = lessons.merge(learned, await episodes, judged=use_kg and bool(query) and routing.episodes)
    scoring = formatting.scoring_prompt(scoring_ids) if scoring_required else ""
    known = formatting.known_context(
        memories_json(memories),
        budget=min(formatting.block_chars(limit), formatting.MAX_OUTPUT_CHARS - len(scoring) - 2),
        lessons=learned,
        content_limit=formatting.INJECTED_MEMORY_CHARS,
    )
    context = formatting.compose(scoring, known)
    return ContextReply(
        context=context,
        known_context=known,
        # chars / 4: what the block and the whole injection cost the model
        tokens=ContextTokens(known_context=formatting.token_cost(known), context=formatting.token_cost(context)),
        memories=memories,
        choices=choices,
        lessons=tuple(learned),
        scoring_required=scoring_required,
        scoring_ids=tuple(scoring_ids) if scoring_required else (),
        scoring_prompt=scoring,
        routing=routing.as_route(),
        degraded=tuple(sorted(set(degraded))),
        timings_ms={**timings, "total": round((time.perf_counter() - started) * 1000, 2)},
    )


async def _no_kg() -> Recalled:
    return Recalled()


async def timed(name: str, timings: dict[str, float], awaitable: Awaitable[T]) -> T:
    """Await and record the wall time in ms (kept in the reply for diagnosis and benchmarks)."""
    started = time.perf_counter()
    try:
        return await awaitable
    finally:
        timings[name] = round((time.perf_counter() - started) * 1000, 2)


async def within_deadline(pipeline: Coroutine[object, None, ContextReply], total: float) -> ContextReply:
    """``pipeline`` (a ``build``) under the overall deadline (``Deadlines.total``); on overrun, an empty context."""
    try:
        return await asyncio.wait_for(pipeline, total)
    except TimeoutError:
        log.warning("get-context: overall deadline of %.1fs passed; returning no context", total)
        return ContextReply.empty(("timeout",))
