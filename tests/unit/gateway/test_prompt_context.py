"""get-context's pipeline (gateway/prompt_context.py) on in-memory backends: what it asks, what it shows.

The integration tests (tests/integration/gateway) run the same pipeline on the real services;
here each backend is a fake (backend_fakes.py), so the choices the gateway makes are checked
alone: which memories and lessons make the block, what the memory call carries, how each
failing backend degrades.
"""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from gateway import prompt_context
from gateway.context_reply import ContextReply
from gateway.formatting import FAILURES_TITLE, SOLUTIONS_TITLE
from gateway.prompt_context import Deadlines
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from tests.unit.gateway.backend_fakes import SCOPE, FakeMemory, Fakes, memory, unpacked, vector

PROMPT = "orders tests fail with database locked"
HELD = [
    memory("history_m1", "The orders tests share one database file"),
    memory("patterns_fix1", "Switch SQLite to WAL mode for the orders database"),
    memory("history_bad1", "Raising the busy timeout on the orders database did not help"),
    memory("history_deploy", "Deploy the frontend by rsync"),
]


def recalled(*, no_episodes: bool) -> kg_pb.RecallResponse:
    return kg_pb.RecallResponse(
        extraction=kg_pb.ExtractConceptsResponse(concepts=["sqlite", "locking"], context_type="debugging"),
        route=kg_pb.RouteResponse(weights={"patterns": 1.5}, recommended=["patterns"], has_preference=True),
        facts=[kg_pb.FactRef(fact_id="memory_bank_f1", entity="sqlite")],
        solutions=[kg_pb.Solution(doc_id="patterns_fix1", worked=4, failed=1, uses=5)],
        failures=[kg_pb.Solution(doc_id="history_bad1", worked=0, failed=3, uses=3)],
        no_episodes=no_episodes,
    )


def stack(*, no_episodes: bool = True) -> Fakes:
    fakes = Fakes()
    fakes.memory.memories = list(HELD)
    fakes.kg.recalled = recalled(no_episodes=no_episodes)
    return fakes


def build(fakes: Fakes, prompt: str = PROMPT, *, use_kg: bool = True, preview: bool = False) -> ContextReply:
    pipeline = prompt_context.build(
        fakes.backends,
        SCOPE,
        session_id="s1",
        prompt=prompt,
        limit=5,
        deadlines=Deadlines(),
        use_kg=use_kg,
        client="claude",
        preview=preview,
    )
    return asyncio.run(prompt_context.within_deadline(pipeline, Deadlines().total))


def test_the_memory_call_carries_the_vector_the_route_the_facts_and_the_lessons_to_read() -> None:
    fakes = stack()
    build(fakes)
    (asked,) = fakes.memory.prepared
    assert (asked.scope, asked.session_id, asked.prompt, asked.client) == (SCOPE, "s1", PROMPT, "claude")
    assert asked.search.query == PROMPT and asked.search.limit == 5
    assert np.allclose(unpacked(asked.search.query_vector), vector(PROMPT))
    assert dict(asked.search.collection_weights) == {"patterns": 1.5}
    assert list(asked.search.boost_ids) == ["memory_bank_f1"]
    assert list(asked.lesson_ids) == ["patterns_fix1", "history_bad1"]
    assert fakes.embedding.reconnects == [True]  # the hot path waits briefly for a reconnecting channel
    assert [r.lesson_limit for r in fakes.kg.recalls] == [6]


def test_lessons_come_first_and_the_matching_memories_follow_once() -> None:
    reply = build(stack())
    assert [(x.id, x.kind, x.worked, x.failed) for x in reply.lessons] == [
        ("patterns_fix1", "solution", 4, 1),
        ("history_bad1", "failure", 0, 3),
    ]
    known = reply.known_context
    assert known.index(SOLUTIONS_TITLE) < known.index("Switch SQLite") < known.index(FAILURES_TITLE)
    assert known.count("[id:patterns_fix1]") == 1 and "[id:history_m1]" in known
    assert "history_deploy" not in known  # shares no word with the prompt: the search left it out
    assert [m.id for m in reply.memories] == ["history_m1", "patterns_fix1", "history_bad1"]
    assert reply.routing.fact_ids == ("memory_bank_f1",) and reply.degraded == ()


def test_the_kgs_episode_lessons_join_local_first_when_it_knows_problems() -> None:
    fakes = stack(no_episodes=False)
    fakes.kg.episodes = [
        kg_pb.EpisodeLesson(kind="failure", text="pytest -x -> database is locked", project="blog", failed=2),
        kg_pb.EpisodeLesson(kind="solution", text="one connection per test", project="shop", worked=2),
        kg_pb.EpisodeLesson(kind="chatter", text="thanks", project="shop"),
    ]
    reply = build(fakes)
    assert [(x.content, x.kind, x.project) for x in reply.lessons] == [
        ("Switch SQLite to WAL mode for the orders database", "solution", ""),
        ("one connection per test", "solution", ""),  # this project's, so no project named
        ("Raising the busy timeout on the orders database did not help", "failure", ""),
        ("pytest -x -> database is locked", "failure", "blog"),
    ]
    (asked,) = fakes.kg.episode_asks
    assert (asked.scope, asked.session_id, asked.prompt) == (SCOPE, "s1", PROMPT)
    assert len(unpacked(asked.query_vector)) == len(vector(PROMPT))


