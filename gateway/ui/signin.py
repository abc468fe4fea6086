"""Who is looking: the viewer's sign-in, with the same tokens as the API.

A token is the shared ``MNEMEX_TOKEN`` (acts as ``MNEMEX_USER``) or a per-user
token from ``MNEMEX_USER_TOKENS`` (acts as its user, ``gateway/user_tokens.py``).
Scripts may send it as ``Authorization: Bearer``; a browser types it once at
``/ui/login`` and gets a session cookie: a random id (never the token, nor
derived from it), HttpOnly, SameSite=Strict, Path=/ui. The gateway keeps the
token of each session in memory and checks it again on every request, so a
revoked user token ends its sessions at once; a gateway restart ends them all.
Without any token configured the viewer is open, like the API.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from fastapi import Request

from gateway.user_tokens import UserTokens

SESSION_COOKIE = "mnemex_ui"
SESSION_MAX_AGE = 7 * 24 * 3600
MAX_SESSIONS = 1000
MAX_TOKEN_CHARS = 1000


@dataclass(frozen=True)
class Viewer:
    """A signed-in viewer: ``user`` is the per-user token's user, or None for the shared token (or no auth)."""

    user: str | None = None


class Sessions:
    """Session id -> (token, expiry), oldest evicted past ``MAX_SESSIONS``. One per app."""

    def __init__(self) -> None:
        self._by_id: OrderedDict[str, tuple[str, float]] = OrderedDict()

    def open(self, token: str) -> str:
        session = secrets.token_urlsafe(32)
        self._by_id[session] = (token, time.monotonic() + SESSION_MAX_AGE)
        while len(self._by_id) > MAX_SESSIONS:
            self._by_id.popitem(last=False)
        return session

    def token_of(self, session: str) -> str | None:
        found = self._by_id.get(session)
        if found is None:
            return None
        if found[1] < time.monotonic():
            del self._by_id[session]
            return None
        return found[0]

    def close(self, session: str) -> None:
        self._by_id.pop(session, None)


def auth_required(shared: str | None, users: UserTokens | None) -> bool:
    return bool(shared) or users is not None


def viewer_of_token(token: str, shared: str | None, users: UserTokens | None) -> Viewer | None:
    """The viewer a token signs in, or None when it is no token of this gateway."""
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    if shared and hmac.compare_digest(token.encode(), shared.encode()):
        return Viewer()
    user = users.user_of(token) if users is not None else None
    return Viewer(user) if user is not None else None


def identify(request: Request, sessions: Sessions, shared: str | None, users: UserTokens | None) -> Viewer | None:
    """The request's viewer: from its bearer header or its session cookie; None when not signed in."""
    if not auth_required(shared, users):
        return Viewer()
    header = request.headers.get("authorization", "")
    if header.startswith("Bearer "):
        return viewer_of_token(header.removeprefix("Bearer "), shared, users)
    token = sessions.token_of(request.cookies.get(SESSION_COOKIE, ""))
    return viewer_of_token(token, shared, users) if token is not None else None
