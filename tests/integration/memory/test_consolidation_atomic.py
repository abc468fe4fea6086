"""Consolidation is idempotent and crash-safe (issue 27, defect 10).

- The merged memory's id is derived from its sources (``domain.consolidation_key``): a retried
  ``Consolidate`` with the same sources returns the merge already made, never a second one.
- A merge interrupted between writing the merged memory and archiving its sources (a kill -9)
  is finished when the service starts again, before it serves a call, from the intent it
  recorded (``storage.consolidation_journal``); a retry finishes it too.

Real memory service (real Chroma under a temporary home, the real embedding model) over loopback
gRPC; a "restart" stops the service and starts a new one on the same home.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.memory.composition import MemoryUseCases
from services.memory.domain.consolidation_key import consolidation_uid
from services.memory.domain.naming import memory_id, split_id
from services.memory.storage.consolidation_journal import ConsolidationIntent, ConsolidationJournal
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import start_memory_service

SCOPE = common_pb.Scope(user="merger", project="shop")


@contextmanager
def service(
    loop_thread: LoopThread, embedding_addr: str, home: Path
) -> Iterator[tuple[pb_grpc.MemoryServiceStub, MemoryUseCases]]:
    """A memory service on ``home``: (stub, its MemoryUseCases); stopped on exit."""
    running = loop_thread.run(start_memory_service(home, embedding_addr))
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield pb_grpc.MemoryServiceStub(channel), running.core
    finally:
        loop_thread.run(running.stop(0))


def _store(stub: pb_grpc.MemoryServiceStub, content: str, collection: str) -> str:
    reply = stub.Store(pb.StoreRequest(scope=SCOPE, collection=collection, content=content), timeout=60)
    return str(reply.memory.id)


def _merged_memories(stub: pb_grpc.MemoryServiceStub, collection: str) -> list[pb.Memory]:
    listed = stub.List(pb.ListRequest(scope=SCOPE, collection=collection, limit=100, include_archived=True), timeout=60)
    return [m for m in listed.memories if "consolidated_from" in json.loads(m.metadata_json or "{}")]


def _consolidate(stub: pb_grpc.MemoryServiceStub, ids: list[str], content: str) -> pb.ConsolidateResponse:
    request = pb.ConsolidateRequest(scope=SCOPE, source_ids=ids, content=content, reason="duplicates")
    reply: pb.ConsolidateResponse = stub.Consolidate(request, timeout=60)
    return reply


def _sources(tag: str) -> list[tuple[str, str]]:
    return [
        (f"{tag}: run the migrations with alembic upgrade head before the tests", "history"),
        (f"{tag}: alembic upgrade head has to run before pytest", "working"),
    ]


def test_a_retried_consolidation_returns_the_merge_already_made(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    with service(loop_thread, embedding_addr, tmp_path) as (stub, _):
        ids = [_store(stub, text, collection) for text, collection in _sources("retry")]
        first = _consolidate(stub, ids, "Run alembic upgrade head before pytest.")
        uids = [split_id(i)[1] for i in ids]
        assert first.merged.id == memory_id("history", consolidation_uid(uids))
        again = _consolidate(stub, list(reversed(ids)), "Run alembic upgrade head before pytest (retry).")
        assert again.merged.id == first.merged.id
        assert again.merged.content == first.merged.content  # the merge made, not a second one
        assert sorted(m.id for m in again.archived) == sorted(ids)
        assert [m.id for m in _merged_memories(stub, "history")] == [first.merged.id]

        undone = stub.UndoConsolidation(pb.UndoConsolidationRequest(scope=SCOPE, id=first.merged.id), timeout=60)
        assert sorted(m.id for m in undone.restored) == sorted(ids)
        redone = _consolidate(stub, ids, "Always run alembic upgrade head first.")
        assert redone.merged.id == memory_id("history", consolidation_uid(uids, 1))  # undone merges keep their id
        assert _consolidate(stub, ids, "retry of the redo").merged.id == redone.merged.id
        active = [m.id for m in _merged_memories(stub, "history") if not m.archived]
        assert active == [redone.merged.id]


def _crash_state(stub: pb_grpc.MemoryServiceStub, home: Path, ids: list[str], *, intent: bool, written: bool) -> str:
    """What a kill -9 between a merge's steps leaves on disk: the intent recorded (``intent``) and the
    merged memory written (``written``), every source still active. The merged row is written with
    Import (exactly the row ``Consolidate`` writes: its id, collection, text and links)."""
    merged_id = memory_id("history", consolidation_uid([split_id(i)[1] for i in ids]))
    if intent:
        ConsolidationJournal(home / "memory" / "merges").begin(
            ConsolidationIntent(SCOPE.user, SCOPE.project, merged_id, tuple(ids))
        )
    if written:
        row = {
            "format": "mnemex.memory/1",
            "scope": {"user": SCOPE.user, "project": SCOPE.project},
            "collection": "history",
            "id": merged_id,
            "content": "Run alembic upgrade head before pytest.",
            "metadata": {"consolidated_from": ",".join(ids), "consolidation_reason": "duplicates"},
        }
        assert stub.Import(iter([pb.ImportRequest(record_json=json.dumps(row))]), timeout=60).imported == 1
    return merged_id


def _active(stub: pb_grpc.MemoryServiceStub, memory_id_: str) -> bool:
    return not stub.Get(pb.GetRequest(scope=SCOPE, id=memory_id_), timeout=60).memory.archived


def test_a_merge_killed_after_its_write_is_finished_at_the_next_start(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    with service(loop_thread, embedding_addr, tmp_path) as (stub, _):
        ids = [_store(stub, text, collection) for text, collection in _sources("killed")]
        merged_id = _crash_state(stub, tmp_path, ids, intent=True, written=True)
        assert _active(stub, merged_id) and all(_active(stub, i) for i in ids)  # the half-applied state
    with service(loop_thread, embedding_addr, tmp_path) as (stub, _):  # the restart
        assert _active(stub, merged_id)
        for source in ids:
            stored = stub.Get(pb.GetRequest(scope=SCOPE, id=source), timeout=60).memory
            assert stored.archived and json.loads(stored.metadata_json)["superseded_by"] == merged_id
        assert list((tmp_path / "memory" / "merges").glob("*.json")) == []
        retry = _consolidate(stub, ids, "the client's retry")  # it was told the first call failed
        assert retry.merged.id == merged_id and sorted(m.id for m in retry.archived) == sorted(ids)
        assert [m.id for m in _merged_memories(stub, "history")] == [merged_id]


def test_a_merge_killed_before_its_write_leaves_the_sources_as_they_were(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    with service(loop_thread, embedding_addr, tmp_path) as (stub, _):
        ids = [_store(stub, text, collection) for text, collection in _sources("early")]
        merged_id = _crash_state(stub, tmp_path, ids, intent=True, written=False)
    with service(loop_thread, embedding_addr, tmp_path) as (stub, _):
        assert all(_active(stub, i) for i in ids)
        assert list((tmp_path / "memory" / "merges").glob("*.json")) == []
        assert _consolidate(stub, ids, "merged at last").merged.id == merged_id
        assert not any(_active(stub, i) for i in ids)


def test_a_retry_finishes_a_half_applied_merge_without_an_intent(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    """Even with no intent on disk (a store restored from a backup), the merge key finds the merge."""
    with service(loop_thread, embedding_addr, tmp_path) as (stub, _):
        ids = [_store(stub, text, collection) for text, collection in _sources("nointent")]
        merged_id = _crash_state(stub, tmp_path, ids, intent=False, written=True)
        retry = _consolidate(stub, ids, "the retry")
        assert retry.merged.id == merged_id and sorted(m.id for m in retry.archived) == sorted(ids)
        assert not any(_active(stub, i) for i in ids)
        assert [m.id for m in _merged_memories(stub, "history")] == [merged_id]
