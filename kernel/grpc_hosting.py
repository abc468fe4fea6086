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
a token (a service started by its entrypoint always does: ``MNEMEX_TOKEN`` or
the home's internal credential, ``kernel/internal_token.py``; only health is
open without it), and the per-call policy (deadlines, error table), binds
``settings.address`` (``127.0.0.1:0`` in tests picks a free port) and marks
every service SERVING. ``RunningService.stop(grace)`` drains the server and
then closes the composition object; ``serve_until_signal`` calls it on
SIGTERM/SIGINT.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from kernel.config import is_loopback, require_token_for, split_host_port
from kernel.grpc_auth import TokenInterceptor
from kernel.grpc_call_policy import CallPolicyInterceptor, ErrorTable
from kernel.grpc_channel import MAX_MESSAGE_BYTES
from kernel.store_health import HEALTH_PROBLEM_KEY

DEFAULT_GRACE_S = 5.0
log = logging.getLogger("mnemex.service")
HEALTH_CHECK_CACHE_S = 2.0
StoreCheck = Callable[[], "str | None"]
# The context a servicer method receives; gRPC types its two parameters (request, reply) loosely.
RpcContext = grpc.aio.ServicerContext[object, object]


def _metadata_safe(text: str, limit: int = 600) -> str:
    """One printable ASCII line (gRPC metadata values allow nothing else)."""
    line = " ".join(text.split())
    line = line.encode("ascii", "backslashreplace").decode("ascii")
    return line if len(line) <= limit else line[: limit - 3] + "..."


class StoreHealthServicer(health.aio.HealthServicer):  # type: ignore[misc]  # grpc_health ships no types
    """The standard health service, whose Check also does a real read of the service's stores.

    ``check`` reads each store the cheap way (a count, one row) and returns None
    or what is wrong ("chroma store unreadable: <reason> (<path>)"). A failing
    check answers NOT_SERVING with the reason in the ``mnemex-health-problem``
    trailing metadata, so ``mnemex status`` can name the broken store. Results
    are reused for ``HEALTH_CHECK_CACHE_S`` so a burst of probes reads once.
    Health needs no token, so off loopback (``reveal=False``) the reason, which
    names paths, goes to the service's log only (once per change).
    """

    def __init__(self, check: StoreCheck | None = None, *, reveal: bool = True) -> None:
        super().__init__()
        self._check = check
        self._reveal = reveal
        self._lock = asyncio.Lock()
        self._checked_at = -1e9
        self._problem: str | None = None

    async def current_problem(self) -> str | None:
        if self._check is None:
            return None
        async with self._lock:
            loop = asyncio.get_running_loop()
            if loop.time() - self._checked_at >= HEALTH_CHECK_CACHE_S:
                before = self._problem
                try:
                    self._problem = await asyncio.to_thread(self._check)
                except Exception as exc:  # a check that itself breaks is a broken store too
                    self._problem = f"health check failed: {type(exc).__name__}: {exc}"
                self._checked_at = loop.time()
                if self._problem != before:
                    log.warning("store health: %s", self._problem or "every store reads again")
            return self._problem

    async def Check(
        self, request: health_pb2.HealthCheckRequest, context: RpcContext
    ) -> health_pb2.HealthCheckResponse:
        reply = await super().Check(request, context)
        if reply is None or reply.status != health_pb2.HealthCheckResponse.SERVING:
            return reply
        problem = await self.current_problem()
        if problem is None:
            return reply
        if self._reveal:
            context.set_trailing_metadata(((HEALTH_PROBLEM_KEY, _metadata_safe(problem)),))
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.NOT_SERVING)


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
    health_check: StoreCheck | None = None,
) -> RunningService[Core]:
    """Serve ``core`` at ``settings.address``; ``core`` is closed if the server cannot start.

    ``health_check`` (no arguments; None or what is wrong) makes every health
    Check do a real read of the service's stores (``StoreHealthServicer``).
    """
    try:
        host, _ = split_host_port(settings.address, "address")
        require_token_for(host, settings.token, what)
        interceptors: list[grpc.aio.ServerInterceptor] = [TokenInterceptor(settings.token)] if settings.token else []
        interceptors.append(CallPolicyInterceptor(errors, storage_home=getattr(settings, "home", None)))
        server = grpc.aio.server(
            interceptors=interceptors,
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                ("grpc.so_reuseport", 0),
            ],
        )
        register(server)
        health_servicer = StoreHealthServicer(health_check, reveal=is_loopback(host))
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
