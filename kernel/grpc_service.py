"""The one scaffold every mnemex gRPC service runs on: settings -> running server -> graceful stop.

A service's ``create_server`` builds its composition object (the thing its
servicer calls and that owns resources: the embedding batcher, the kg store,
the memory core) and hands it to ``start_service`` with its servicer's
``register`` function and its ``ErrorTable``::

    async def create_server(settings: KgSettings, *, store: KgStore | None = None) -> RunningService[KgStore]:
        store = store or KgStore(...)
        servicer = KnowledgeGraphServicer(store)
        return await start_service(
            settings, store,
            register=lambda server: pb_grpc.add_KnowledgeGraphServiceServicer_to_server(servicer, server),
            service_names=[SERVICE_NAME], errors=ERRORS, what="the kg service",
        )

``start_service`` adds the standard health service and server reflection (so
grpcurl and ``buf curl`` work), the bearer-token check when the settings carry
a token, and the per-call policy (deadlines, error table), binds
``settings.address`` (``127.0.0.1:0`` in tests picks a free port) and marks
every service SERVING. ``RunningService.stop(grace)`` drains the server and
then closes the composition object; ``serve_until_signal`` calls it on
SIGTERM/SIGINT.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from kernel.config import require_token_for, split_host_port
from kernel.grpc_auth import TokenInterceptor
from kernel.grpc_call_policy import CallPolicyInterceptor, ErrorTable
from kernel.grpc_channel import MAX_MESSAGE_BYTES

DEFAULT_GRACE_S = 5.0


class ServiceSettings(Protocol):
    """What the scaffold reads from a service's settings."""

    @property
    def address(self) -> str: ...

    @property
    def token(self) -> str | None: ...


class Closeable(Protocol):
    """A composition object: ``close()`` releases its resources (sync or async)."""

    def close(self) -> Awaitable[None] | None: ...


Core = TypeVar("Core", bound=Closeable)


@dataclass
class RunningService(Generic[Core]):
    """A started service: its server, the port it bound, its health servicer and its composition object."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    core: Core
    _stopped: bool = field(default=False, init=False, repr=False)

    async def stop(self, grace: float | None = DEFAULT_GRACE_S) -> None:
        """Report NOT_SERVING, drain in-flight calls for ``grace`` seconds, then close ``core``. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        await _close(self.core)


async def _close(core: Closeable) -> None:
    result = core.close()
    if inspect.isawaitable(result):
        await result


async def start_service(
    settings: ServiceSettings,
    core: Core,
    *,
    register: Callable[[grpc.aio.Server], None],
    service_names: Sequence[str],
    errors: ErrorTable,
    what: str,
) -> RunningService[Core]:
    """Serve ``core`` at ``settings.address``; ``core`` is closed if the server cannot start."""
    try:
        host, _ = split_host_port(settings.address, "address")
        require_token_for(host, settings.token, what)
        interceptors: list[grpc.aio.ServerInterceptor] = [TokenInterceptor(settings.token)] if settings.token else []
        interceptors.append(CallPolicyInterceptor(errors))
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
        reflection.enable_server_reflection((*service_names, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
        port = server.add_insecure_port(settings.address)
        if port == 0:
            raise OSError(f"could not bind {what} to {settings.address}: is the port already in use?")
        await server.start()
    except BaseException:
        await _close(core)
        raise
    for name in (*service_names, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningService(server, port, health_servicer, core)


async def serve_until_signal(running: RunningService[Core], *, grace: float = DEFAULT_GRACE_S) -> None:
    """Run until SIGTERM/SIGINT (or the server terminates), then ``running.stop(grace)``."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    waiter = asyncio.ensure_future(running.server.wait_for_termination())
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        await running.stop(grace)
    finally:
        stopper.cancel()
        waiter.cancel()
