"""The shared-token check between mnemex processes: bearer metadata on gRPC calls.

Every service started the way the stack starts it has a token: ``MNEMEX_TOKEN``
when set, else the stack's generated internal credential
(``<MNEMEX_HOME>/secrets/internal-token``, ``kernel/internal_token.py``), and
adds ``TokenInterceptor``; clients send ``client_metadata(token)`` with every
call. A call without it is refused UNAUTHENTICATED, server reflection included.
Only the standard health service stays open, so the supervisor's probes and
load balancers need no secret (it reveals no memory: SERVING or not, and on
loopback the name of a broken store).

grpcurl sends the metadata with ``-H`` (on reflection calls too)::

    grpcurl -plaintext -H "authorization: Bearer $(cat "$MNEMEX_HOME/secrets/internal-token")" \
        127.0.0.1:27302 list
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import NoReturn, TypeVar, cast

import grpc

UNAUTHENTICATED_PREFIXES = ("/grpc.health.v1.Health/",)
DENIED = (
    "missing or wrong token: send metadata 'authorization: Bearer <token>', the token being MNEMEX_TOKEN "
    "or, when that is unset, the contents of $MNEMEX_HOME/secrets/internal-token"
)
Request = TypeVar("Request")
Response = TypeVar("Response")


class TokenInterceptor(grpc.aio.ServerInterceptor):
    """Rejects calls without ``authorization: Bearer <MNEMEX_TOKEN>`` metadata."""

    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()

        async def deny(request: object, context: grpc.aio.ServicerContext[object, object]) -> NoReturn:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                DENIED,
            )

        self._deny_unary: grpc.RpcMethodHandler[object, object] = grpc.unary_unary_rpc_method_handler(deny)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Request, Response] | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Request, Response] | None:
        if details.method.startswith(UNAUTHENTICATED_PREFIXES):
            return await continuation(details)
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                got = value.encode() if isinstance(value, str) else value
                if hmac.compare_digest(got, self._expected):
                    return await continuation(details)
        # It aborts before reading a request and never replies, so it serves any method's types.
        return cast("grpc.RpcMethodHandler[Request, Response]", self._deny_unary)


def client_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """The metadata a client sends with every call: the bearer token, or nothing."""
    return (("authorization", f"Bearer {token}"),) if token else ()
