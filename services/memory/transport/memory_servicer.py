"""The memory service's gRPC surface: one servicer made of the RPC groups, and its error table.

``MemoryServicer(*groups)`` answers every RPC of ``MemoryService`` with the one
group that defines it (``prompt_rpcs``, ``memory_rpcs``, ``viewer_rpcs``,
``admin_rpcs``, ``portability_rpcs``); an RPC no group or two groups define is
an error at construction, not a call that fails later. Deadlines and the
mapping of domain errors to status codes (``ERRORS``) are the scaffold's, done
once for every RPC (``kernel.grpc_hosting``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import grpc
from google.protobuf import message_factory
from google.protobuf.message import Message

from kernel.grpc_call_policy import ErrorTable
from kernel.sharding import NotThisShard
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain.memory_errors import EmbeddingUnavailable, InvalidRequest, LimitReached, MemoryNotFound

SERVICE = pb.DESCRIPTOR.services_by_name["MemoryService"]
SERVICE_NAME = SERVICE.full_name
ERRORS: ErrorTable = {
    InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
    MemoryNotFound: grpc.StatusCode.NOT_FOUND,
    LimitReached: grpc.StatusCode.FAILED_PRECONDITION,
    EmbeddingUnavailable: grpc.StatusCode.UNAVAILABLE,
    NotThisShard: grpc.StatusCode.FAILED_PRECONDITION,
}


class RpcBehaviour(Protocol):
    """A group's bound RPC method: grpc calls it with the request (or the request iterator) and the context."""

    def __call__(self, request: object, context: grpc.aio.ServicerContext[Message, Message], /) -> object: ...


class _HandlerKind(Protocol):
    """``grpc.unary_unary_rpc_method_handler`` and its three siblings."""

    def __call__(
        self,
        behavior: RpcBehaviour,
        request_deserializer: Callable[[bytes], Message] | None = None,
        response_serializer: Callable[[Message], bytes] | None = None,
    ) -> grpc.RpcMethodHandler[Message, Message]: ...


# How each RPC's handler is wrapped, by (client streams, server streams).
_HANDLER_KINDS: dict[tuple[bool, bool], _HandlerKind] = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}


class MemoryServicer:
    """Every RPC of the service, bound to the handler of the one group that defines it."""

    def __init__(self, *groups: object) -> None:
        self.handlers: dict[str, RpcBehaviour] = {}
        for name in SERVICE.methods_by_name:
            owners = [group for group in groups if callable(getattr(group, name, None))]
            if len(owners) != 1:
                raise ValueError(f"{name} is answered by {len(owners)} RPC groups; it needs exactly one")
            self.handlers[name] = getattr(owners[0], name)


def register(servicer: MemoryServicer, server: grpc.aio.Server) -> None:
    """Serve every RPC with its group's handler, (de)serialised by the messages the proto names (what the
    generated ``add_MemoryServiceServicer_to_server`` does for one servicer class)."""
    handlers: dict[str, grpc.RpcMethodHandler[Message, Message]] = {}
    for method in SERVICE.methods:
        request = message_factory.GetMessageClass(method.input_type)
        reply = message_factory.GetMessageClass(method.output_type)
        wrap = _HANDLER_KINDS[(method.client_streaming, method.server_streaming)]
        handlers[method.name] = wrap(
            servicer.handlers[method.name],
            request_deserializer=request.FromString,
            response_serializer=reply.SerializeToString,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)
