from __future__ import annotations

import json

import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.memory_service import store


def inject(
    stub: MemoryServiceStub, scope: common_pb.Scope, session: str, ids: list[str], prompt: str = "a question"
) -> None:
    stub.RecordInjection(pb.RecordInjectionRequest(scope=scope, session_id=session, ids=ids, prompt=prompt), timeout=10)


def state(stub: MemoryServiceStub, scope: common_pb.Scope, session: str) -> pb.GetScoringStateResponse:
    return stub.GetScoringState(pb.GetScoringStateRequest(scope=scope, session_id=session), timeout=10)


def uses(stub: MemoryServiceStub, scope: common_pb.Scope, memory_id: str) -> int:
    return stub.Get(pb.GetRequest(scope=scope, id=memory_id), timeout=10).memory.uses


def test_turn_cycle_scoring_required_only_after_a_completed_turn(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    a = store(stub, scope, "Use uv to manage the virtualenv")
    b = store(stub, scope, "The API gateway rate-limits at 100 rps")
    assert not state(stub, scope, "s1").scoring_required
    inject(stub, scope, "s1", [a.id, b.id], prompt="how do I set up the env?")
    assert not state(stub, scope, "s1").scoring_required  # still answering
    exchange = stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="s1", assistant_text="Run uv sync."), timeout=30
    )
    assert exchange.exchange_id.startswith("working_")
    stored = stub.Get(pb.GetRequest(scope=scope, id=exchange.exchange_id), timeout=10).memory
    assert stored.content == "User: how do I set up the env?\nAssistant: Run uv sync."
    now = state(stub, scope, "s1")
    assert now.scoring_required and list(now.injected_ids) == [a.id, b.id] and now.exchange_id == exchange.exchange_id
    # next prompt arrives; the gateway checks state before recording the new injection
    inject(stub, scope, "s1", [b.id], prompt="and the rate limit?")
    reply = stub.Score(pb.ScoreRequest(scope=scope, session_id="s1", outcome=common_pb.OUTCOME_WORKED), timeout=30)
    assert reply.exchange_id == exchange.exchange_id
    assert {s.id for s in reply.scored} == {exchange.exchange_id, a.id, b.id}  # the previous turn's ids, not b alone
    assert all(s.score_after == pytest.approx(0.7) for s in reply.scored)
    assert not state(stub, scope, "s1").scoring_required


def test_interrupted_turn_needs_no_scoring(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    a = store(stub, scope, "Cache invalidation happens on deploy")
    inject(stub, scope, "s2", [a.id], prompt="first question")
    inject(stub, scope, "s2", [a.id], prompt="never mind, another question")  # no stop in between
    assert not state(stub, scope, "s2").scoring_required


def test_related_semantics_absent_empty_and_explicit(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    a, b, c = (
        store(stub, scope, text)
        for text in ("Use feature flags for rollouts", "Blue green deploys on Fridays", "Logs ship to Loki")
    )

    def turn(session: str) -> str:
        inject(stub, scope, session, [a.id, b.id])
        return stub.RecordExchange(
            pb.RecordExchangeRequest(
                scope=scope, session_id=session, user_text=f"q {session}", assistant_text=f"answer for {session}"
            ),
            timeout=30,
        ).exchange_id

    ex_none = turn("r-empty")
    empty = stub.Score(
        pb.ScoreRequest(scope=scope, session_id="r-empty", outcome=common_pb.OUTCOME_WORKED, related=pb.IdList()),
        timeout=30,
    )
    assert [s.id for s in empty.scored] == [ex_none]  # only the exchange
    turn("r-explicit")
    # c was never injected in this session: an explicit list scores exactly what it names
    explicit = stub.Score(
        pb.ScoreRequest(
            scope=scope,
            session_id="r-explicit",
            outcome=common_pb.OUTCOME_PARTIAL,
            related=pb.IdList(ids=[c.id, "working_" + "f" * 32]),
        ),
        timeout=30,
    )
    assert {s.id for s in explicit.scored} - {explicit.exchange_id} == {c.id}
    assert list(explicit.not_found) == ["working_" + "f" * 32]
    assert (uses(stub, scope, a.id), uses(stub, scope, b.id), uses(stub, scope, c.id)) == (0, 0, 1)


def test_memory_scores_take_precedence_per_id(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    good = store(stub, scope, "Run migrations with alembic upgrade head")
    bad = store(stub, scope, "Run migrations by editing the schema by hand")
    inject(stub, scope, "s3", [good.id, bad.id])
    stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="s3", user_text="migrate?", assistant_text="alembic"),
        timeout=30,
    )
    reply = stub.Score(
        pb.ScoreRequest(
            scope=scope,
            session_id="s3",
            outcome=common_pb.OUTCOME_WORKED,
            memory_scores={bad.id: common_pb.OUTCOME_FAILED},
        ),
        timeout=30,
    )
    by_id = {s.id: s for s in reply.scored}
    assert by_id[good.id].outcome == common_pb.OUTCOME_WORKED and by_id[good.id].score_after == pytest.approx(0.7)
    assert by_id[bad.id].outcome == common_pb.OUTCOME_FAILED and by_id[bad.id].score_after == pytest.approx(
        0.2, abs=1e-3
    )
    assert set(reply.collections) == {"working"}


def test_empty_session_id_scores_the_most_recent_session(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    note = store(stub, scope, "Terraform state lives in S3 with DynamoDB locking")
    inject(stub, scope, "older", [])
    inject(stub, scope, "claude-session-xyz", [note.id])
    stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="claude-session-xyz", user_text="tf?", assistant_text="S3"),
        timeout=30,
    )
    reply = stub.Score(
        pb.ScoreRequest(scope=scope, outcome=common_pb.OUTCOME_WORKED), timeout=30
    )  # MCP stdio: no session id
    assert note.id in {s.id for s in reply.scored}
    assert not state(stub, scope, "claude-session-xyz").scoring_required


