"""Lessons read through the backends (gateway/lessons.py) on in-memory fakes: which are read, which are kept."""

from __future__ import annotations

import asyncio
import json

import numpy as np

from gateway import lessons
from gateway.context_reply import Lesson
from gateway.problem_vector import combined
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from tests.unit.gateway.backend_fakes import SCOPE, Fakes, memory, unpacked, vector

REPORT = (
    "orders tests fail with database locked\n"
    "Here is the whole traceback I got after upgrading the driver to the new major version of it."
)


def solutions(*ids: str) -> list[kg_pb.Solution]:
    return [kg_pb.Solution(doc_id=i, worked=3, failed=0, uses=3) for i in ids]


def failures(*ids: str) -> list[kg_pb.Solution]:
    return [kg_pb.Solution(doc_id=i, worked=0, failed=2, uses=2) for i in ids]


def test_resolve_reads_the_shown_few_and_drops_what_is_gone() -> None:
    fakes = Fakes()
    fakes.memory.memories = [
        memory("patterns_a", "Use WAL mode"),
        memory("patterns_b", "Pin the driver"),
        memory("history_f1", "Raised the timeout"),
        memory("history_f2", "Retried the test", archived=True),
        memory(
            "history_ex",
            "User: it fails\nAssistant: restarted the pool",
            metadata_json=json.dumps({"kind": "exchange"}),
        ),
    ]
    found = asyncio.run(
        lessons.resolve(
            fakes.memory,
            SCOPE,
            solutions("history_ex", "patterns_a", "patterns_b"),
            failures("history_f1", "history_f2", "history_gone"),
            0.3,
        )
    )
    # Two solutions are shown, and once one worked only two failures; an archived memory is dropped.
    assert fakes.memory.reads == ["history_ex", "patterns_a", "history_f1", "history_f2"]
    assert [(x.id, x.kind, x.exchange) for x in found] == [
        ("patterns_a", "solution", False),
        ("history_ex", "solution", True),  # a stored exchange comes after the other solutions
        ("history_f1", "failure", False),
    ]


def test_while_nothing_worked_every_failed_attempt_is_read() -> None:
    fakes = Fakes()
    ids = [f"history_f{i}" for i in range(8)]
    fakes.memory.memories = [memory(i, f"attempt {i}") for i in ids]
    found = asyncio.run(lessons.resolve(fakes.memory, SCOPE, [], failures(*ids), 0.3))
    assert [x.id for x in found] == ids[: lessons.FAILURE_LIMIT]


def test_resolve_never_raises_for_a_memory_service_that_is_down() -> None:
    fakes = Fakes()
    fakes.memory.down.add("get")
    assert asyncio.run(lessons.resolve(fakes.memory, SCOPE, solutions("patterns_a"), [], 0.3)) == []


def test_episode_lessons_ask_with_the_statement_vector_and_name_other_projects() -> None:
    fakes = Fakes()
    fakes.kg.episodes = [
        kg_pb.EpisodeLesson(kind="solution", text="one connection per test", project="shop", worked=2, doc_id="h_1"),
        kg_pb.EpisodeLesson(kind="failure", text="pytest -x -> locked", project="blog", failed=1, why="same error"),
        kg_pb.EpisodeLesson(kind="solution", text="  ", project="shop", worked=1),
        kg_pb.EpisodeLesson(kind="note", text="unrelated", project="shop"),
    ]
    whole = vector(REPORT)
    found = asyncio.run(lessons.episode_lessons(fakes.backends, SCOPE, "s1", REPORT, whole, 0.3))
    assert [(x.kind, x.content, x.project, x.uses, x.doc_id, x.why) for x in found] == [
        ("solution", "one connection per test", "", 2, "h_1", ""),
        ("failure", "pytest -x -> locked", "blog", 1, "", "same error"),
    ]
    # The prompt was embedded already: only its statement line is, and the kg gets the two combined.
    assert fakes.embedding.texts == ["orders tests fail with database locked"]
    (asked,) = fakes.kg.episode_asks
    expected = combined(whole, vector("orders tests fail with database locked"))
    assert np.allclose(unpacked(asked.query_vector), expected)
    assert (asked.session_id, asked.limit, asked.prompt) == ("s1", lessons.EPISODE_LESSON_LIMIT, REPORT)


def test_episode_lessons_without_a_vector_match_by_error_signature_only() -> None:
    fakes = Fakes()
    asyncio.run(lessons.episode_lessons(fakes.backends, SCOPE, "s1", REPORT, None, 0.3))
    assert fakes.embedding.texts == [] and fakes.kg.episode_asks[0].query_vector == b""


def test_episode_lessons_are_skipped_when_the_kg_is_down() -> None:
    fakes = Fakes()
    fakes.kg.down.add("episode_lessons")
    fakes.kg.episodes = [kg_pb.EpisodeLesson(kind="solution", text="x", project="shop")]
    assert asyncio.run(lessons.episode_lessons(fakes.backends, SCOPE, "s1", "prompt", None, 0.3)) == []


def test_a_disabled_start_asks_nothing() -> None:
    fakes = Fakes()

    async def scenario() -> list[Lesson]:
        return await lessons.start_episode_lessons(fakes.backends, SCOPE, "s1", "p", None, 0.3, enabled=False)

    assert asyncio.run(scenario()) == [] and fakes.kg.episode_asks == []
