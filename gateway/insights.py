"""get_context_insights: everything mnemex learned that bears on a query, as text and data.

One round of calls, side by side: kg Recall (routing for the query's
concepts, and the solutions and failures of matching problems, whose text
is then read from memory), a memory search, the user's top facts, and kg
Effectiveness (how often each action worked in this project). Each part
degrades on its own except the search, whose error is the tool's error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

from gateway import formatting, inert_text, prompt_context
from gateway.backends import Backends
from gateway.context_reply import Lesson
from gateway.lessons import episode_lessons, merge
from gateway.replies.kg_replies import KgRoute
from gateway.replies.memory_replies import Memory, memories_json, memories_of
from gateway.replies.reply_json import JsonObject
from gateway.rpc import Rpc
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

ACTION_LIMIT = 8


@dataclass(frozen=True, slots=True)
class ActionEffect:
    """How often an action worked in this project: ``action`` is a command, or score_response for
    memories of a collection."""

    # Also the insights tool's output schema for it (mcp.models.InsightsOut): the docstring is its description.

    context_type: str
    action: str
    collection: str
    worked: int
    partial: int
    failed: int
    unknown: int
    success_rate: float

    def to_json(self) -> JsonObject:
        return {
            "context_type": self.context_type,
            "action": self.action,
            "collection": self.collection,
            "worked": self.worked,
            "partial": self.partial,
            "failed": self.failed,
            "unknown": self.unknown,
            "success_rate": self.success_rate,
        }


@dataclass(frozen=True, slots=True)
class Insights:
    """What ``get_context_insights`` tells: its text, and the memories, route, lessons and actions behind it."""

    text: str
    memories: tuple[Memory, ...]  # the search's, then the top facts not shown already
    routing: KgRoute  # the kg's route for the query
    lessons: tuple[Lesson, ...]
    actions: tuple[ActionEffect, ...]

    @property
    def solutions(self) -> list[Lesson]:
        return [x for x in self.lessons if x.kind == "solution"]

    @property
    def failures(self) -> list[Lesson]:
        return [x for x in self.lessons if x.kind == "failure"]

    def to_json(self) -> JsonObject:
        return {
            "text": self.text,
            "memories": memories_json(self.memories),
            "routing": self.routing.to_json(),
            "solutions": [x.to_json() for x in self.solutions],
            "failures": [x.to_json() for x in self.failures],
            "actions": [a.to_json() for a in self.actions],
        }


def action_line(action: ActionEffect) -> str:
    """'`pytest -x` worked 9 of 10 times (coding)'; memory scores read as 'memories from patterns ...'."""
    worked, partial, failed = action.worked, action.partial, action.failed
    graded = worked + partial + failed
    tail = f"worked {worked} of {graded} times" + (f" ({partial} partly)" if partial else "")
    context_type = inert_text.neutralize(action.context_type, 40)
    where = f" ({context_type})" if context_type and context_type != "general" else ""
    if action.action == "score_response":
        collection = inert_text.neutralize(action.collection, 40)
        return f"• memories from {collection}, when scored: {tail}{where}"
    name = inert_text.neutralize(action.action, 80).replace("`", "'")
    return f"• `{name}` {tail}{where}"


def insights_text(route: KgRoute, lessons: Sequence[Lesson], actions: Sequence[ActionEffect], known: str) -> str:
    lines: list[str] = []
    if route.has_preference:
        lines.append("Collections that helped for these concepts: " + ", ".join(route.recommended))
    elif route.concepts:
        lines.append("No learned collection preference yet for: " + ", ".join(route.concepts[:8]))
    solutions = [x for x in lessons if x.kind == "solution"]
    failures = [x for x in lessons if x.kind == "failure"]
    if solutions:
        lines.append("Known solutions for this problem:")
        lines += [formatting.lesson_line(x) for x in solutions]
    if failures:
        lines.append("Past failures for this problem (avoid repeating them):")
        lines += [formatting.lesson_line(x) for x in failures]
    if actions:
        lines.append("Tool and action effectiveness in this project:")
        lines += [action_line(a) for a in actions]
    return "\n".join([*lines, known]).strip()


async def _effectiveness(rpc: Rpc, scope: common_pb.Scope, timeout: float) -> tuple[ActionEffect, ...]:
    request = kg_pb.EffectivenessRequest(scope=scope, limit=ACTION_LIMIT)
    reply: kg_pb.EffectivenessResponse = await rpc.call(rpc.kg(scope.user).Effectiveness, request, timeout)
    return tuple(
        ActionEffect(
            a.context_type, a.action, a.collection, a.worked, a.partial, a.failed, a.unknown, round(a.success_rate, 4)
        )
        for a in reply.actions
    )


async def _episode_lessons(
    backends: Backends, scope: common_pb.Scope, query: str, deadlines: prompt_context.Deadlines
) -> list[Lesson]:
    """The episodes' fixes and failed attempts for the query (embedded here: the tool has no vector)."""
    vector = (await backends.embedding.embed([query[: prompt_context.EMBED_CHARS]], deadlines.embed))[0]
    return await episode_lessons(backends, scope, "", query, vector, deadlines.kg * 3)


async def insights(
    rpc: Rpc,
    backends: Backends,
    deadlines: prompt_context.Deadlines,
    scope: common_pb.Scope,
    query: str,
    top_facts: Awaitable[tuple[Memory, ...]],
) -> Insights:
    """Routing, known solutions and past failures, action effectiveness, memories and top facts."""
    kg_deadlines = prompt_context.Deadlines(kg=deadlines.kg * 3)
    recall_r: tuple[prompt_context.Recalled, list[Lesson]] | BaseException
    facts_r: tuple[Memory, ...] | BaseException
    actions_r: tuple[ActionEffect, ...] | BaseException
    episodes_r: list[Lesson] | BaseException
    search = rpc.unary(
        "memory",
        rpc.memory(scope.user).Search,
        mem_pb.SearchRequest(scope=scope, query=query, limit=5, sort_by=mem_pb.SORT_BY_RELEVANCE),
    )
    recall_r, search_r, facts_r, actions_r, episodes_r = await asyncio.gather(
        prompt_context.recall(backends, scope, query, kg_deadlines),
        search,
        top_facts,
        _effectiveness(rpc, scope, kg_deadlines.kg),
        _episode_lessons(backends, scope, query, deadlines),
        return_exceptions=True,
    )
    if isinstance(search_r, BaseException):
        raise search_r
    routing, lessons = recall_r if isinstance(recall_r, tuple) else (prompt_context.Recalled(), [])
    lessons = merge(lessons, episodes_r if isinstance(episodes_r, list) else [])
    actions = actions_r if isinstance(actions_r, tuple) else ()
    memories = memories_of(search_r.memories)
    facts = facts_r if isinstance(facts_r, tuple) else ()
    learned = {x.id for x in lessons}
    seen = {m.id for m in memories} | learned
    combined = (*(m for m in memories if m.id not in learned), *(f for f in facts if f.id not in seen))
    route = routing.as_route()
    text = insights_text(route, lessons, actions, formatting.known_context(memories_json(combined)))
    return Insights(text=text, memories=combined, routing=route, lessons=tuple(lessons), actions=actions)
