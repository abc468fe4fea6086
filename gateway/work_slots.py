"""A few work slots for everything but the hooks, so a busy MCP client never slows a prompt.

The gateway and its backends share two or so CPU cores with the user's editor.
A hundred MCP clients searching at once each took their share of the gateway's
event loop and of the embedding and memory services, and get-context waited
behind them: p50 834 ms, max 3.0 s, past the hooks' 1.8 s give-up (issue 36).

``WorkSlots`` lets at most ``OTHER_WORK_SLOTS`` requests that are not hook
requests (MCP, the REST API, the viewer) work at once; the rest wait, which
costs nothing, for a slot. Hook requests (``/api/hooks/...``) and the health
check never wait. A request takes its slot once its body is in (a slow body
holds no slot: ``gateway.connection_guard`` times it out), or at once when it
has no body, and gives it back when its reply starts: the work of a JSON reply
is done by then, and a client that reads a large reply slowly holds no slot;
nor does a stream (the viewer's live feed): once its reply has started it
never takes a slot again, though it keeps reading for the client's disconnect.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

OTHER_WORK_SLOTS = 4
EXEMPT_PREFIXES = ("/api/hooks/",)
EXEMPT_PATHS = ("/api/health",)
BODILESS_METHODS = ("GET", "HEAD", "DELETE", "OPTIONS")


class WorkSlots:
    def __init__(self, app: ASGIApp, slots: int = OTHER_WORK_SLOTS) -> None:
        self.app = app
        self.slots = slots
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def semaphore(self) -> asyncio.Semaphore:
        """The slots of the running event loop (a test may serve one app from several loops in turn)."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.slots), loop
        return self._semaphore

    @staticmethod
    def exempt(scope: Scope) -> bool:
        path = scope.get("path", "")
        return scope["type"] != "http" or path in EXEMPT_PATHS or path.startswith(EXEMPT_PREFIXES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.exempt(scope):
            await self.app(scope, receive, send)
            return
        slots = self.semaphore()
        held = False
        replied = False

        async def take() -> None:
            nonlocal held
            if not held and not replied:
                await slots.acquire()
                held = True

        def give_back() -> None:
            nonlocal held
            if held:
                slots.release()
                held = False

        async def receive_then_take() -> Message:
            message = await receive()  # once the last of the body is in, the request works: it takes a slot
            if message.get("type") == "http.request" and not message.get("more_body", False):
                await take()
            return message

        async def send_and_give_back(message: Message) -> None:
            nonlocal replied
            if message.get("type") == "http.response.start":
                replied = True
                give_back()
            await send(message)

        if scope.get("method") in BODILESS_METHODS and not _declares_body(scope):
            await take()
        try:
            await self.app(scope, receive_then_take, send_and_give_back)
        finally:
            give_back()


def _declares_body(scope: Scope) -> bool:
    headers = dict(scope.get("headers") or [])
    length = headers.get(b"content-length", b"0")
    return b"transfer-encoding" in headers or (length.isdigit() and int(length) > 0)
