"""Pure ASGI middleware: bearer-token auth and request-body size limits.

Both run before routing and body parsing, so an unauthenticated or
oversized request costs no backend work. CORS is deliberately absent: the
clients (hooks, plugins, MCP) are not browsers, and without CORS headers a
browser tab cannot read responses from the local API.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping, Sequence

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.user_tokens import UserTokens, authenticated_user

OPEN_ROUTES = {("GET", "/api/health")}


async def send_json(
    send: Send, status: int, body: Mapping[str, object], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class BearerAuth:
    """Require ``Authorization: Bearer <token>`` on everything but GET /api/health.

    The shared token (``MNEMEX_TOKEN``) acts as the configured user; a per-user
    token (``users``, ``gateway/user_tokens.py``) acts as its own user, for the
    rest of the request (``user_tokens.authenticated_user``).

    Paths under a ``delegate`` prefix (the web viewer, ``/ui``) pass through: that
    app checks the token itself, from a cookie or this same header.
    """

    def __init__(
        self, app: ASGIApp, token: str | None, delegate: Sequence[str] = (), users: UserTokens | None = None
    ) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.delegate = tuple(delegate)
        self.users = users

    def delegated(self, path: str) -> bool:
        return any(path == prefix or path.startswith(prefix + "/") for prefix in self.delegate)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or (scope.get("method"), path) in OPEN_ROUTES or self.delegated(path):
            await self.app(scope, receive, send)
            return
        got = dict(scope.get("headers") or []).get(b"authorization", b"")
        if self.expected is not None and hmac.compare_digest(got, self.expected):
            await self.app(scope, receive, send)
            return
        user = self.user_of(got)
        if user is not None:
            reset = authenticated_user.set(user)
            try:
                await self.app(scope, receive, send)
            finally:
                authenticated_user.reset(reset)
            return
        await send_json(
            send,
            401,
            {
                "error": "missing or wrong token: send 'Authorization: Bearer <token>' "
                "(MNEMEX_TOKEN, or your own user token)"
            },
            [(b"www-authenticate", b"Bearer")],
        )

    def user_of(self, header: bytes) -> str | None:
        if self.users is None or not header.startswith(b"Bearer "):
            return None
        return self.users.user_of(header[len(b"Bearer ") :].decode("utf-8", "replace"))


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """413 when Content-Length, or the bytes actually streamed, pass the path's limit."""

    def __init__(self, app: ASGIApp, default: int, per_path: dict[str, int]) -> None:
        self.app = app
        self.default = default
        self.per_path = per_path

    def limit_for(self, scope: Scope) -> int:
        return self.per_path.get(scope.get("path", ""), self.default)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        message = {"error": f"request body is larger than {limit:,} bytes; send less (books: at most 10 MB per file)"}
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await send_json(send, 413, message)
            return
        seen = 0
        started = False
        refused = False

        async def counting_receive() -> Message:
            nonlocal seen, refused
            msg = await receive()
            if msg.get("type") == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    if not started and not refused:
                        # Answered here, before the app can turn the exception into a reply of its own
                        # (the MCP SDK answered a 500). The connection stays open while the client finishes
                        # sending (the server discards the rest), so the client reads the 413, not a reset.
                        refused = True
                        await send_json(send, 413, message)
                    raise BodyTooLarge()
            return msg

        async def tracking_send(msg: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the reply: whatever the app answers to the exception is dropped
            if msg.get("type") == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started and not refused:
                await send_json(send, 413, message)
        except ClientDisconnect:
            # The client went away (or the server dropped a body too slow to wait for) before its body was in:
            # there is no one to answer, and it is no error of the gateway's, so no traceback in the log.
            return


class HomeHeader:
    """Every reply says which home this gateway serves (``X-Mnemex-Home``: ``kernel.config.home_id``), so a CLI
    whose MNEMEX_HOME differs (a typo) is told another home's stack answered instead of reading its memories."""

    def __init__(self, app: ASGIApp, home_id: str) -> None:
        self.app = app
        self.header = (b"x-mnemex-home", home_id.encode("ascii"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message.get("type") == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), self.header]}
            await send(message)

        await self.app(scope, receive, send_with_header)
