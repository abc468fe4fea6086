"""Invalid arguments on every RPC of every service get INVALID_ARGUMENT, never UNKNOWN or INTERNAL.

The cases are keyed by the full method name; a completeness test walks the
service descriptors, so a new RPC without invalid-input cases fails here.
Calls go over real loopback channels to the real servers. The cases themselves are
in ``invalid_requests`` and ``invalid_memory_requests``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import grpc
import pytest
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from protos.mnemex.embedding.v1 import embedding_service_pb2 as emb_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from tests.reliability.inproc import InprocStack
from tests.reliability.invalid_memory_requests import memory_cases
from tests.reliability.invalid_requests import GOOD_ID, GOOD_M, NO_INPUT, SERVICES, Case, M, embedding_cases, kg_cases

CASES = memory_cases() + kg_cases() + embedding_cases()
# Found by this suite; each is a BUG with the fix in the report.
KNOWN_BUGS: dict[str, str] = {}


Reply = TypeVar("Reply", bound=Message)


def _address(stack: InprocStack, method: str) -> str:
    service = method.split("/")[0]
    return {
        "MemoryService": stack.memory_addr,
        "KnowledgeGraphService": stack.kg_addr,
        "EmbeddingService": stack.embedding_addr,
    }[service]


def _full_name(method: str) -> str:
    service, name = method.split("/")
    for descriptor in SERVICES.values():
        if descriptor.name == service:
            return f"/{descriptor.full_name}/{name}"
    raise KeyError(method)


def _method_descriptor(method: str) -> MethodDescriptor:
    service, name = method.split("/")
    for descriptor in SERVICES.values():
        if descriptor.name == service:
            return descriptor.methods_by_name[name]
    raise KeyError(method)


def call(
    channel: grpc.Channel, method: str, request: Message | list[Message]
) -> tuple[grpc.StatusCode, str, Message | list[Message] | None]:
    """Invoke any RPC generically; returns (code, details, reply or None)."""
    descriptor = _method_descriptor(method)
    from google.protobuf import message_factory

    reply_class = message_factory.GetMessageClass(descriptor.output_type)
    path = _full_name(method)
    kwargs = {"request_serializer": lambda m: m.SerializeToString(), "response_deserializer": reply_class.FromString}
    try:
        if descriptor.client_streaming:
            assert isinstance(request, list)  # a client stream is sent as its messages
            reply = channel.stream_unary(path, **kwargs)(iter(request), timeout=60)
        elif descriptor.server_streaming:
            reply = list(channel.unary_stream(path, **kwargs)(request, timeout=60))
        else:
            reply = channel.unary_unary(path, **kwargs)(request, timeout=60)
    except grpc.RpcError as exc:
        return exc.code(), exc.details() or "", None
    return grpc.StatusCode.OK, "", reply


def reply_as(reply: Message | list[Message] | None, shape: type[Reply]) -> Reply:
    """A unary reply read as its generated class (``call`` decodes with a class built from the descriptor)."""
    assert isinstance(reply, Message), reply
    return shape.FromString(reply.SerializeToString())


def test_every_rpc_of_every_service_has_invalid_input_cases() -> None:
    covered = {case.method for case in CASES}
    missing = []
    for descriptor in SERVICES.values():
        for method in descriptor.methods:
            key = f"{descriptor.name}/{method.name}"
            if key not in covered and key not in NO_INPUT:
                missing.append(key)
    assert not missing, f"add invalid-input cases for: {missing}"


@pytest.fixture(scope="module")
def channels(stack: InprocStack) -> Iterator[dict[str, grpc.Channel]]:
    opened = {
        name: grpc.insecure_channel(addr, options=[("grpc.max_send_message_length", 32 * 1024 * 1024)])
        for name, addr in (
            ("MemoryService", stack.memory_addr),
            ("KnowledgeGraphService", stack.kg_addr),
            ("EmbeddingService", stack.embedding_addr),
        )
    }
    yield opened
    for channel in opened.values():
        channel.close()


def _param(case: Case) -> object:
    key = f"{case.method}:{case.name}"
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[key])] if key in KNOWN_BUGS else []
    return pytest.param(case, id=key, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_invalid_argument(case: Case, channels: dict[str, grpc.Channel]) -> None:
    code, details, reply = call(channels[case.method.split("/")[0]], case.method, case.request())
    if case.method == "MemoryService/Import" and code == grpc.StatusCode.OK:
        # Import reports bad lines in-band so one bad line never stops a restore.
        counts = reply_as(reply, mem_pb.ImportResponse)
        assert counts.invalid == 1 and counts.imported == 0, counts
        return
    assert code == grpc.StatusCode.INVALID_ARGUMENT, f"{case.method} [{case.name}] -> {code.name}: {details[:300]}"
    assert len(details) >= 15, f"the message should say what is wrong and how to fix it: {details!r}"


@pytest.mark.parametrize("method", sorted(NO_INPUT))
def test_rpcs_without_input_answer_ok(method: str, channels: dict[str, grpc.Channel]) -> None:
    request_class = {
        "EmbeddingService/Info": emb_pb.InfoRequest,
        "MemoryService/ListScopes": mem_pb.ListScopesRequest,
        "MemoryService/Info": mem_pb.InfoRequest,
        "MemoryService/GetRules": mem_pb.GetRulesRequest,
        "KnowledgeGraphService/Info": kg_pb.InfoRequest,
    }
    code, details, _ = call(channels[method.split("/")[0]], method, request_class[method]())
    assert code == grpc.StatusCode.OK, details


def test_unknown_ids_are_not_found_not_invalid(channels: dict[str, grpc.Channel]) -> None:
    memory = channels["MemoryService"]
    for method, request in [
        ("MemoryService/Get", M.GetRequest(scope=GOOD_M, id=GOOD_ID)),
        ("MemoryService/Update", M.UpdateRequest(scope=GOOD_M, id=GOOD_ID, content="new text")),
        ("MemoryService/Archive", M.ArchiveRequest(scope=GOOD_M, id=GOOD_ID)),
        ("MemoryService/RemoveBook", M.RemoveBookRequest(scope=GOOD_M, title="No Such Book")),
        ("MemoryService/UndoConsolidation", M.UndoConsolidationRequest(scope=GOOD_M, id=GOOD_ID)),
    ]:
        code, details, _ = call(memory, method, request)
        assert code == grpc.StatusCode.NOT_FOUND, f"{method} -> {code.name}: {details}"


# Regression: memory used to embed whole texts, and the embedding service refuses more than 8,192 chars,
# so any memory or exchange between 8,193 chars and the limits failed as UNAVAILABLE.
def test_long_texts_within_the_limits_are_stored(channels: dict[str, grpc.Channel]) -> None:
    memory = channels["MemoryService"]
    words = " ".join(f"step{i} checks the retry budget of the upload worker" for i in range(250))  # ~13,000 chars
    code, details, reply = call(
        memory, "MemoryService/Store", M.StoreRequest(scope=GOOD_M, collection="working", content=words)
    )
    assert code == grpc.StatusCode.OK, f"Store of {len(words):,} chars -> {code.name}: {details[:200]}"
    code, details, reply = call(
        memory,
        "MemoryService/RecordExchange",
        M.RecordExchangeRequest(scope=GOOD_M, session_id="long-answer", user_text="explain", assistant_text=words * 2),
    )
    exchange = reply_as(reply, mem_pb.RecordExchangeResponse) if code == grpc.StatusCode.OK else None
    assert exchange is not None and exchange.exchange_id, f"RecordExchange -> {code.name}: {details[:200]}"
