from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.memory_service import store


def iso_days_ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="seconds")


def test_store_get_and_semantic_search_return_the_normalized_shape(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    fact = store(
        stub,
        scope,
        "The user prefers pytest fixtures over unittest classes",
        "memory_bank",
        tags=["preference"],
        importance=0.9,
        confidence=0.8,
    )
    store(stub, scope, "Deploys go through the staging cluster every Friday")
    assert fact.id.startswith("memory_bank_") and fact.tags == ["preference"]
    got = stub.Get(pb.GetRequest(scope=scope, id=fact.id), timeout=10).memory
    assert got.content == fact.content and (got.importance, got.confidence) == pytest.approx((0.9, 0.8))
    assert got.created_at and got.age == "now" and got.wilson_score == 0.5
    assert not got.HasField("embedding_similarity")
    found = stub.Search(
        pb.SearchRequest(scope=scope, query="which testing framework does the user like?", limit=2), timeout=30
    )
    top = found.memories[0]
    assert top.id == fact.id
    assert top.HasField("embedding_similarity") and top.HasField("final_rank_score")
    assert top.embedding_similarity > found.memories[1].embedding_similarity
    working = next(m for m in found.memories if m.collection == "working")
    assert not working.HasField("importance") and list(working.tags) == []


def test_near_duplicate_refreshes_instead_of_creating(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    first = store(stub, scope, "Fixed the flaky CI job by pinning numpy to 1.26")
    again = stub.Store(
        pb.StoreRequest(scope=scope, collection="working", content="Fixed the flaky CI job by pinning numpy to 1.26."),
        timeout=30,
    )
    assert again.deduplicated and again.memory.id == first.id
    assert json.loads(again.memory.metadata_json)["refresh_count"] == 1
    forced = stub.Store(
        pb.StoreRequest(scope=scope, collection="working", content=first.content, allow_duplicate=True), timeout=30
    )
    assert not forced.deduplicated and forced.memory.id != first.id
    different = stub.Store(
        pb.StoreRequest(scope=scope, collection="working", content="The database runs PostgreSQL 16"), timeout=30
    )
    assert not different.deduplicated


def test_memory_bank_update_rule_merges_tags(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    first = store(
        stub,
        scope,
        "User's name is Dana and she works on the billing team",
        "memory_bank",
        tags=["identity"],
        importance=0.6,
    )
    update = stub.Store(
        pb.StoreRequest(
            scope=scope,
            collection="memory_bank",
            content="User's name is Dana and she works on the billing team.",
            tags=["team"],
            importance=0.9,
        ),
        timeout=30,
    )
    assert update.deduplicated and update.memory.id == first.id
    assert list(update.memory.tags) == ["identity", "team"] and update.memory.importance == pytest.approx(0.9)


def test_memory_bank_is_shared_across_projects_but_working_is_not(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    fact = store(stub, scope, "User writes Go at work and Rust at home", "memory_bank")
    note = store(stub, scope, "Project one uses a Makefile for builds")
    other = common_pb.Scope(user=scope.user, project=scope.project + "-other")
    stranger = common_pb.Scope(user=scope.user + "x", project=scope.project)
    ids = [
        m.id
        for m in stub.Search(pb.SearchRequest(scope=other, query="languages and builds", limit=10), timeout=30).memories
    ]
    assert fact.id in ids and note.id not in ids
    assert stub.Search(pb.SearchRequest(scope=stranger, query="languages and builds"), timeout=30).memories == []


def test_id_lookup_bypasses_search(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    note = store(stub, scope, "Redis runs on port 6380 in dev")
    found = stub.Search(pb.SearchRequest(scope=scope, id=note.id, query="totally unrelated", days_back=1), timeout=10)
    assert [m.id for m in found.memories] == [note.id]
    missing = stub.Search(pb.SearchRequest(scope=scope, id="working_" + "0" * 32), timeout=10)
    assert list(missing.memories) == []


def test_days_back_with_a_query_keeps_only_the_window(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    old = store(
        stub,
        scope,
        "Kafka consumer lag fixed by raising max.poll.records",
        metadata_json=json.dumps({"created_at": iso_days_ago(20)}),
    )
    new = store(stub, scope, "Kafka consumer lag alert tuned to five minutes")
    found = stub.Search(pb.SearchRequest(scope=scope, query="kafka consumer lag", days_back=7), timeout=30)
    assert [m.id for m in found.memories] == [new.id]
    both = stub.Search(pb.SearchRequest(scope=scope, query="kafka consumer lag"), timeout=30)
    assert {m.id for m in both.memories} == {old.id, new.id}


def test_filters_collections_weights_and_boost_ids(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    book_like = store(
        stub, scope, "Chapter 3: retries with exponential backoff", "books", metadata_json='{"title": "SRE"}'
    )
    note = store(stub, scope, "We retry HTTP calls with exponential backoff and jitter")
    fact = store(stub, scope, "User's favourite editor is Helix", "memory_bank")
    only_books = stub.Search(pb.SearchRequest(scope=scope, query="backoff", collections=["books"]), timeout=30)
    assert [m.id for m in only_books.memories] == [book_like.id]
    titled = stub.Search(
        pb.SearchRequest(scope=scope, query="backoff", metadata_filters_json='{"title": "SRE"}'), timeout=30
    )
    assert [m.id for m in titled.memories] == [book_like.id]
    baseline = stub.Search(pb.SearchRequest(scope=scope, query="retry with backoff", limit=2), timeout=30)
    weighted = stub.Search(
        pb.SearchRequest(
            scope=scope, query="retry with backoff", limit=2, collection_weights={"books": 3.0, "working": 0.2}
        ),
        timeout=30,
    )
    assert weighted.memories[0].id == book_like.id
    scores = {m.id: m.final_rank_score for m in baseline.memories}
    assert weighted.memories[0].final_rank_score == pytest.approx(3.0 * scores[book_like.id])
    boosted = stub.Search(
        pb.SearchRequest(
            scope=scope,
            query="retry with backoff",
            limit=10,
            collections=["working", "memory_bank"],
            boost_ids=[fact.id],
        ),
        timeout=30,
    )
    assert fact.id in [m.id for m in boosted.memories] and note.id in [m.id for m in boosted.memories]


def test_archived_memories_never_surface_in_search(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    stale = store(stub, scope, "The staging database password rotates monthly", "memory_bank")
    archived = stub.Archive(pb.ArchiveRequest(scope=scope, id=stale.id, reason="outdated"), timeout=10).memory
    assert archived.archived
    for request in (
        pb.SearchRequest(scope=scope, query="staging database password rotation"),
        pb.SearchRequest(scope=scope, days_back=1),
        pb.SearchRequest(scope=scope, id=stale.id),
    ):
        assert stale.id not in [m.id for m in stub.Search(request, timeout=30).memories]
    assert stub.Get(pb.GetRequest(scope=scope, id=stale.id), timeout=10).memory.archived
    listed = stub.List(pb.ListRequest(scope=scope, collection="memory_bank", include_archived=True), timeout=10)
    assert [m.id for m in listed.memories] == [stale.id] and listed.total == 1
    assert stub.List(pb.ListRequest(scope=scope, collection="memory_bank"), timeout=10).total == 0


def test_update_changes_content_embedding_and_attributes(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    fact = store(stub, scope, "User prefers tabs for indentation", "memory_bank", tags=["style"])
    updated = stub.Update(
        pb.UpdateRequest(
            scope=scope,
            id=fact.id,
            content="User prefers four spaces for indentation",
            tags=["python"],
            confidence=0.95,
        ),
        timeout=30,
    ).memory
    assert updated.content.startswith("User prefers four spaces")
    assert list(updated.tags) == ["style", "python"] and updated.confidence == pytest.approx(0.95)
    found = stub.Search(pb.SearchRequest(scope=scope, query="four spaces indentation", limit=1), timeout=30)
    assert found.memories[0].id == fact.id and found.memories[0].content == updated.content
    replaced = stub.Update(
        pb.UpdateRequest(scope=scope, id=fact.id, tags=["only"], replace_tags=True), timeout=10
    ).memory
    assert list(replaced.tags) == ["only"]


def test_lexical_retrieval_finds_exact_identifiers(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    for i in range(12):
        store(stub, scope, f"General note {i} about refactoring services and writing tests", allow_duplicate=True)
    target = store(stub, scope, "ERR_SSL_PROTOCOL_ERROR came from the corporate proxy; set NODE_EXTRA_CA_CERTS")
    found = stub.Search(pb.SearchRequest(scope=scope, query="ERR_SSL_PROTOCOL_ERROR", limit=3), timeout=30)
    assert found.memories[0].id == target.id


def test_texts_longer_than_the_embedder_takes_are_stored_whole(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    long_text = "Postmortem of the March outage. " + "Timeline entry with details. " * 1500  # ~45k characters
    note = store(stub, scope, long_text, allow_duplicate=True)
    assert stub.Get(pb.GetRequest(scope=scope, id=note.id), timeout=10).memory.content == long_text.strip()
    found = stub.Search(pb.SearchRequest(scope=scope, query="postmortem of the March outage", limit=1), timeout=30)
    assert found.memories[0].id == note.id


def test_privacy_redaction_applies_before_storage(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    note = store(stub, scope, "Deploy key is ghp_abcdefghijklmnopqrstuvwxyz0123456789 <private>my diary</private> done")
    got = stub.Get(pb.GetRequest(scope=scope, id=note.id), timeout=10).memory
    assert "ghp_" not in got.content and "diary" not in got.content and "[REDACTED:github-token]" in got.content
