"""Bad input gets INVALID_ARGUMENT with a message that says how to fix it; unknown ids get NOT_FOUND."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import grpc
import pytest
from google.protobuf.message import Message

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import store

# Out-of-range enum numbers go in through cast: the stubs admit only the named values.
S = common_pb.Scope(user="tester", project="bad-input")
UNKNOWN = "working_" + "0" * 32


@pytest.mark.parametrize(
    ("method", "request_", "fragment"),
    [
        ("Search", pb.SearchRequest(scope=S), "pass at least one of query"),
        ("Search", pb.SearchRequest(scope=S, query="x", limit=500), "limit=500"),
        ("Search", pb.SearchRequest(scope=S, days_back=4000), "days_back=4000"),
        ("Search", pb.SearchRequest(scope=S, query="x", collections=["notes"]), "unknown collection"),
        ("Search", pb.SearchRequest(scope=S, query="x", metadata_filters_json="{oops"), "not valid JSON"),
        ("Search", pb.SearchRequest(scope=S, query_vector=b"\x00" * 12), "expected 1536"),
        ("Search", pb.SearchRequest(scope=S, query="x", sort_by=cast("pb.SortBy", 9)), "SortBy"),
        ("Search", pb.SearchRequest(scope=common_pb.Scope(user="bad user!", project="p"), query="x"), "scope.user"),
        ("Store", pb.StoreRequest(scope=S, collection="working", content="   "), "content is empty"),
        ("Store", pb.StoreRequest(scope=S, collection="scratch", content="x"), "unknown collection"),
        ("Store", pb.StoreRequest(scope=S, collection="working", content="x", importance=0.5), "memory_bank only"),
        ("Store", pb.StoreRequest(scope=S, collection="memory_bank", content="x", confidence=2.0), "0.0 to 1.0"),
        ("Store", pb.StoreRequest(scope=S, collection="working", content="x" * 60_000), "limit is 50000"),
        (
            "Store",
            pb.StoreRequest(scope=S, collection="working", content="x", metadata_json='{"uses": 99}'),
            "managed by the service",
        ),
        ("Store", pb.StoreRequest(scope=S, collection="working", content="x", tags=["t"] * 21 + ["u"]), "tags given"),
        ("Score", pb.ScoreRequest(scope=S), "nothing to score"),
        (
            "Score",
            pb.ScoreRequest(scope=S, memory_scores={UNKNOWN: common_pb.OUTCOME_UNSPECIFIED}),
            "OUTCOME_UNSPECIFIED",
        ),
        ("Score", pb.ScoreRequest(scope=S, outcome=cast("common_pb.Outcome", 7)), "not an Outcome"),
        ("Update", pb.UpdateRequest(scope=S, id=UNKNOWN), "nothing to update"),
        ("Get", pb.GetRequest(scope=S, id=""), "id is empty"),
        ("List", pb.ListRequest(scope=S, collection="working", limit=1000), "limit=1000"),
        ("RecordInjection", pb.RecordInjectionRequest(scope=S, session_id="s" * 300), "session_id"),
        ("IngestBook", pb.IngestBookRequest(scope=S, title="t", filename="a.docx", data=b"x"), "supported formats"),
        (
            "IngestBook",
            pb.IngestBookRequest(scope=S, title="big", filename="big.txt", data=b"a" * (10 * 1024 * 1024 + 1)),
            "10 MB",
        ),
        ("IngestBook", pb.IngestBookRequest(scope=S, title="t", filename="t.pdf", data=b"not a pdf"), "PDF"),
        (
            "IngestBook",
            pb.IngestBookRequest(scope=S, title="t", filename="../../etc/passwd.md", data=b"x"),
            "base name",
        ),
        ("IngestBook", pb.IngestBookRequest(scope=S, title="t", filename="a\x00b.md", data=b"x"), "base name"),
    ],
)
def test_bad_input_is_invalid_argument(stub: MemoryServiceStub, method: str, request_: Message, fragment: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        getattr(stub, method)(request_, timeout=30)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert fragment in (err.value.details() or "")


@pytest.mark.parametrize(
    ("method", "request_"),
    [
        ("Get", pb.GetRequest(scope=S, id=UNKNOWN)),
        ("Update", pb.UpdateRequest(scope=S, id=UNKNOWN, content="new text")),
        ("Archive", pb.ArchiveRequest(scope=S, id=UNKNOWN)),
        ("RemoveBook", pb.RemoveBookRequest(scope=S, title="No Such Book")),
    ],
)
def test_unknown_ids_are_not_found(stub: MemoryServiceStub, method: str, request_: Message) -> None:
    with pytest.raises(grpc.RpcError) as err:
        getattr(stub, method)(request_, timeout=30)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_ids_from_another_scope_are_not_found(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    note = store(stub, scope, "Scope-private note about the payment service")
    other = common_pb.Scope(user=scope.user, project=scope.project + "-b")
    with pytest.raises(grpc.RpcError) as err:
        stub.Get(pb.GetRequest(scope=other, id=note.id), timeout=10)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    reply = stub.Score(pb.ScoreRequest(scope=other, memory_scores={note.id: common_pb.OUTCOME_FAILED}), timeout=10)
    assert list(reply.not_found) == [note.id]


def test_memory_bank_cap_is_failed_precondition(loop_thread: LoopThread, embedding_addr: str, tmp_path: Path) -> None:
    from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
    from tests.support.memory_service import start_memory_service

    server = loop_thread.run(start_memory_service(tmp_path, embedding_addr, memory_bank_cap=2))
    port = server.port
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
            client = pb_grpc.MemoryServiceStub(chan)
            first = store(client, S, "User likes green tea", "memory_bank")
            store(client, S, "User owns a bicycle", "memory_bank")
            with pytest.raises(grpc.RpcError) as err:
                store(client, S, "User speaks Portuguese", "memory_bank")
            assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "archive" in (err.value.details() or "")
            client.Archive(pb.ArchiveRequest(scope=S, id=first.id), timeout=10)
            assert store(client, S, "User speaks Portuguese", "memory_bank").id
    finally:
        loop_thread.run(server.stop(0))
