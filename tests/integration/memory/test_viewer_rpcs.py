"""The viewer's RPCs on a real memory service: Browse, Restore, ListSessions, ListTurns, OutcomeLog."""

from __future__ import annotations

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.memory_service import store


def _turn(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope, session: str, ids: list[str], prompt: str) -> None:
    stub.RecordInjection(pb.RecordInjectionRequest(scope=scope, session_id=session, ids=ids, prompt=prompt), timeout=10)
    stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id=session, user_text=prompt, assistant_text="done"), timeout=30
    )


def test_browse_filters_sorts_and_pages(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    ids = [
        store(stub, scope, f"note {i} about topic {i * 7}", tags=["even" if i % 2 == 0 else "odd"]).id for i in range(5)
    ]
    stub.Score(
        pb.ScoreRequest(
            scope=scope, memory_scores={ids[3]: common_pb.OUTCOME_WORKED, ids[1]: common_pb.OUTCOME_FAILED}
        ),
        timeout=30,
    )
    by_score = stub.Browse(pb.BrowseRequest(scope=scope, collections=["working"], sort="score", limit=5), timeout=10)
    assert by_score.total == 5
    assert by_score.memories[0].id == ids[3] and by_score.memories[-1].id == ids[1]
    by_uses = stub.Browse(pb.BrowseRequest(scope=scope, sort="uses", limit=2), timeout=10)
    assert {m.id for m in by_uses.memories} == {ids[1], ids[3]}
    everything = stub.Browse(pb.BrowseRequest(scope=scope, sort="recency", limit=5), timeout=10)
    second_page = stub.Browse(pb.BrowseRequest(scope=scope, sort="recency", limit=2, offset=2), timeout=10)
    assert [m.id for m in second_page.memories] == [m.id for m in everything.memories][2:4]
    created = [m.created_at for m in everything.memories]
    assert created == sorted(created, reverse=True)  # newest first
    even = stub.Browse(pb.BrowseRequest(scope=scope, tag="even"), timeout=10)
    assert even.total == 3 and all("even" in m.tags for m in even.memories)
    assert set(even.tags) == {"even", "odd"}

    with pytest.raises(grpc.RpcError) as bad:
        stub.Browse(pb.BrowseRequest(scope=scope, sort="loudest"), timeout=10)
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "score, wilson, uses" in (bad.value.details() or "")


def test_archive_then_restore(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    memory = store(stub, scope, "the staging database password rotates monthly")
    stub.Archive(pb.ArchiveRequest(scope=scope, id=memory.id, reason="stale"), timeout=10)
    assert stub.Browse(pb.BrowseRequest(scope=scope), timeout=10).total == 0
    archived = stub.Browse(pb.BrowseRequest(scope=scope, archived="archived"), timeout=10)
    assert [m.id for m in archived.memories] == [memory.id] and archived.memories[0].archived
    restored = stub.Restore(pb.RestoreRequest(scope=scope, id=memory.id), timeout=10).memory
    assert restored.archived is False
    assert [m.id for m in stub.Browse(pb.BrowseRequest(scope=scope), timeout=10).memories] == [memory.id]
    hits = stub.Search(pb.SearchRequest(scope=scope, query="staging database password", limit=3), timeout=30)
    assert memory.id in [m.id for m in hits.memories]
    with pytest.raises(grpc.RpcError) as missing:
        stub.Restore(pb.RestoreRequest(scope=scope, id="working_" + "1" * 15), timeout=10)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_turns_and_outcome_log(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    first = store(stub, scope, "run the linter with make lint before pushing")
    second = store(stub, scope, "the CI cache key includes the lockfile hash")
    _turn(stub, scope, "s-1", [first.id, second.id], "how do I lint?")
    stub.Score(
        pb.ScoreRequest(
            scope=scope,
            session_id="s-1",
            outcome=common_pb.OUTCOME_WORKED,
            memory_scores={second.id: common_pb.OUTCOME_FAILED},
        ),
        timeout=30,
    )
    _turn(stub, scope, "s-2", [first.id], "lint again?")

    sessions = stub.ListSessions(pb.ListSessionsRequest(scope=scope), timeout=10).sessions
    assert [s.session_id for s in sessions] == ["s-2", "s-1"] and sessions[1].turns == 1
    assert [s.first_prompt for s in sessions] == ["lint again?", "how do I lint?"]  # the viewer's session titles

    turns = stub.ListTurns(pb.ListTurnsRequest(scope=scope, session_id="s-1"), timeout=10).turns
    assert len(turns) == 1
    turn = turns[0]
    assert turn.prompt == "how do I lint?" and list(turn.injected_ids) == [first.id, second.id]
    assert turn.outcome == "worked" and turn.completed and turn.scored
    per_memory = {o.memory_id: o for o in turn.outcomes}
    assert per_memory[first.id].outcome == "worked" and per_memory[second.id].outcome == "failed"
    assert per_memory[second.id].score_after < per_memory[second.id].score_before

    injected = stub.ListTurns(pb.ListTurnsRequest(scope=scope, memory_id=first.id), timeout=10).turns
    assert [t.session_id for t in injected] == ["s-2", "s-1"]  # newest first
    assert (
        stub.ListTurns(pb.ListTurnsRequest(scope=scope, memory_id=second.id), timeout=10).turns[0].session_id == "s-1"
    )

    log = stub.OutcomeLog(pb.OutcomeLogRequest(scope=scope, memory_id=second.id), timeout=10).entries
    assert [(e.outcome, e.session_id, e.turn_id) for e in log] == [("failed", "s-1", turn.id)]
    with pytest.raises(grpc.RpcError) as neither:
        stub.ListTurns(pb.ListTurnsRequest(scope=scope), timeout=10)
    assert neither.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_browse_filters_by_kind(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    note = store(stub, scope, "a plain working note about kinds")
    _turn(stub, scope, "kinds-1", [], "what kinds are there?")
    fact = store(stub, scope, "Kinds are exchange, fact and more", collection="memory_bank")
    exchanges = stub.Browse(pb.BrowseRequest(scope=scope, kind="exchange", limit=20), timeout=10)
    assert exchanges.total == 1 and exchanges.memories[0].content.startswith("User: what kinds are there?")
    facts = stub.Browse(pb.BrowseRequest(scope=scope, kind="fact", limit=20), timeout=10)
    assert [m.id for m in facts.memories] == [fact.id]
    others = stub.Browse(pb.BrowseRequest(scope=scope, kind="other", limit=20), timeout=10)
    assert [m.id for m in others.memories] == [note.id]
    with pytest.raises(grpc.RpcError) as refused:
        stub.Browse(pb.BrowseRequest(scope=scope, kind="exchanges"), timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "use exchange" in str(refused.value.details())


def test_the_client_of_each_turn_is_kept_and_shown(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    shown = store(stub, scope, "Deploys go through the blue cluster")
    request = pb.PrepareContextRequest(
        scope=scope,
        session_id="claude-1",
        prompt="how do deploys go?",
        client="claude",
        search=pb.SearchRequest(query="how do deploys go?", limit=3),
    )
    stub.PrepareContext(request, timeout=30)
    answered = stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="claude-1", assistant_text="blue", client="claude"), timeout=30
    )
    # Cursor opens its turn without context (turn-start), then reports the answer.
    stub.RecordInjection(
        pb.RecordInjectionRequest(scope=scope, session_id="cursor-1", prompt="and rollbacks?", client="cursor"),
        timeout=10,
    )
    stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="cursor-1", assistant_text="helm", client="cursor"), timeout=30
    )
    _turn(stub, scope, "old-hook", [], "a hook that names no client")  # older hooks: no client, still recorded

    sessions = {s.session_id: list(s.clients) for s in stub.ListSessions(pb.ListSessionsRequest(scope=scope)).sessions}
    assert sessions == {"claude-1": ["claude"], "cursor-1": ["cursor"], "old-hook": []}
    turns = stub.ListTurns(pb.ListTurnsRequest(scope=scope, session_id="cursor-1"), timeout=10).turns
    assert [t.client for t in turns] == ["cursor"]
    read = stub.ListTurns(pb.ListTurnsRequest(scope=scope, memory_id=shown.id), timeout=10)
    assert [(t.session_id, t.client) for t in read.turns] == [("claude-1", "claude")] and read.written_by == ""
    wrote = stub.ListTurns(pb.ListTurnsRequest(scope=scope, memory_id=answered.exchange_id), timeout=10)
    assert wrote.written_by == "claude"
    with pytest.raises(grpc.RpcError) as refused:
        stub.RecordExchange(
            pb.RecordExchangeRequest(scope=scope, session_id="x", assistant_text="y", client="vim"), timeout=10
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "claude, cursor, opencode" in str(
        refused.value.details()
    )


def test_a_projects_browse_and_overview_leave_out_another_projects_facts(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    other = common_pb.Scope(user=scope.user, project=scope.project + "-other")
    own = store(stub, scope, "the ledger service deploys with helm", collection="memory_bank")
    theirs = store(stub, other, "the orchard service deploys with nomad", collection="memory_bank")
    everyone = store(
        stub, other, "the user writes commit messages in English", collection="memory_bank", user_wide=True
    )
    listed = stub.Browse(pb.BrowseRequest(scope=scope, collections=["memory_bank"]), timeout=10)
    assert {m.id for m in listed.memories} == {own.id, everyone.id} and listed.total == 2
    overview = stub.Overview(pb.OverviewRequest(scope=scope), timeout=10)
    assert overview.counts["memory_bank"] == 2 and overview.counts["archived"] == 0
    owners = {f.id: f.project for f in overview.facts}
    assert owners == {own.id: scope.project, theirs.id: other.project, everyone.id: ""}
    stub.Archive(pb.ArchiveRequest(scope=other, id=theirs.id, reason="stale"), timeout=10)
    assert stub.Overview(pb.OverviewRequest(scope=scope), timeout=10).counts["archived"] == 0
    assert stub.Overview(pb.OverviewRequest(scope=other), timeout=10).counts["archived"] == 1
