"""PrepareContext: state, search and injection record in one call, with turns kept in order.

The injection is written after the reply; these tests fire the next call on the
same session at once, so a write that was not kept in order would show up as a
missing scoring prompt or the wrong ids.
"""

from __future__ import annotations

import json

import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService, store


def prepare(
    stub: MemoryServiceStub, scope: common_pb.Scope, session: str, query: str = "", prompt: str = "a question"
) -> pb.PrepareContextResponse:
    request = pb.PrepareContextRequest(scope=scope, session_id=session, prompt=prompt)
    if query:
        request.search.CopyFrom(pb.SearchRequest(query=query, limit=3))
    return stub.PrepareContext(request, timeout=30)


def exchange(stub: MemoryServiceStub, scope: common_pb.Scope, session: str, answer: str = "done") -> str:
    return stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id=session, assistant_text=answer), timeout=30
    ).exchange_id


def test_one_call_answers_state_and_search_and_records_the_turn(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    uv = store(stub, scope, "Use uv to manage the virtualenv of this repository")
    store(stub, scope, "The API gateway rate-limits at 100 requests per second")
    first = prepare(stub, scope, "p1", query="how do I manage the virtualenv?", prompt="how do I set up the env?")
    assert not first.scoring_required and list(first.injected_ids) == []
    found = [m.id for m in first.memories]
    assert found and found[0] == uv.id
    # The stop comes straight after: it must find the turn PrepareContext recorded.
    exchange_id = exchange(stub, scope, "p1", answer="Run uv sync.")
    stored = stub.Get(pb.GetRequest(scope=scope, id=exchange_id), timeout=10).memory
    assert stored.content == "User: how do I set up the env?\nAssistant: Run uv sync."
    second = prepare(stub, scope, "p1", query="and the rate limit?", prompt="and the rate limit?")
    assert second.scoring_required and list(second.injected_ids) == found and second.exchange_id == exchange_id
    # Scoring now targets the first turn's ids, not the ones injected just now.
    reply = stub.Score(pb.ScoreRequest(scope=scope, session_id="p1", outcome=common_pb.OUTCOME_WORKED), timeout=30)
    assert {s.id for s in reply.scored} == {exchange_id, *found}


def test_without_a_search_the_state_is_read_and_an_empty_turn_recorded(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    blank = prepare(stub, scope, "p2")
    assert list(blank.memories) == [] and not blank.scoring_required
    exchange_id = exchange(stub, scope, "p2")
    after = prepare(stub, scope, "p2")
    assert after.scoring_required and list(after.injected_ids) == [] and after.exchange_id == exchange_id


def test_an_interrupted_turn_needs_no_scoring(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    store(stub, scope, "Cache invalidation happens on deploy")
    prepare(stub, scope, "p3", query="when is the cache invalidated?")
    again = prepare(stub, scope, "p3", query="never mind, when do we deploy?")  # no stop in between
    assert not again.scoring_required


def test_many_turns_back_to_back_stay_in_order(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    store(stub, scope, "Feature flags gate every rollout")
    previous_ids: list[str] | None = None
    previous_exchange = ""
    for turn in range(12):
        reply = prepare(stub, scope, "p4", query=f"how do rollouts work, take {turn}?", prompt=f"question {turn}")
        if previous_ids is None:
            assert not reply.scoring_required
        else:
            assert reply.scoring_required, turn
            assert list(reply.injected_ids) == previous_ids and reply.exchange_id == previous_exchange
        previous_ids = [m.id for m in reply.memories]
        previous_exchange = exchange(stub, scope, "p4", answer=f"answer {turn}")


def test_the_core_keeps_the_deferred_write_before_the_next_turn_operation(
    memory_service: MemoryService, loop_thread: LoopThread, scope: common_pb.Scope
) -> None:
    """No RPC round trip in between: the exchange is recorded the moment PrepareContext returns,
    before the deferred injection write has even started."""
    memory = memory_service.memory
    mem_scope = memory.scope(scope.user, scope.project)

    async def back_to_back() -> tuple[int, str, str, tuple[bool, list[str], str]]:
        await memory.prepare.select(mem_scope, "p5", None, b"", "the question")
        pending = memory.turn_writes.pending
        exchange_id = await memory.turns.record_exchange(mem_scope, "p5", "", "the answer")
        stored = await memory.reads.get(mem_scope, exchange_id)
        return pending, exchange_id, stored.content, await memory.turns.scoring_state(mem_scope, "p5")

    pending, exchange_id, content, (required, ids, scored_exchange) = loop_thread.run(back_to_back())
    assert pending == 1  # the write was still queued when the exchange came in
    assert content == "User: the question\nAssistant: the answer"  # the exchange found the recorded turn
    assert required and ids == [] and scored_exchange == exchange_id


def test_kept_lines_carry_their_rank_parts_and_the_turn_records_the_same(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    store(stub, scope, "Use uv to manage the virtualenv of this repository")
    store(stub, scope, "The virtualenv lives in .venv at the repository root")
    reply = prepare(stub, scope, "p-parts", query="how do I manage the virtualenv?", prompt="virtualenv?")
    kept = [c for c in reply.choices if c.kept]
    assert kept and all(c.HasField("parts") for c in kept)
    by_id = {m.id: m for m in reply.memories}
    for choice in kept:
        memory, parts = by_id[choice.id], choice.parts
        assert parts.dense == pytest.approx(memory.embedding_similarity, abs=1e-4)
        assert parts.final == pytest.approx(memory.final_rank_score, abs=1e-4)
        assert parts.learned == pytest.approx(memory.learned_score, abs=1e-4)
        assert 0.0 < parts.relevance <= 1.0 and parts.session_context >= 1.0 and parts.kg_weight == 1.0
        assert parts.lexical > 0.0  # "virtualenv" is a keyword hit in both
    exchange(stub, scope, "p-parts")  # the turn's deferred record is written before the stop
    turns = stub.ListTurns(pb.ListTurnsRequest(scope=scope, session_id="p-parts"), timeout=10).turns
    recorded = {c["id"]: c["parts"] for c in json.loads(turns[-1].choices_json) if c["kept"]}
    assert recorded == {
        c.id: {
            "dense": pytest.approx(c.parts.dense),
            "lexical": pytest.approx(c.parts.lexical),
            "session_context": pytest.approx(c.parts.session_context),
            "relevance": pytest.approx(c.parts.relevance),
            "kg_weight": pytest.approx(c.parts.kg_weight),
            "kg_linked": c.parts.kg_linked,
            "learned": pytest.approx(c.parts.learned),
            "final": pytest.approx(c.parts.final),
        }
        for c in kept
    }


def test_the_deferred_record_keeps_the_turns_choices_and_client(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    # One write behind the reply records the injection, then the choices and client with that turn.
    uv = store(stub, scope, "Use uv to manage the virtualenv of this repository")
    request = pb.PrepareContextRequest(scope=scope, session_id="c1", prompt="how do I set up the env?", client="claude")
    request.search.CopyFrom(pb.SearchRequest(query="how do I manage the virtualenv?", limit=3))
    first = stub.PrepareContext(request, timeout=30)
    assert [m.id for m in first.memories] == [uv.id]
    prepare(stub, scope, "c1", prompt="next")  # the session's next call waits for that write
    turns = stub.ListTurns(pb.ListTurnsRequest(scope=scope, session_id="c1", limit=10), timeout=10).turns
    (turn,) = [t for t in turns if t.prompt == "how do I set up the env?"]
    assert list(turn.injected_ids) == [uv.id] and turn.client == "claude"
    assert [(c["id"], c["kept"]) for c in json.loads(turn.choices_json)] == [(uv.id, True)]


def test_a_preview_answers_the_same_and_records_nothing(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    store(stub, scope, "Migrations run with alembic upgrade head before each deploy")
    first = prepare(stub, scope, "p5", query="how do migrations run?")
    exchange(stub, scope, "p5")
    request = pb.PrepareContextRequest(scope=scope, session_id="p5", prompt="and migrations?", preview=True)
    request.search.CopyFrom(pb.SearchRequest(query="how do migrations run?", limit=3))
    shown = stub.PrepareContext(request, timeout=30)
    assert [m.id for m in shown.memories] == [m.id for m in first.memories]
    assert shown.scoring_required and list(shown.injected_ids) == [m.id for m in first.memories]
    # Nothing was recorded: the next real prompt still owes the score of the first turn, and no turn was opened.
    again = prepare(stub, scope, "p5", query="how do migrations run?")
    assert again.scoring_required and list(again.injected_ids) == [m.id for m in first.memories]
    turns = stub.ListTurns(pb.ListTurnsRequest(scope=scope, session_id="p5", limit=10), timeout=10).turns
    assert [t.prompt for t in turns].count("and migrations?") == 0
