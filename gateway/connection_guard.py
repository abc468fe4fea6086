"""Who gets a connection and a request slot: slow, idle and greedy clients against the hooks' own room.

uvicorn gives a new connection unlimited time to send its request head and its
body, and counts every connection against one global ``limit_concurrency``:
300 unfinished heads, 256 held ``GET /mcp`` streams, or a few hundred bodies
trickled a byte at a time each turned every other request, get-context
included, into a 503. ``GuardedHttpProtocol`` (uvicorn's httptools protocol,
the C parser uvicorn picks by default) replaces that count with these rules:

- **Heads.** A connection that has not sent a complete request head within
  ``HEAD_TIMEOUT_S`` of opening (or of starting its next request on a kept-alive
  connection) is closed; trickling bytes does not move the deadline.
- **Bodies.** A request body must be in within ``BODY_TIMEOUT_S`` of its head
  (plus a second per ``BODY_BYTES_PER_S`` it declared), or within
  ``HOOK_BODY_TIMEOUT_S`` on the hook path, whose clients give up after 1.8 s
  anyway. Past it the gateway answers 408 and closes.
- **Two classes of request, each with its own slots.** The hook path
  (``/api/hooks/...``: get-context, stop and the other hook events) may have
  ``HOOK_REQUESTS`` requests in progress; everything else (MCP, the REST API, the
  viewer) ``OTHER_REQUESTS``. No amount of MCP or viewer traffic takes a hook's
  slot. When a class is full, its request that has been receiving a body the
  longest (more than ``SLOW_BODY_GRACE_S``: a real client sends its body at once)
  is answered 408 and closed to make room; with none, the newcomer gets a 503.
- **Connections.** Past ``MAX_CONNECTIONS`` open, the connection that has waited
  longest without a request in progress (an idle keep-alive, or a head still not
  sent ``FRESH_GRACE_S`` after connecting) is closed, else the slowest body; one
  remote address (not loopback, which every local client shares) may hold
  ``PER_CLIENT_CONNECTIONS``.
"""

from __future__ import annotations

import asyncio
import json
import time

import httptools
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kernel.config import is_loopback

HEAD_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 10.0
BODY_BYTES_PER_S = 256 * 1024  # time allowed for a large declared body (books, backfill batches) on top
HOOK_BODY_TIMEOUT_S = 2.0
FRESH_GRACE_S = 0.5
SLOW_BODY_GRACE_S = 0.1  # a real client sends its body in milliseconds; an attacker must outpace ten a second a slot
HOOK_PREFIX = b"/api/hooks/"
HOOK_REQUESTS = 128
OTHER_REQUESTS = 256  # waiting for a work slot (gateway.work_slots) costs nothing: room for many MCP clients
MAX_CONNECTIONS = 192
PER_CLIENT_CONNECTIONS = 64

_TIMED_OUT_BODY = json.dumps(
    {"error": "the request body did not arrive in time; send the whole body at once (the connection is closed)"}
).encode()
_CLASS_FULL = json.dumps(
    {"error": "the gateway is at its limit of requests in progress for this kind of request; retry in a second"}
).encode()
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    + f"content-length: {len(_TIMED_OUT_BODY)}\r\n\r\n".encode()
    + _TIMED_OUT_BODY
)


