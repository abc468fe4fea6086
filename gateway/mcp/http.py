"""The mnemex tools over streamable HTTP, mounted on the gateway at ``/mcp``.

    mount(app, operations)      # called by gateway.app.create_app

- Same tools, same ``Operations`` as stdio (``build_server``).
- Stateless JSON mode: every POST is self-contained, so any gateway replica
  behind a load balancer can answer any call (no sticky sessions).
- The MCP session manager runs inside the app's lifespan; a fresh one is
  made for every lifespan (the SDK's can run only once), so an app can be
  started, stopped and started again (tests do).
- Project scope: the ``cwd`` tool argument, else the ``X-Mnemex-Cwd`` request
  header, else the ``default`` project (an HTTP server has no meaningful cwd).
- The gateway's own middleware applies: bearer token when MNEMEX_TOKEN is set,
  body-size limits. On a loopback bind the SDK's DNS-rebinding protection is on
  (Host must be 127.0.0.1/localhost).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route

from gateway.mcp.server import OperationsSource, build_server
from kernel.config import is_loopback, split_host_port

MCP_PATH = "/mcp"
ASGIApp = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]


class _LateBoundEndpoint:
    """ASGI endpoint that forwards to the MCP app of the current lifespan."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if self.app is None:
            body = b'{"error": "the MCP endpoint is not running (gateway starting or stopping)"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def _transport_security(gateway_addr: str | None) -> TransportSecuritySettings:
    host = split_host_port(gateway_addr, "MNEMEX_GATEWAY_ADDR")[0] if gateway_addr else "127.0.0.1"
    if not is_loopback(host):
        # Reached through a real host name; the bearer token (required off loopback) protects it.
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def mount(app: FastAPI, operations: OperationsSource, path: str = MCP_PATH) -> None:
    server = build_server(operations)
    settings = getattr(operations, "settings", None)
    security = _transport_security(getattr(settings, "gateway_addr", None))
    endpoint = _LateBoundEndpoint()
    app.router.routes.append(Route(path, endpoint=endpoint))
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(instance: Any) -> AsyncIterator[Any]:
        endpoint.app = server.streamable_http_app(
            streamable_http_path=path,
            stateless_http=True,
            json_response=True,
            transport_security=security,
        )
        try:
            async with server.session_manager.run(), outer(instance) as state:
                yield state
        finally:
            endpoint.app = None

    app.router.lifespan_context = lifespan
