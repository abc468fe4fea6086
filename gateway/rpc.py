"""Call a backend RPC and turn gRPC failures into gateway errors, once."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

import grpc

from gateway.errors import BackendUnavailable, GatewayError, InvalidInput, NotFound, StorageProblem
from kernel.store_health import DISK_FULL, DISK_READ_ONLY

T = TypeVar("T")

_UNAVAILABLE_HINT = "start the stack with `mnemex up` (or check `mnemex status`)"

log = logging.getLogger("mnemex.gateway.rpc")


def translate(service: str, exc: grpc.aio.AioRpcError) -> GatewayError:
    code = exc.code()
    detail = exc.details() or code.name
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.FAILED_PRECONDITION):
        return InvalidInput(detail)
    if code == grpc.StatusCode.NOT_FOUND:
        return NotFound(detail)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and detail.startswith((DISK_FULL, DISK_READ_ONLY)):
        return StorageProblem(service, detail)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return BackendUnavailable(service, f"{detail} (set the same MNEMEX_TOKEN for the gateway and services)")
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return BackendUnavailable(service, f"{code.name.lower()}: {_UNAVAILABLE_HINT}")
    if code in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
        # Never hand a traceback fragment to a user or a model; the service log has it.
        log.warning("%s returned %s: %s", service, code.name, detail)
        return BackendUnavailable(
            service, f"{code.name.lower()}: internal error in the {service} service (see its log)"
        )
    return BackendUnavailable(service, f"{code.name}: {detail}")


async def call(service: str, awaitable: Awaitable[T]) -> T:
    """Await one RPC; any gRPC error becomes InvalidInput/NotFound/BackendUnavailable."""
    try:
        return await awaitable
    except grpc.aio.AioRpcError as exc:
        raise translate(service, exc) from None
