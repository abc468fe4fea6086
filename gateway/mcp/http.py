"""The mnemex tools over streamable HTTP, mounted on the gateway at ``/mcp``.

    mount(app, gateway)         # called by gateway.app.create_app

- Same tools, same services as stdio (``build_server``).
- Stateless JSON mode: every POST is self-contained, so any gateway replica
  behind a load balancer can answer any call (no sticky sessions). With no
  session there is nothing to stream: GET (the optional event stream) and
  DELETE are answered 405 before the SDK sees them, so no client can hold a
  connection open on server pings (issue 36).
- Loaded on first use: the MCP SDK (about 28 MB resident, one to two seconds to
  import) is imported, the server built and its session manager started by the
  first request to ``/mcp``, not at start-up; a gateway that only serves hooks
  and the viewer never loads it (issue 19, ``tests/unit/mcp/test_lazy_sdk.py``).
  The session manager then runs until the app's lifespan ends; a fresh one is
  made for every lifespan (the SDK's can run only once), so an app can be
  started, stopped and started again (tests do).
- Project scope: the ``cwd`` tool argument, else the ``X-Mnemex-Cwd`` request
  header, else the ``default`` project (an HTTP server has no meaningful cwd).
- The gateway's own middleware applies: bearer token when MNEMEX_TOKEN is set,
  body-size limits. On a loopback bind the SDK's DNS-rebinding protection is on
  (Host must be 127.0.0.1/localhost).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, cast

from fastapi import FastAPI
from starlette.routing import Route
from starlette.types import ASGIApp, Lifespan, Receive, Scope, Send

from gateway.middleware import send_json
from kernel.config import is_loopback, split_host_port

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

    from gateway.gateway_composition import Gateway

MCP_PATH = "/mcp"
NOT_RUNNING = {"error": "the MCP endpoint is not running (gateway starting or stopping)"}
NO_STREAM = {
    "error": "this MCP endpoint is stateless: it answers each POST with JSON and offers no event stream (GET) "
    "and no session to end (DELETE)"
}


class _LazyEndpoint:
    """ASGI endpoint that builds the MCP app on its first request and forwards to it.

    ``open()``/``close()`` bracket the app's lifespan: outside it the endpoint
    answers 503; ``close()`` stops the session manager the first request started.
    """

    def __init__(self, start: Callable[[asyncio.Event], Awaitable[ASGIApp]]) -> None:
        self._start = start
        self._open = False
        self._app: ASGIApp | None = None
        self._lock: asyncio.Lock | None = None
        self._stop: asyncio.Event | None = None

    def open(self) -> None:
        self._open, self._app, self._lock, self._stop = True, None, asyncio.Lock(), asyncio.Event()

    async def close(self) -> None:
        self._open, self._app = False, None
        if self._stop is not None:
            self._stop.set()

    async def _running_app(self) -> ASGIApp | None:
        if self._app is None and self._open and self._lock is not None and self._stop is not None:
            async with self._lock:
                if self._app is None and self._open:
                    self._app = await self._start(self._stop)
        return self._app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            # The transport allows a server without a GET stream to say 405; a held stream would only
            # carry pings here (no server-initiated messages in stateless mode) and hold a connection.
            await send_json(send, 405, NO_STREAM, [(b"allow", b"POST")])
            return
        app = await self._running_app()
        if app is None:
            await send_json(send, 503, NOT_RUNNING)
            return
        await app(scope, receive, send)


def _transport_security(gateway_addr: str | None, names: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """The SDK's own Host/Origin check, kept as a second line behind ``gateway.web_guard`` (which checks every
    route); ``names``: MNEMEX_ALLOWED_HOSTS, so a configured name is answered here too."""
    from mcp.server.transport_security import TransportSecuritySettings

    host = split_host_port(gateway_addr, "MNEMEX_GATEWAY_ADDR")[0] if gateway_addr else "127.0.0.1"
    if not is_loopback(host):
        # Reached through a real host name; the bearer token (required off loopback) protects it.
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"]
        + [form for name in names for form in (name, f"{name}:*")],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
        + [f"{scheme}://{name}{port}" for name in names for scheme in ("http", "https") for port in ("", ":*")],
    )


def mount(app: FastAPI, gateway: Gateway, path: str = MCP_PATH) -> None:
    settings = gateway.settings
    gateway_addr = settings.gateway_addr
    runners: set[asyncio.Task[None]] = set()

    async def start(stop: asyncio.Event) -> ASGIApp:
        """Import the SDK, build the server and run its session manager until ``stop`` (in a task of its own)."""
        from gateway.mcp.mcp_server import build_server

        server = build_server(gateway)
        mcp_app = server.streamable_http_app(
            streamable_http_path=path,
            stateless_http=True,
            json_response=True,
            transport_security=_transport_security(gateway_addr, settings.allowed_hosts),
        )
        started = asyncio.Event()

        async def hold() -> None:
            async with server.session_manager.run():
                started.set()
                await stop.wait()

        runner = asyncio.create_task(hold(), name="mnemex-mcp-session-manager")
        runners.add(runner)
        runner.add_done_callback(runners.discard)
        ready = asyncio.create_task(started.wait())
        await asyncio.wait({runner, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not started.is_set():  # the session manager failed to start: say why
            ready.cancel()
            runner.result()
        return mcp_app

    endpoint = _LazyEndpoint(start)
    app.router.routes.append(Route(path, endpoint=endpoint))
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(instance: object) -> AsyncIterator[Mapping[str, object] | None]:
        endpoint.open()
        try:
            async with outer(instance) as state:
                yield state
        finally:
            await endpoint.close()
            if runners:
                await asyncio.gather(*runners, return_exceptions=True)

    # It yields what the app's own lifespan yields: stateless (None) or a state, as that one is.
    app.router.lifespan_context = cast("Lifespan[object]", lifespan)
