"""Per-user tokens: each one maps, on the server side, to exactly one user id.

With ``MNEMEX_USER_TOKENS`` pointing at a tokens file, a request whose bearer
token is listed there acts as that file's user: every scope it reaches is
``(that user, project)``, whatever the request says, so one user's token can
neither read nor score another user's memories. The shared ``MNEMEX_TOKEN``
stays the operator's (and the services' own) credential and acts as
``MNEMEX_USER``.

The file holds SHA-256 digests, never the tokens: one ``USER DIGEST [ADDED]``
line per token (``ADDED``: when it was made, UTC ISO-8601), ``#`` starts a
comment. ``mnemex tokens add USER`` appends a line and prints the new token
once; ``mnemex tokens list`` shows users and dates; ``mnemex tokens revoke
USER`` removes the user's lines (an atomic rewrite).

Changes take effect on the very next request: every lookup stats the file
(inode, size, modification and change times; about a microsecond) and re-reads
it when any of them moved, or while its last write is so recent that a second
write within the same clock tick could hide behind an unchanged stamp. The
lookup fails closed: once the gateway has started, a deleted, unreadable or
malformed file means no user token is accepted (the shared ``MNEMEX_TOKEN``
still is) until the file is fixed, and one log line names the file and the bad
line. At start a missing or malformed file stops the gateway with that message.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import re
import secrets
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gateway.gateway_errors import InvalidInput

USER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
DIGEST_PATTERN = re.compile(r"^[0-9a-f]{64}$")
ADDED_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
# A file written less than this long before it was read is re-read on every lookup: a second
# write in the same timestamp tick (coarse on some filesystems) could keep every stamp field equal.
RACY_WINDOW_NS = 2_000_000_000

log = logging.getLogger("mnemex.gateway.tokens")

# The user a request authenticated as with a per-user token; None: the shared token, or no auth.
authenticated_user: ContextVar[str | None] = ContextVar("mnemex_authenticated_user", default=None)


class TokensFileError(ValueError):
    """The tokens file cannot be read or has a malformed line; the message names the line."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenEntry:
    """One line of the tokens file: whose token, its digest, and when it was added ('' when not recorded)."""

    user: str
    digest: str
    added: str = ""


def parse_entries(text: str, source: str) -> list[TokenEntry]:
    """The file's token lines, in order; ``TokensFileError`` names the first malformed line."""
    found: list[TokenEntry] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if (
            len(parts) not in (2, 3)
            or not USER_PATTERN.match(parts[0])
            or not DIGEST_PATTERN.match(parts[1])
            or (len(parts) == 3 and not ADDED_PATTERN.match(parts[2]))
        ):
            raise TokensFileError(
                f"{source}, line {number}: expected 'USER SHA256-HEX-DIGEST [ADDED-UTC]' "
                "(add tokens with 'mnemex tokens add USER')"
            )
        found.append(TokenEntry(parts[0], parts[1], parts[2] if len(parts) == 3 else ""))
    return found


def parse(text: str, source: str) -> dict[str, str]:
    """digest -> user, from the file's text."""
    return {entry.digest: entry.user for entry in parse_entries(text, source)}


_MISSING = (-1, -1, -1, -1, -1)
Stamp = tuple[int, int, int, int, int]


class UserTokens:
    """The tokens file as the gateway sees it: checked on every lookup, re-read when it changed.

    The constructor raises ``TokensFileError`` when the file is missing or
    malformed (the gateway refuses to start); later failures fail closed.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._by_digest: dict[str, str] = {}
        self._stamp: Stamp | None = None
        self._racy = True
        self._text: str | None = None
        self.problem: str | None = None  # why no user token is accepted right now; None when the file is good
        try:
            stat = self.path.stat()
            text = self.path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TokensFileError(f"cannot read the tokens file {self.path}: {exc.strerror or exc}") from None
        self._by_digest = parse(text, str(self.path))
        self._remember(stat, text)

    def _remember(self, stat: os.stat_result, text: str | None) -> None:
        self._stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_dev)
        self._text = text
        self._racy = max(stat.st_mtime_ns, stat.st_ctime_ns) >= time.time_ns() - RACY_WINDOW_NS

    def _fail_closed(self, problem: str) -> None:
        self._by_digest = {}
        if problem != self.problem:  # one line per new problem, not one per request
            log.error("%s; no user token is accepted until it is fixed (the shared MNEMEX_TOKEN still is)", problem)
        self.problem = problem

    def refresh(self) -> None:
        """Pick up any change to the file now (``user_of`` does this on every call)."""
        try:
            stat = self.path.stat()
        except OSError as exc:
            if self._stamp != _MISSING:
                self._stamp, self._text = _MISSING, None
                self._fail_closed(f"the tokens file {self.path} cannot be read: {exc.strerror or exc}")
            return
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_dev)
        if stamp == self._stamp and not self._racy:
            return
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self._remember(stat, None)
            self._fail_closed(f"the tokens file {self.path} cannot be read: {getattr(exc, 'strerror', None) or exc}")
            return
        if text == self._text and self.problem is None:
            self._remember(stat, text)
            return
        try:
            by_digest = parse(text, str(self.path))
        except TokensFileError as exc:
            self._remember(stat, text)
            self._fail_closed(f"the tokens file is malformed: {exc}")
            return
        self._by_digest = by_digest
        self._remember(stat, text)
        if self.problem is not None:
            log.warning("the tokens file %s is readable again: %d user tokens accepted", self.path, len(by_digest))
        self.problem = None

    def user_of(self, token: str) -> str | None:
        """The user whose token this is, or None."""
        self.refresh()
        return self._by_digest.get(digest(token))  # keyed by a SHA-256 digest: timing reveals nothing of the token


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise ``add_token`` and ``revoke`` on one file (a sidecar lock, as the file itself is replaced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _now_utc() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def add_token(path: Path, user: str) -> str:
    """Append a new token for ``user`` to the file (created 0600) and return the token, shown only now."""
    if not USER_PATTERN.match(user):
        raise InvalidInput(f"user {user!r}: use letters, digits, '_', '.' and '-' (at most 128, starting alphanumeric)")
    token = secrets.token_urlsafe(32)
    with _locked(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(f"{user} {digest(token)} {_now_utc()}\n")
    return token


def list_tokens(path: Path) -> list[TokenEntry]:
    """The file's tokens (digests, never tokens); ``TokensFileError`` when it is missing or malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TokensFileError(f"cannot read the tokens file {path}: {exc.strerror or exc}") from None
    return parse_entries(text, str(path))


def revoke(path: Path, user: str) -> int:
    """Remove every token of ``user`` (an atomic rewrite, still 0600); how many were removed.

    Other lines, comments and malformed lines included, are kept as they are.
    """
    with _locked(path):
        try:
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        except OSError as exc:
            raise TokensFileError(f"cannot read the tokens file {path}: {exc.strerror or exc}") from None
        kept = [line for line in lines if line.split("#", 1)[0].split()[:1] != [user]]
        removed = len(lines) - len(kept)
        if removed:
            temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.writelines(kept)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    temporary.unlink()
                raise
    return removed
