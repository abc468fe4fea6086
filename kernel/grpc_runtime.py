"""What every mnemex gRPC server shares: health, reflection, auth, shutdown.

A service module provides ``register(server)`` for its servicer and the full
names of its gRPC services; ``start_server`` adds the standard health service
and server reflection, an optional bearer-token check, binds the address and
returns the started server with the port it got (``127.0.0.1:0`` in tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from kernel.config import require_token_for, split_host_port

log = logging.getLogger(__name__)

# Health probes stay open so supervisors and load balancers need no secret.
_UNAUTHENTICATED_PREFIXES = ("/grpc.health.v1.Health/",)
MAX_MESSAGE_BYTES = 16 * 1024 * 1024


class TokenInterceptor(grpc.aio.ServerInterceptor):
    """Rejects calls without ``authorization: Bearer <MNEMEX_TOKEN>`` metadata."""

    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()

        async def deny(request: Any, context: grpc.aio.ServicerContext) -> Any:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "missing or wrong token: send metadata 'authorization: Bearer $MNEMEX_TOKEN'",
            )

        self._deny_unary = grpc.unary_unary_rpc_method_handler(deny)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if details.method.startswith(_UNAUTHENTICATED_PREFIXES):
            return await continuation(details)
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                got = value.encode() if isinstance(value, str) else value
                if hmac.compare_digest(got, self._expected):
                    return await continuation(details)
        return self._deny_unary


def client_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


async def start_server(
    address: str,
    register: Callable[[grpc.aio.Server], None],
    service_names: Sequence[str],
    *,
    token: str | None = None,
    what: str = "service",
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    host, _ = split_host_port(address, "address")
    require_token_for(host, token, what)
    interceptors = [TokenInterceptor(token)] if token else []
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ],
    )
    register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*service_names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"could not bind {what} to {address}: is the port already in use?")
    await server.start()
    for name in (*service_names, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port, health_servicer


async def serve_until_signal(
    server: grpc.aio.Server,
    health_servicer: health.aio.HealthServicer | None = None,
    *,
    grace: float = 5.0,
    on_stop: Iterable[Callable[[], Any]] = (),
) -> None:
    """Run until SIGTERM/SIGINT, then drain in-flight calls for ``grace`` seconds."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    waiter = asyncio.ensure_future(server.wait_for_termination())
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
    if health_servicer is not None:
        await health_servicer.enter_graceful_shutdown()
    await server.stop(grace)
    for callback in on_stop:
        result = callback()
        if asyncio.iscoroutine(result):
            await result
    stopper.cancel()
    waiter.cancel()


def time_left(context: grpc.aio.ServicerContext) -> float | None:
    remaining = context.time_remaining()
    return None if remaining is None else float(remaining)


async def abort_if_expired(context: grpc.aio.ServicerContext) -> None:
    """Stop work the caller has already given up on."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline passed before work began")


def channel(address: str, token: str | None = None) -> grpc.aio.Channel:
    """An aio channel to a peer; ``dns:///host:port`` gives round-robin over replicas."""
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.enable_retries", 1),
        ("grpc.keepalive_time_ms", 30000),
        # Reconnect quickly after a backend restart instead of backing off for minutes:
        # a refused loopback connect costs microseconds, and the gateway's first call
        # after a restart waits (gateway.context.reconnecting) at most one backoff.
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 300),
    ]
    if address.startswith("dns:"):
        options.append(("grpc.lb_policy_name", "round_robin"))
    return grpc.aio.insecure_channel(address, options=options)
