"""The three empty-query bugs from the v0.3.5 notes, each pinned by a test.

1. No scoring: an empty query returned bare results without Wilson/learned scores.
2. Wrong sort field: the timeline sorted by ``timestamp`` only, so memories
   that carry ``created_at`` (or only ``timestamp``) were misplaced.
3. Date filters bypassed: ``days_back`` without a query returned everything.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService, store


def days_ago(days: float) -> datetime:
    return datetime.now(UTC) - timedelta(days=days)


def test_bug1_empty_query_results_are_scored_and_normalized(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    note = store(stub, scope, "Used ruff instead of flake8 for linting")
    for outcome in (common_pb.OUTCOME_WORKED, common_pb.OUTCOME_WORKED, common_pb.OUTCOME_FAILED):
        stub.Score(pb.ScoreRequest(scope=scope, memory_scores={note.id: outcome}), timeout=10)
    found = stub.Search(pb.SearchRequest(scope=scope, days_back=1), timeout=10).memories
    assert len(found) == 1
    memory = found[0]
    assert memory.uses == 3 and memory.success_count == pytest.approx(2.0)
    assert 0.0 < memory.wilson_score < 0.5  # computed from 2/3, not the 0.5 default
    assert memory.outcome_history == "[YYN]" and memory.last_outcome == "failed"
    assert memory.HasField("final_rank_score") and memory.final_rank_score > 0
    assert memory.learned_score != pytest.approx(0.5)
    assert memory.created_at and memory.age


def test_bug2_recency_sort_reads_created_at_with_timestamp_fallback(
    stub: MemoryServiceStub, scope: common_pb.Scope, memory_service: MemoryService, loop_thread: LoopThread
) -> None:
    newest = store(
        stub,
        scope,
        "Newest: upgraded to Python 3.12",
        metadata_json=json.dumps({"created_at": days_ago(1).isoformat()}),
    )
    oldest = store(
        stub,
        scope,
        "Oldest: started the repo with poetry",
        metadata_json=json.dumps({"created_at": days_ago(5).isoformat()}),
    )
    # A legacy record carrying only 'timestamp' (as Roampal's direct history store wrote it), imported as-is.
    legacy = {
        "scope": {"user": scope.user, "project": scope.project},
        "collection": "history",
        "id": "history_legacy0001",
        "content": "Middle: moved CI from Travis to GitHub Actions",
        "metadata": {"timestamp": days_ago(3).replace(tzinfo=None).isoformat(), "score": 0.6},
    }
    stub.Import(iter([pb.ImportRequest(record_json=json.dumps(legacy))]), timeout=30)
    found = stub.Search(pb.SearchRequest(scope=scope, days_back=30), timeout=10).memories
    assert [m.id for m in found] == [newest.id, "history_legacy0001", oldest.id]
    assert found[1].created_at.startswith(days_ago(3).date().isoformat())
    by_score = stub.Search(pb.SearchRequest(scope=scope, days_back=30, sort_by=pb.SORT_BY_SCORE), timeout=10).memories
    assert by_score[0].id == "history_legacy0001"


def test_bug3_days_back_without_query_filters_by_date(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    recent = store(
        stub,
        scope,
        "Recent: fixed the login redirect loop",
        metadata_json=json.dumps({"created_at": days_ago(2).isoformat()}),
    )
    store(
        stub,
        scope,
        "Old: chose PostgreSQL over MySQL",
        metadata_json=json.dumps({"created_at": days_ago(40).isoformat()}),
    )
    fact = store(
        stub,
        scope,
        "User is based in Lisbon",
        "memory_bank",
        metadata_json=json.dumps({"created_at": days_ago(100).isoformat()}),
    )
    found = stub.Search(pb.SearchRequest(scope=scope, days_back=7), timeout=10).memories
    assert [m.id for m in found] == [recent.id]
    wider = stub.Search(pb.SearchRequest(scope=scope, days_back=365), timeout=10).memories
    assert len(wider) == 3 and wider[-1].id == fact.id


def test_empty_query_honours_metadata_filters_and_collections(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    keep = store(stub, scope, "Ticket 42: flaky test quarantined", metadata_json='{"ticket": 42}')
    store(stub, scope, "Ticket 43: docs typo", metadata_json='{"ticket": 43}')
    store(stub, scope, "User likes terse answers", "memory_bank")
    found = stub.Search(
        pb.SearchRequest(scope=scope, days_back=1, metadata_filters_json='{"ticket": {"$lt": 43}}'), timeout=10
    )
    assert [m.id for m in found.memories] == [keep.id]
    only_bank = stub.Search(pb.SearchRequest(scope=scope, days_back=1, collections=["memory_bank"]), timeout=10)
    assert [m.collection for m in only_bank.memories] == ["memory_bank"]