async def _class_full(scope: Scope, receive: Receive, send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(_CLASS_FULL)).encode()),
                (b"retry-after", b"1"),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": _CLASS_FULL})


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the deadlines, request classes and ceilings of the module doc."""

    head_timeout_s = HEAD_TIMEOUT_S
    body_timeout_s = BODY_TIMEOUT_S
    hook_body_timeout_s = HOOK_BODY_TIMEOUT_S
    hook_requests = HOOK_REQUESTS
    other_requests = OTHER_REQUESTS
    max_connections = MAX_CONNECTIONS
    per_client = PER_CLIENT_CONNECTIONS
    exempt_loopback = True  # every local client shares 127.0.0.1: a per-address ceiling would be a global one

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]  # uvicorn's own annotation is narrower
        self.idle_since = time.monotonic()
        self.answered = 0  # requests this connection has been answered
        self.receiving_since: float | None = None  # when an admitted request's body began to arrive
        self.hook = False
        self.head_timer: asyncio.TimerHandle | None = None
        self.body_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()
        self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.waiting_for_head():
            self._arm_head_timer()  # a kept-alive connection that starts its next request
        else:
            self._cancel_head_timer()

    def on_headers_complete(self) -> None:
        previous = self.cycle
        self.hook = httptools.parse_url(self.url).path.startswith(HOOK_PREFIX)
        admitted = self._admit()
        app = self.app
        if not admitted:
            self.app = _class_full  # uvicorn starts the request's task with self.app: this one gets the 503
        try:
            super().on_headers_complete()
        finally:
            self.app = app
        if self.cycle is previous:  # an upgrade request: uvicorn handled it without a cycle
            return
        if not admitted:
            self.cycle.keep_alive = False
            return
        self.receiving_since = time.monotonic()
        self._arm_body_timer()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.receiving_since = None
        self._cancel_body_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        self._cancel_body_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        self.idle_since = time.monotonic()
        self.answered += 1
        self.receiving_since = None
        self._cancel_body_timer()
        super().on_response_complete()

    def waiting_for_head(self) -> bool:
        """No request in progress: a head not (fully) sent yet, or an idle keep-alive."""
        return self.cycle is None or self.cycle.response_complete

    def receiving_for(self, now: float) -> float:
        """Seconds this connection's request has been receiving its body (0 when it is not)."""
        cycle = self.cycle
        if self.receiving_since is None or cycle is None or not cycle.more_body or cycle.response_started:
            return 0.0
        return now - self.receiving_since

    def drop_slow_body(self) -> None:
        """Answer 408 (when no reply has begun) and close: the request's body was too slow."""
        self.receiving_since = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_started:
            self.cycle.response_started = True  # the app's own reply, if it ever sends one, is not written
            self.transport.write(REQUEST_TIMEOUT)
        self.transport.close()

    def _peers(self) -> list[GuardedHttpProtocol]:
        return [c for c in self.connections if isinstance(c, GuardedHttpProtocol) and c is not self]

    def _admit(self) -> bool:
        limit = self.hook_requests if self.hook else self.other_requests
        busy = [c for c in self._peers() if c.hook == self.hook and not c.waiting_for_head()]
        if len(busy) < limit:
            return True
        return _drop_slowest_body(busy)

    def _arm_head_timer(self) -> None:
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.waiting_for_head() and not self.transport.is_closing():
            self.transport.close()

    def _arm_body_timer(self) -> None:
        self._cancel_body_timer()
        if self.hook:
            allowed = self.hook_body_timeout_s
        else:
            declared = self.cycle.scope.get("headers", [])
            length = next((v for k, v in declared if k == b"content-length"), b"0")
            size = int(length) if length.isdigit() else 0
            allowed = self.body_timeout_s + size / BODY_BYTES_PER_S
        self.body_timer = self.loop.call_later(allowed, self._body_timed_out)

    def _cancel_body_timer(self) -> None:
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None

    def _body_timed_out(self) -> None:
        self.body_timer = None
        if self.receiving_for(time.monotonic()) > 0:
            self.drop_slow_body()

    def _make_room(self) -> None:
        peers = self._peers()
        client = self.client[0] if self.client else ""
        if client and not (self.exempt_loopback and is_loopback(client)):
            own = [c for c in peers if c.client and c.client[0] == client]
            if len(own) >= self.per_client and not _close_longest_idle(own):
                self.transport.close()
                return
        if len(peers) >= self.max_connections and not _close_longest_idle(peers, FRESH_GRACE_S):
            _drop_slowest_body(peers)


def _close_longest_idle(connections: list[GuardedHttpProtocol], grace: float = 0.0) -> bool:
    """Close the connection idle the longest: a kept-alive one, or one that has not sent a head for ``grace``
    (for the global ceiling, ``FRESH_GRACE_S``: a connection just opened, the hook's own, is never the one)."""
    now = time.monotonic()
    idle = [
        c
        for c in connections
        if c.waiting_for_head() and not c.transport.is_closing() and (c.answered or now - c.idle_since > grace)
    ]
    if not idle:
        return False
    min(idle, key=lambda c: c.idle_since).transport.close()
    return True


def _drop_slowest_body(connections: list[GuardedHttpProtocol]) -> bool:
    """408 and close the connection receiving its body the longest, past the grace; False when none is."""
    now = time.monotonic()
    slow = [c for c in connections if c.receiving_for(now) > SLOW_BODY_GRACE_S and not c.transport.is_closing()]
    if not slow:
        return False
    max(slow, key=lambda c: c.receiving_for(now)).drop_slow_body()
    return True
