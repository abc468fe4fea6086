"""Domain errors to gRPC status codes, once, for every memory RPC.

``translated`` wraps a unary handler; streaming handlers catch
``DOMAIN_ERRORS`` themselves and call ``abort_for``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from kernel.grpc_runtime import abort_if_expired
from services.memory.errors import (
    EmbeddingUnavailable,
    InvalidRequest,
    LimitReached,
    MemoryNotFound,
)

R = TypeVar("R")

STATUS = (
    (InvalidRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (MemoryNotFound, grpc.StatusCode.NOT_FOUND),
    (LimitReached, grpc.StatusCode.FAILED_PRECONDITION),
    (EmbeddingUnavailable, grpc.StatusCode.UNAVAILABLE),
)
DOMAIN_ERRORS = (InvalidRequest, MemoryNotFound, LimitReached, EmbeddingUnavailable)


async def abort_for(exc: Exception, context: grpc.aio.ServicerContext) -> None:
    for kind, code in STATUS:
        if isinstance(exc, kind):
            await context.abort(code, str(exc))
    raise exc


def translated(handler: Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> R:
        await abort_if_expired(context)
        try:
            return await handler(self, request, context)
        except DOMAIN_ERRORS as exc:
            await abort_for(exc, context)
            raise  # unreachable: abort raises

    return wrapper
