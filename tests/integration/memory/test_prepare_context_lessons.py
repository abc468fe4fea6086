"""PrepareContext's lesson_ids: the kg's lessons come back in the same call and join the injection.

Also: Score reports the scored turn's own prompt (what the kg is taught as the problem).
"""

from __future__ import annotations

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.memory_service import store


def prepare(
    stub: MemoryServiceStub,
    scope: common_pb.Scope,
    session: str,
    lesson_ids: list[str],
    prompt: str = "why is the db locked?",
) -> pb.PrepareContextResponse:
    request = pb.PrepareContextRequest(scope=scope, session_id=session, prompt=prompt, lesson_ids=lesson_ids)
    request.search.CopyFrom(pb.SearchRequest(query="rate limit of the gateway", limit=1))
    return stub.PrepareContext(request, timeout=30)


def test_lessons_come_back_in_order_and_are_recorded_with_the_results(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    store(stub, scope, "The API gateway rate-limits at 100 requests per second")
    wal = store(stub, scope, "Switch SQLite to WAL mode when the test database is locked", collection="history")
    busy = store(stub, scope, "Raise the busy timeout when the test database is locked", collection="history")
    gone = store(stub, scope, "An old note that was archived", collection="history")
    stub.Archive(pb.ArchiveRequest(scope=scope, id=gone.id, reason="outdated"), timeout=30)
    moved = busy.id.replace("history_", "patterns_")  # a stale id: the same memory under another collection

    first = prepare(stub, scope, "l1", [wal.id, "history_nosuchid", gone.id, moved, wal.id])
    assert [m.id for m in first.lessons] == [wal.id, busy.id]  # unknown and archived left out, moved found
    assert first.lessons[0].content == wal.content
    assert len(first.memories) == 1
    stub.RecordExchange(pb.RecordExchangeRequest(scope=scope, session_id="l1", assistant_text="WAL"), timeout=30)
    second = prepare(stub, scope, "l1", [], prompt="thanks")
    assert second.scoring_required
    assert list(second.injected_ids) == [first.memories[0].id, wal.id, busy.id]

    reply = stub.Score(
        pb.ScoreRequest(scope=scope, session_id="l1", outcome=common_pb.OUTCOME_WORKED, related=pb.IdList()),
        timeout=30,
    )
    assert reply.prompt == "why is the db locked?"


def test_too_many_lesson_ids_is_invalid(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        prepare(stub, scope, "l2", [f"history_{i}" for i in range(17)])
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 16" in (caught.value.details() or "")