def test_a_judged_prompt_with_no_known_problem_shows_no_lessons() -> None:
    # The kg knows problems but recognised none in this prompt: lessons matched by words alone go too.
    fakes = stack(no_episodes=False)
    reply = build(fakes)
    assert fakes.kg.episode_asks and reply.lessons == ()
    assert SOLUTIONS_TITLE not in reply.known_context and "[id:history_m1]" in reply.known_context


@pytest.mark.parametrize("service", ["embedding", "kg"])
def test_a_failing_side_call_degrades_the_context_and_keeps_the_memories(service: str) -> None:
    fakes = stack()
    if service == "embedding":
        fakes.embedding.down.add("embed")
    else:
        fakes.kg.down |= {"recall", "episode_lessons"}
    reply = build(fakes)
    (asked,) = fakes.memory.prepared
    assert reply.degraded == (service,)
    assert [m.id for m in reply.memories] == ["history_m1", "patterns_fix1", "history_bad1"]
    if service == "embedding":  # a keyword search, still routed by the kg
        assert asked.search.query_vector == b"" and dict(asked.search.collection_weights) == {"patterns": 1.5}
    else:  # a search without routing, facts or lessons
        assert dict(asked.search.collection_weights) == {} and list(asked.lesson_ids) == []
        assert reply.lessons == ()


def test_a_failing_memory_service_gives_an_empty_context() -> None:
    fakes = stack()
    fakes.memory.down.add("prepare_context")
    reply = build(fakes)
    assert (reply.context, reply.memories, reply.lessons, reply.degraded) == ("", (), (), ("memory",))


def test_with_the_kg_off_it_is_never_asked() -> None:
    fakes = stack(no_episodes=False)
    reply = build(fakes, use_kg=False)
    assert fakes.kg.recalls == [] and fakes.kg.episode_asks == []
    assert dict(fakes.memory.prepared[0].search.collection_weights) == {} and reply.lessons == ()
    assert "[id:history_m1]" in reply.known_context


def test_a_blank_prompt_searches_nothing_and_asks_no_one_else() -> None:
    fakes = stack()
    reply = build(fakes, "   ")
    (asked,) = fakes.memory.prepared
    assert not asked.HasField("search") and list(asked.lesson_ids) == []
    assert fakes.embedding.texts == [] and fakes.kg.recalls == [] and reply.context == ""


def test_owed_scores_put_the_scoring_prompt_before_the_block() -> None:
    fakes = stack()
    fakes.memory.scoring_required = True
    reply = build(fakes)
    assert reply.scoring_ids == ("history_m1", "patterns_fix1", "history_bad1")
    assert reply.scoring_prompt and reply.context.startswith(reply.scoring_prompt)
    assert reply.known_context in reply.context


def test_a_preview_asks_the_same_but_records_nothing() -> None:
    fakes = stack()
    reply = build(fakes, preview=True)
    assert fakes.memory.prepared[0].preview and fakes.memory.injected == []
    assert "[id:history_m1]" in reply.known_context


class SlowMemory(FakeMemory):
    async def prepare_context(
        self, request: mem_pb.PrepareContextRequest, timeout: float
    ) -> mem_pb.PrepareContextResponse:
        await asyncio.sleep(5)
        return await super().prepare_context(request, timeout)


def test_past_the_overall_deadline_the_context_is_empty() -> None:
    fakes = stack()
    fakes.memory = SlowMemory(memories=list(HELD))
    pipeline = prompt_context.build(
        fakes.backends,
        SCOPE,
        session_id="s1",
        prompt=PROMPT,
        limit=5,
        deadlines=Deadlines.within(0.2),
        use_kg=True,
        client="",
    )
    reply = asyncio.run(prompt_context.within_deadline(pipeline, 0.2))
    assert reply == ContextReply(degraded=("timeout",))


def test_insights_recall_reads_each_lesson_with_one_get() -> None:
    fakes = stack()
    routing, lessons = asyncio.run(prompt_context.recall(fakes.backends, SCOPE, PROMPT, Deadlines()))
    assert routing.weights == {"patterns": 1.5} and routing.concepts == ["sqlite", "locking"]
    assert fakes.memory.reads == ["patterns_fix1", "history_bad1"]
    assert [(x.id, x.kind) for x in lessons] == [("patterns_fix1", "solution"), ("history_bad1", "failure")]
    assert json.dumps(routing.as_route().to_json())  # the route reaches the reply as plain JSON
