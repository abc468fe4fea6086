"""The viewer's guards: token login in a cookie, CSRF on every mutation, strict response headers.

- **Token.** When a token is configured every /ui page and action needs it
  (``ui.signin``: a bearer header, or the session cookie ``/ui/login`` sets).
- **CSRF.** Double submit: a random token in an HttpOnly SameSite=Strict
  cookie, repeated by each page in a meta tag; every POST must send it back
  in ``X-CSRF-Token`` (htmx and the page scripts do) or the ``csrf`` form
  field (the login form), and a POST whose Origin is another site is refused.
- **Headers.** A Content-Security-Policy that allows scripts and styles only
  from the gateway itself (no inline script, no eval), no framing, no
  referrer to other sites, no MIME sniffing. There are no CORS headers.
- **Secure cookies.** Both cookies get ``Secure`` when the request's scheme is
  https: the gateway serves TLS itself, or a proxy it trusts says so with
  ``X-Forwarded-Proto: https``. Trust is uvicorn's proxy-headers rule: only a
  peer listed in ``FORWARDED_ALLOW_IPS`` (default: loopback, i.e. a reverse
  proxy on the same machine) may set the scheme; from any other peer the
  header is ignored. (A local process that sends it only makes its own cookie
  https-only.)
"""

from __future__ import annotations

import hmac
import secrets
import time
from urllib.parse import urlsplit

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.gateway_errors import GatewayError

CSRF_COOKIE = "mnemex_csrf"
CSRF_HEADER = "x-csrf-token"
COOKIE_PATH = "/ui"

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # "no-referrer" makes Chromium send Origin: null on form posts
]
# Pages hold memory text: never stored. The vendored scripts are revalidated (ETag) instead of fetched again.
NO_STORE = (b"cache-control", b"no-store")
REVALIDATE = (b"cache-control", b"no-cache")


class NotSignedIn(GatewayError):
    http_status = 401


class CsrfRejected(GatewayError):
    http_status = 403


def csrf_token(request: Request) -> str:
    """The request's CSRF token: the cookie's, or a new one (``UiHeaders`` sets the cookie)."""
    existing = request.cookies.get(CSRF_COOKIE, "")
    if len(existing) == 43 and existing.replace("-", "").replace("_", "").isalnum():
        return existing
    fresh: str = getattr(request.state, "csrf_new", "") or secrets.token_urlsafe(32)
    request.state.csrf_new = fresh
    return fresh


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == request.headers.get("host", "")


def check_csrf(request: Request, submitted: str | None = None) -> None:
    """Refuse a mutation whose CSRF token does not match its cookie, or that comes from another origin."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    given = submitted if submitted is not None else request.headers.get(CSRF_HEADER, "")
    if not cookie or not given or not hmac.compare_digest(cookie.encode(), given.encode()):
        raise CsrfRejected("CSRF check failed: reload the page (it carries a fresh token) and try again")
    if not _same_origin(request):
        raise CsrfRejected("request from another origin refused")


def served_over_https(scope: Scope) -> bool:
    """TLS here, or a trusted proxy's ``X-Forwarded-Proto: https`` (uvicorn sets the scheme; module doc)."""
    return scope.get("scheme") in ("https", "wss")


def cookie_header(name: str, value: str, *, max_age: int | None, http_only: bool = True, secure: bool = False) -> bytes:
    parts = [f"{name}={value}", f"Path={COOKIE_PATH}", "SameSite=Strict"]
    if http_only:
        parts.append("HttpOnly")
    if secure:
        parts.append("Secure")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return "; ".join(parts).encode()


class UiHeaders:
    """Pure ASGI middleware: the security headers on every /ui answer, the CSRF cookie when new, and
    ``Server-Timing: app;dur=<ms>`` (the time until the answer started: what bench/bench_ui.py reads)."""

    def __init__(self, app: ASGIApp, prefix: str = COOKIE_PATH) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == self.prefix or path.startswith(self.prefix + "/")):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                cache = REVALIDATE if path.startswith(self.prefix + "/static/") else NO_STORE
                ours = {name for name, _ in (*HEADERS, cache)}
                headers = [h for h in message.get("headers", []) if h[0].lower() not in ours]
                headers += [*HEADERS, cache]
                headers.append((b"server-timing", f"app;dur={(time.perf_counter() - started) * 1000:.2f}".encode()))
                fresh = (scope.get("state") or {}).get("csrf_new")
                if fresh:
                    cookie = cookie_header(CSRF_COOKIE, fresh, max_age=None, secure=served_over_https(scope))
                    headers.append((b"set-cookie", cookie))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
