"""Supersession reaches every memory, and catches the same setting changed in other words.

Real memory service, real Chroma, real embeddings. Measured defects (issue 28):
after a version fact was superseded, the conversation turn that stated the old
version still ranked second; an update of the same setting in other words was
not detected at all, and find_consolidation_candidates reported 0 contradictions.
"""

from __future__ import annotations

import json

from protos.mnemex.common.v1.common_pb2 import Scope
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from services.memory.domain.naming import MEMORY_BANK
from tests.support.memory_service import store


def fact(stub: MemoryServiceStub, scope: Scope, text: str) -> pb.StoreResponse:
    return stub.Store(pb.StoreRequest(scope=scope, collection=MEMORY_BANK, content=text), timeout=30)


def test_a_turn_stating_the_old_value_is_marked_and_gives_its_place_to_the_new_fact(
    stub: MemoryServiceStub, scope: Scope
) -> None:
    """Issue 35 replaced the old rule (the turn shown last, labelled "superseded by"): the turn is not
    shown, and the new fact's line notes the old value and since when."""
    turn = store(
        stub,
        scope,
        "User: which Postgres do we run for the billing API?\nAssistant: The billing API is on Postgres 14.",
    )
    unrelated = store(stub, scope, "User: how do I rename a git branch?\nAssistant: git branch -m old new")
    old = fact(stub, scope, "The billing API uses Postgres 14").memory
    new = fact(stub, scope, "The billing API uses Postgres 16")
    assert list(new.superseded_ids) == [old.id]
    marked = json.loads(stub.Get(pb.GetRequest(scope=scope, id=turn.id), timeout=10).memory.metadata_json)
    assert marked["stale_value_superseded_by"] == new.memory.id
    assert "stale_value_superseded_by" not in json.loads(
        stub.Get(pb.GetRequest(scope=scope, id=unrelated.id), timeout=10).memory.metadata_json
    )
    request = pb.PrepareContextRequest(scope=scope, session_id="stale-1", prompt="postgres version?")
    request.search.CopyFrom(pb.SearchRequest(query="which Postgres version does the billing API run?", limit=5))
    reply = stub.PrepareContext(request, timeout=30)
    shown = [m.id for m in reply.memories]
    assert old.id not in shown and turn.id not in shown
    assert shown[0] == new.memory.id
    note = json.loads(reply.memories[0].metadata_json)
    assert note["was_value"] == "14" and note["was_until"]
    [left_out] = [c for c in reply.choices if c.id == turn.id]
    assert left_out.reason == f"states a superseded value (the current one is {new.memory.id})"


def test_a_turn_stating_the_old_value_brings_the_new_fact_when_the_search_missed_it(
    stub: MemoryServiceStub, scope: Scope
) -> None:
    turn = store(
        stub,
        scope,
        "User: bump the Redis image in docker-compose for the cache\nAssistant: The cache now runs Redis 6.2 in compose.",
    )
    fact(stub, scope, "The cache service runs on Redis 6.2")
    new = fact(stub, scope, "The cache service runs on Redis 7.2").memory
    assert (
        json.loads(stub.Get(pb.GetRequest(scope=scope, id=turn.id), timeout=10).memory.metadata_json)[
            "stale_value_superseded_by"
        ]
        == new.id
    )
    request = pb.PrepareContextRequest(scope=scope, session_id="stale-2", prompt="docker compose cache image")
    # a search of the conversation memories alone finds the turn: the fact that holds now comes in its place
    request.search.CopyFrom(pb.SearchRequest(query="redis image in docker-compose", limit=5, collections=["working"]))
    reply = stub.PrepareContext(request, timeout=30)
    assert [m.id for m in reply.memories] == [new.id]
    assert json.loads(reply.memories[0].metadata_json)["was_value"] == "6.2"


def test_the_same_setting_in_other_words_supersedes(stub: MemoryServiceStub, scope: Scope) -> None:
    port = fact(stub, scope, "The staging database port is 5432").memory
    moved = fact(stub, scope, "Staging DB now listens on port 6543")
    assert list(moved.superseded_ids) == [port.id]
    python = fact(stub, scope, "We run Python 3.11 in CI").memory
    upgraded = fact(stub, scope, "CI now runs on Python 3.12")
    assert list(upgraded.superseded_ids) == [python.id]
    other = fact(stub, scope, "The metrics port is 9090")
    assert list(other.superseded_ids) == []  # another subject


def test_consolidation_candidates_list_reworded_possible_contradictions(stub: MemoryServiceStub, scope: Scope) -> None:
    old = fact(stub, scope, "The frontend builds with Node 18").memory
    new = fact(stub, scope, "Build scripts need Node 20")
    assert list(new.superseded_ids) == []  # not sure enough to archive: left to the assistant
    reply = stub.FindConsolidationCandidates(
        pb.FindConsolidationCandidatesRequest(scope=scope, kinds=["contradiction"]), timeout=30
    )
    pairs = [sorted(m.id for m in c.memories) for c in reply.clusters]
    assert sorted([old.id, new.memory.id]) in pairs
    [cluster] = [c for c in reply.clusters if sorted(m.id for m in c.memories) == sorted([old.id, new.memory.id])]
    assert "possibly contradictory" in cluster.reason and "'18'" in cluster.reason and "'20'" in cluster.reason


def test_a_possible_update_in_other_words_keeps_the_old_fact_but_flags_it_and_its_turns(
    stub: MemoryServiceStub, scope: Scope
) -> None:
    turn = store(
        stub,
        scope,
        "User: point the uptime check at the site\nAssistant: The uptime check now probes port 8080 on the web server.",
    )
    old = fact(stub, scope, "We deploy the web server behind nginx on port 8080.").memory
    new = fact(stub, scope, "After the ingress change the web server now listens on 9090.")
    assert list(new.superseded_ids) == []  # "nginx" / "ingress": not sure enough to archive
    for flagged in (old.id, turn.id):
        stored = stub.Get(pb.GetRequest(scope=scope, id=flagged), timeout=10).memory
        assert not stored.archived
        assert json.loads(stored.metadata_json)["possibly_superseded_by"] == new.memory.id
    request = pb.PrepareContextRequest(scope=scope, session_id="possible-1", prompt="web server port?")
    request.search.CopyFrom(pb.SearchRequest(query="which port does the web server listen on?", limit=5))
    shown = [m.id for m in stub.PrepareContext(request, timeout=30).memories]
    assert shown[0] == new.memory.id and set(shown[1:]) == {old.id, turn.id}
