"""Loopback protection for the gateway's HTTP edge: who may send a request, from which page, in what shape.

A local service without a token is reachable by every web page the user
opens: the page cannot read the answers (there are no CORS headers), but a
"simple" request (a form post, or a ``fetch`` with a text/plain or
multipart body) is sent without a preflight, and a DNS-rebinding page
reaches the service under the attacker's own host name, where it can read
answers too. Like Redis's protected mode and Jupyter's host check, this
pure ASGI middleware refuses, before any routing or body parsing:

- **Host** (DNS rebinding), on every route: the ``Host`` header must name
  the gateway: ``localhost``, a loopback address, the address it is bound to,
  or a name in ``MNEMEX_ALLOWED_HOSTS``; on a wildcard bind (``0.0.0.0``,
  ``::``) any IP address is accepted too (rebinding needs a host name the
  attacker controls; an IP address cannot be rebound). Any port: the name is
  what rebinding forges. A request without ``Host`` is no browser's.
- **Origin** (cross-site requests), on every route: a request that carries
  ``Origin`` must come from the gateway's own origin (the viewer's pages
  are served from it), or from a configured name. Hooks, plugins, the CLI
  and curl send no ``Origin`` and are unaffected.
- **Body type** (cross-site writes), on ``/api`` and ``/mcp``: a body must
  be JSON (``application/json``, ``*+json``) or JSON lines
  (``application/x-ndjson``, ``application/jsonl``), types a browser can send
  to another site only after a preflight the gateway never grants. A
  multipart upload (``/api/ingest``) must also carry ``X-Mnemex-Client``
  (any value): no page on another site can add that header. The viewer
  (``/ui``) checks its own CSRF token on every change (``ui.security``).

Refusals are 403 (host, origin, missing header) or 415 (body type), with
``{"error": ...}`` saying what to change.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.middleware import send_json
from kernel.config import is_loopback

GUARDED_PREFIXES = ("/api", "/mcp")
UPLOAD_PATHS = frozenset({"/api/ingest"})
CLIENT_HEADER = b"x-mnemex-client"
JSON_TYPES = frozenset({"application/json", "application/x-ndjson", "application/jsonl"})
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})


def host_name(authority: str) -> str:
    """``authority`` (a Host header or an origin's netloc) without port or brackets, lower-cased."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority
    name = authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority
    return name.rstrip(".")


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


class HostRule:
    """Which host names this gateway answers to (see the module doc)."""

    def __init__(self, bind_host: str, allowed: Sequence[str] = ()) -> None:
        bind = bind_host.strip("[]").lower()
        self.any_ip = bind in WILDCARD_BINDS
        self.configured = frozenset(name.lower() for name in allowed)
        self.names = self.configured | ({bind} if not self.any_ip else set()) | {"localhost"}

    def allows(self, name: str) -> bool:
        if not name:
            return False
        if name in self.names or is_loopback(name):
            return True
        return self.any_ip and _ip(name) is not None


def _media_type(headers: dict[bytes, bytes]) -> str:
    return headers.get(b"content-type", b"").split(b";")[0].strip().lower().decode("latin-1")


def _has_body(headers: dict[bytes, bytes]) -> bool:
    length = headers.get(b"content-length")
    if length is not None:
        return length.strip() not in (b"", b"0")
    return b"transfer-encoding" in headers


def _guarded(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in GUARDED_PREFIXES)


class WebGuard:
    """Pure ASGI middleware: the Host, Origin and body-type checks of the module doc."""

    def __init__(self, app: ASGIApp, rule: HostRule) -> None:
        self.app = app
        self.rule = rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        await send_json(send, status, {"error": message})

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, message) when the request must be refused, else None."""
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if host and not self.rule.allows(host_name(host)):
            return 403, (
                f"Host {host[:100]!r} is not an address of this gateway (DNS-rebinding protection): "
                "use 127.0.0.1 or localhost, or add the name to MNEMEX_ALLOWED_HOSTS"
            )
        origin = headers.get(b"origin")
        if origin is not None and not self.own_origin(origin.decode("latin-1"), host):
            return 403, (
                f"cross-site request refused: Origin {origin.decode('latin-1')[:100]!r} is not this gateway's own "
                "(clients that are not browsers send no Origin header)"
            )
        path = scope.get("path", "")
        if not _guarded(path) or not _has_body(headers):
            return None
        media = _media_type(headers)
        if media in JSON_TYPES or (media.startswith("application/") and media.endswith("+json")):
            return None
        if media == "multipart/form-data" and path in UPLOAD_PATHS:
            if headers.get(CLIENT_HEADER):
                return None
            return 403, (
                "a multipart upload needs the header 'X-Mnemex-Client: <any value>' "
                "(a page on another site cannot send it); or send application/json"
            )
        return 415, (
            f"Content-Type {media or '(none)'!r} is not accepted here: send 'Content-Type: application/json' "
            "(application/x-ndjson for /api/import)"
        )

    def own_origin(self, origin: str, host: str) -> bool:
        try:
            parts = urlsplit(origin.strip())
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        if host and parts.netloc.lower() == host.strip().lower():
            return True
        return host_name(parts.netloc) in self.rule.configured
