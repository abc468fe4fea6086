"""The memory service's gRPC surface: one servicer made of the RPC groups, and its error table.

``MemoryServicer(*groups)`` answers every RPC of ``MemoryService`` with the one
group that defines it (``prompt_rpcs``, ``memory_rpcs``, ``viewer_rpcs``,
``admin_rpcs``, ``portability_rpcs``); an RPC no group or two groups define is
an error at construction, not a call that fails later. Deadlines and the
mapping of domain errors to status codes (``ERRORS``) are the scaffold's, done
once for every RPC (``kernel.grpc_service``).
"""

from __future__ import annotations

import grpc

from kernel.grpc_call_policy import ErrorTable
from kernel.sharding import NotThisShard
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
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


class MemoryServicer(pb_grpc.MemoryServiceServicer):
    """Every RPC of the service, bound to the handler of the one group that defines it."""

    def __init__(self, *groups: object) -> None:
        for name in SERVICE.methods_by_name:
            owners = [group for group in groups if callable(getattr(group, name, None))]
            if len(owners) != 1:
                raise ValueError(f"{name} is answered by {len(owners)} RPC groups; it needs exactly one")
            setattr(self, name, getattr(owners[0], name))


def register(servicer: MemoryServicer, server: grpc.aio.Server) -> None:
    pb_grpc.add_MemoryServiceServicer_to_server(servicer, server)
