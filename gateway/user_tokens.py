"""Per-user tokens: each one maps, on the server side, to exactly one user id.

With ``MNEMEX_USER_TOKENS`` pointing at a tokens file, a request whose bearer
token is listed there acts as that file's user: every scope it reaches is
``(that user, project)``, whatever the request says, so one user's token can
neither read nor score another user's memories. The shared ``MNEMEX_TOKEN``
stays the operator's (and the services' own) credential and acts as
``MNEMEX_USER``.

The file holds SHA-256 digests, never the tokens: one ``USER DIGEST`` pair per
line, ``#`` starts a comment. ``mnemex tokens add USER`` appends a line and
prints the new token once. The file is re-read when it changes, so a token can
be added or revoked without a restart.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import time
from contextvars import ContextVar
from pathlib import Path

from gateway.errors import InvalidInput

USER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
DIGEST_PATTERN = re.compile(r"^[0-9a-f]{64}$")
RECHECK_S = 2.0  # how stale the gateway's view of the file may be

# The user a request authenticated as with a per-user token; None: the shared token, or no auth.
authenticated_user: ContextVar[str | None] = ContextVar("mnemex_authenticated_user", default=None)


class TokensFileError(ValueError):
    """The tokens file cannot be read or has a malformed line; the message names the line."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def parse(text: str, source: str) -> dict[str, str]:
    """digest -> user, from the file's text."""
    found: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not USER_PATTERN.match(parts[0]) or not DIGEST_PATTERN.match(parts[1]):
            raise TokensFileError(
                f"{source}, line {number}: expected 'USER SHA256-HEX-DIGEST' (add tokens with 'mnemex tokens add USER')"
            )
        found[parts[1]] = parts[0]
    return found


class UserTokens:
    """The tokens file, re-read when its modification time changes (checked every ``RECHECK_S``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._by_digest: dict[str, str] = {}
        self._stamp: tuple[int, int] | None = None
        self._checked = 0.0
        self._reload()

    def _reload(self) -> None:
        try:
            stat = self.path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
            if stamp != self._stamp:
                self._by_digest = parse(self.path.read_text(encoding="utf-8"), str(self.path))
                self._stamp = stamp
        except OSError as exc:
            raise TokensFileError(f"cannot read the tokens file {self.path}: {exc.strerror or exc}") from None
        self._checked = time.monotonic()

    def user_of(self, token: str) -> str | None:
        """The user whose token this is, or None."""
        if time.monotonic() - self._checked > RECHECK_S:
            with contextlib.suppress(TokensFileError):  # keep serving the last good file; the error is logged at start
                self._reload()
        return self._by_digest.get(digest(token))  # keyed by a SHA-256 digest: timing reveals nothing of the token


def add_token(path: Path, user: str) -> str:
    """Append a new token for ``user`` to the file (created 0600) and return the token, shown only now."""
    if not USER_PATTERN.match(user):
        raise InvalidInput(f"user {user!r}: use letters, digits, '_', '.' and '-' (at most 128, starting alphanumeric)")
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(f"{user} {digest(token)}\n")
    return token
