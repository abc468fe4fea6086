"""Who is looking: the viewer's sign-in, with the same tokens as the API.

A token is the shared ``MNEMEX_TOKEN`` (acts as ``MNEMEX_USER``) or a per-user
token from ``MNEMEX_USER_TOKENS`` (acts as its user, ``gateway/user_tokens.py``).
Scripts may send it as ``Authorization: Bearer``; a browser types it once at
``/ui/login`` and gets a session cookie: a random id (never the token, nor
derived from it), HttpOnly, SameSite=Strict, Path=/ui, and Secure when the
viewer is served over https (``security.cookie_header``). The gateway keeps the
token of each session in memory and checks it again on every request, so a
revoked user token ends its sessions at once; a gateway restart ends them all.
Without any token configured the viewer is open, like the API.

Sessions are capped per user (``MAX_SESSIONS_PER_USER``; the shared token
counts as one user): a new sign-in past the cap ends that user's own oldest
session, never anybody else's, so no number of sign-ins by one user can sign
another out. Sign-in attempts are rate-limited per client (``LoginThrottle``).
"""

from __future__ import annotations

import hmac
import math
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from fastapi import Request

from gateway.user_tokens import UserTokens

SESSION_COOKIE = "mnemex_ui"
SESSION_MAX_AGE = 7 * 24 * 3600
MAX_SESSIONS_PER_USER = 20  # browsers and devices of one user; the 21st sign-in ends that user's oldest
MAX_TOKEN_CHARS = 1000
LOGIN_BURST = 10  # sign-in attempts a client may make at once...
LOGIN_REFILL_S = 6.0  # ...then one more every this many seconds (10 a minute)
MAX_THROTTLED_CLIENTS = 10_000


@dataclass(frozen=True)
class Viewer:
    """A signed-in viewer: ``user`` is the per-user token's user, or None for the shared token (or no auth)."""

    user: str | None = None


class Sessions:
    """Session id -> (token, expiry, owner); at most ``MAX_SESSIONS_PER_USER`` per owner. One per app.

    ``owner`` is the user the token signs in ('' for the shared token). The cap evicts only
    the owner's own oldest session, and expired sessions of that owner first.
    """

    def __init__(self) -> None:
        self._by_id: dict[str, tuple[str, float, str]] = {}
        self._by_owner: dict[str, OrderedDict[str, None]] = {}

    def open(self, token: str, owner: str = "") -> str:
        mine = self._by_owner.setdefault(owner, OrderedDict())
        now = time.monotonic()
        for expired in [s for s in mine if self._by_id[s][1] < now]:
            self.close(expired)
        mine = self._by_owner.setdefault(owner, OrderedDict())
        while len(mine) >= MAX_SESSIONS_PER_USER:
            self.close(next(iter(mine)))
        session = secrets.token_urlsafe(32)
        self._by_id[session] = (token, now + SESSION_MAX_AGE, owner)
        mine[session] = None
        return session

    def token_of(self, session: str) -> str | None:
        found = self._by_id.get(session)
        if found is None:
            return None
        if found[1] < time.monotonic():
            self.close(session)
            return None
        return found[0]

    def close(self, session: str) -> None:
        found = self._by_id.pop(session, None)
        if found is None:
            return
        mine = self._by_owner.get(found[2])
        if mine is not None:
            mine.pop(session, None)
            if not mine:
                del self._by_owner[found[2]]

    def count(self, owner: str | None = None) -> int:
        """Open sessions (of ``owner`` only, when given)."""
        if owner is None:
            return len(self._by_id)
        return len(self._by_owner.get(owner, ()))


class LoginThrottle:
    """A token bucket per client address: ``LOGIN_BURST`` attempts, then one per ``LOGIN_REFILL_S``.

    Every attempt counts, right or wrong: wrong ones are guesses, right ones open sessions.
    The table is bounded: past ``MAX_THROTTLED_CLIENTS`` the fullest buckets (clients that
    did the least) are forgotten first.
    """

    def __init__(self, burst: int = LOGIN_BURST, refill_s: float = LOGIN_REFILL_S) -> None:
        self.burst = burst
        self.refill_s = refill_s
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, when counted)

    def attempt(self, client: str) -> float:
        """0 when ``client`` may try now (the attempt is counted), else how many seconds to wait."""
        now = time.monotonic()
        tokens, since = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - since) / self.refill_s)
        if tokens < 1.0:
            self._buckets[client] = (tokens, now)
            return max(1.0, math.ceil((1.0 - tokens) * self.refill_s))
        self._buckets[client] = (tokens - 1.0, now)
        if len(self._buckets) > MAX_THROTTLED_CLIENTS:
            self._forget_the_idle(now)
        return 0.0

    def _forget_the_idle(self, now: float) -> None:
        full = [c for c, (t, since) in self._buckets.items() if t + (now - since) / self.refill_s >= self.burst]
        for client in full or sorted(self._buckets, key=lambda c: self._buckets[c][1])[: len(self._buckets) // 2]:
            del self._buckets[client]


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