def test_promotion_to_history_then_patterns_and_demotion_keep_the_uid(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    note = store(stub, scope, "Use pg_dump --format=custom for backups")
    uid = note.id.split("_", 1)[1]
    transitions = []
    for _ in range(5):
        reply = stub.Score(pb.ScoreRequest(scope=scope, memory_scores={note.id: common_pb.OUTCOME_WORKED}), timeout=30)
        transitions.append((reply.scored[0].transition, reply.scored[0].collection_after))
    assert transitions[1] == ("promoted", "history")  # score 0.9, uses 2
    assert transitions[4] == ("promoted", "patterns")  # score 1.0, uses 5, successes 5
    moved = stub.Get(pb.GetRequest(scope=scope, id=note.id), timeout=10).memory  # old id still resolves
    assert moved.id == f"patterns_{uid}" and moved.uses == 5
    steps = []
    for _ in range(3):  # 1.0 -> 0.7 -> 0.4 (not below 0.4) -> 0.1: demoted
        reply = stub.Score(pb.ScoreRequest(scope=scope, memory_scores={moved.id: common_pb.OUTCOME_FAILED}), timeout=30)
        steps.append((reply.scored[0].transition, reply.scored[0].new_id))
    assert steps == [("", ""), ("", ""), ("demoted", f"history_{uid}")]
    events = stub.Stats(pb.StatsRequest(scope=scope), timeout=10).events
    assert (events["promoted"], events["demoted"]) == (2, 1)


def test_repeated_failures_delete_but_never_memory_bank(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    wrong = store(stub, scope, "Restart the server to clear the cache (wrong)")
    fact = store(stub, scope, "User's timezone is UTC+2", "memory_bank")
    for _ in range(3):
        reply = stub.Score(
            pb.ScoreRequest(
                scope=scope, memory_scores={wrong.id: common_pb.OUTCOME_FAILED, fact.id: common_pb.OUTCOME_FAILED}
            ),
            timeout=30,
        )
    assert wrong.id in reply.not_found  # deleted after the second failure
    kept = stub.Get(pb.GetRequest(scope=scope, id=fact.id), timeout=10).memory
    assert kept.uses == 3 and kept.score == 1.0 and kept.wilson_score == 0.0
    assert stub.Stats(pb.StatsRequest(scope=scope), timeout=10).events["deleted"] == 1


def test_a_score_names_the_session_of_the_turn_it_scored(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    """The kg's episode of a session is taught from this session id. The gateway used to take the
    session from the scored exchange's memory, which after a merge into an older near-duplicate
    (the same "still broken" turn said in another session) names that older session."""
    for session in ("older", "newer"):
        inject(stub, scope, session, [], prompt="still broken, same traceback")
        stub.RecordExchange(
            pb.RecordExchangeRequest(scope=scope, session_id=session, assistant_text="Pinned the resolver."),
            timeout=30,
        )
    reply = stub.Score(pb.ScoreRequest(scope=scope, session_id="newer", outcome=common_pb.OUTCOME_FAILED), timeout=30)
    assert reply.session_id == "newer"
    stored = stub.Get(pb.GetRequest(scope=scope, id=reply.exchange_id), timeout=10).memory
    assert json.loads(stored.metadata_json)["session_id"] == "older"  # the merged memory names the other session
