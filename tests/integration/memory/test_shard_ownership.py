"""A sharded service (``MNEMEX_SHARD=0/2``) refuses every call for a user it does not own.

Every memory RPC that names a user (in its scope, in a backfill item, or
inside an Import record) is tried for a user of the other shard over a real
loopback channel: each answers FAILED_PRECONDITION naming the owner, and
nothing is stored for that user. The kg service is checked for Import too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from kernel.sharding import Shard, shard_of
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import start_memory_service

THIS_SHARD = Shard(0, 2)
OWNED = next(f"owned{i}" for i in range(100) if shard_of(f"owned{i}", 2) == 0)
FOREIGN = next(f"foreign{i}" for i in range(100) if shard_of(f"foreign{i}", 2) == 1)
NO_USER = {"Info", "GetRules", "ListScopes"}  # nothing to check: no scope in the request


def _record(user: str, uid: str) -> str:
    return json.dumps(
        {
            "format": "mnemex.memory/1",
            "scope": {"user": user, "project": "shop"},
            "collection": "working",
            "id": f"working_{uid}",
            "content": f"imported note for {user}",
            "metadata": {"created_at": "2026-01-02T03:04:05+00:00"},
        }
    )


@pytest.fixture(scope="module")
def sharded_address(
    loop_thread: LoopThread, embedding_addr: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("memory-shard0")
    running = loop_thread.run(start_memory_service(home, embedding_addr, shard=THIS_SHARD))
    yield f"127.0.0.1:{running.port}"
    loop_thread.run(running.stop(0))


def _foreign_request(method: MethodDescriptor) -> Message:
    """A request of ``method``'s type whose user is FOREIGN, wherever the user is carried."""
    request: Any = message_factory.GetMessageClass(method.input_type)()  # type: ignore[explicit-any]  # a message class made at run time
    scope = common_pb.Scope(user=FOREIGN, project="shop")
    if method.name == "Import":
        request.record_json = _record(FOREIGN, "000000000000001")
    elif method.name == "Backfill":
        request.exchanges.add(
            scope=scope,
            id="working_000000000000002",
            session_id="s1",
            created_at="2025-01-01T00:00:00Z",
            user_text="hi",
            assistant_text="hello",
        )
    elif method.name == "IngestBookStream":
        request.book.scope.CopyFrom(scope)
    else:
        request.scope.CopyFrom(scope)
    built: Message = request
    return built


def _call(channel: grpc.Channel, method: MethodDescriptor, request: Message) -> grpc.RpcError | None:
    reply_class = message_factory.GetMessageClass(method.output_type)
    path = f"/{method.containing_service.full_name}/{method.name}"

    def serialize(message: Message) -> bytes:
        return message.SerializeToString()

    deserialize = reply_class.FromString
    try:
        if method.client_streaming:
            channel.stream_unary(path, request_serializer=serialize, response_deserializer=deserialize)(
                iter([request]), timeout=60
            )
        elif method.server_streaming:
            list(
                channel.unary_stream(path, request_serializer=serialize, response_deserializer=deserialize)(
                    request, timeout=60
                )
            )
        else:
            channel.unary_unary(path, request_serializer=serialize, response_deserializer=deserialize)(
                request, timeout=60
            )
    except grpc.RpcError as exc:
        return exc
    return None


def test_every_memory_rpc_refuses_a_user_of_another_shard(sharded_address: str) -> None:
    service = pb.DESCRIPTOR.services_by_name["MemoryService"]
    accepted = []
    with grpc.insecure_channel(sharded_address) as channel:
        for method in service.methods:
            if method.name in NO_USER:
                continue
            error = _call(channel, method, _foreign_request(method))
            if error is None or error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                accepted.append((method.name, error.code() if error else "OK"))
            else:
                assert "belongs to shard 1 of 2" in (error.details() or ""), (method.name, error.details())
    assert accepted == []


def test_import_stores_owned_users_and_refuses_a_foreign_one(sharded_address: str) -> None:
    with grpc.insecure_channel(sharded_address) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        reply = stub.Import(iter([pb.ImportRequest(record_json=_record(OWNED, "000000000000010"))]), timeout=60)
        assert reply.imported == 1
        with pytest.raises(grpc.RpcError) as refused:
            stub.Import(iter([pb.ImportRequest(record_json=_record(FOREIGN, "000000000000011"))]), timeout=60)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert f"user {FOREIGN!r} belongs to shard 1 of 2" in (refused.value.details() or "")
        listed = stub.ListScopes(pb.ListScopesRequest(), timeout=60)
        assert {s.scope.user for s in listed.scopes} == {OWNED}


def test_every_kg_rpc_refuses_a_user_of_another_shard(loop_thread: LoopThread, tmp_path: Path) -> None:
    from services.kg.kg_servicer import create_server
    from services.kg.settings import KgSettings

    running = loop_thread.run(create_server(KgSettings(address="127.0.0.1:0", home=tmp_path, shard=THIS_SHARD)))
    accepted = []
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            for method in kg_pb.DESCRIPTOR.services_by_name["KnowledgeGraphService"].methods:
                request: Any = message_factory.GetMessageClass(method.input_type)()  # type: ignore[explicit-any]  # a message class made at run time
                if "scope" not in request.DESCRIPTOR.fields_by_name:
                    continue  # ExtractConcepts, Info: no user to check
                request.scope.CopyFrom(common_pb.Scope(user=FOREIGN, project="shop"))
                if method.name == "Import":
                    request.graph_json = json.dumps({"format": "mnemex.kg/1"})
                error = _call(channel, method, request)
                if error is None or error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    accepted.append((method.name, error.code() if error else "OK"))
                else:
                    assert "belongs to shard 1 of 2" in (error.details() or ""), (method.name, error.details())
            stub = kg_grpc.KnowledgeGraphServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.Import(
                    kg_pb.ImportRequest(scope=common_pb.Scope(user=FOREIGN, project="shop"), graph_json="{}"),
                    timeout=60,
                )
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        loop_thread.run(running.stop(0))
    assert accepted == []
