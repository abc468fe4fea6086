"""The stack's internal credential: the secret every gRPC call between mnemex processes carries.

With ``MNEMEX_TOKEN`` set, that is the credential. Without it, the first
process of a stack to start (the supervisor, or a service or gateway started
by hand) generates one, ``secrets.token_urlsafe(32)``, into
``<MNEMEX_HOME>/secrets/internal-token`` (folder 0700, file 0600), and every
later process of that home reads the same file: the services require it
(``kernel.grpc_auth.TokenInterceptor``), the gateway and ``mnemex mcp`` send it.
So no local process without read access to the home (another OS user, a
sandboxed tool) can call the gRPC ports, which listen on loopback.

Unlike ``MNEMEX_TOKEN``, the generated credential guards gRPC only: the
gateway's HTTP endpoints keep their own rules (loopback, per-user tokens).

Generation is race-free: the token is written to a private temporary file
and hard-linked to its final name, so of two processes starting at once one
wins and the other reads the winner's token. A file that is empty, too weak,
owned by another user or readable by others is refused with the command that
fixes it (``ConfigError``), never silently replaced: peers already running
would lose their calls.

grpcurl: ``grpcurl -plaintext -H "authorization: Bearer $(cat <home>/secrets/internal-token)"
127.0.0.1:27302 list`` (``-H`` sends the header on reflection calls too).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from kernel.config import MAKE_A_TOKEN, ConfigError, weak_token_reason

SECRETS_FOLDER = "secrets"
TOKEN_FILE_NAME = "internal-token"
FOLDER_MODE = 0o700
FILE_MODE = 0o600


def token_path(home: Path) -> Path:
    """``<home>/secrets/internal-token``."""
    return home / SECRETS_FOLDER / TOKEN_FILE_NAME


def _fix(path: Path) -> str:
    return (
        f"stop the stack (`mnemex down`), remove {path} and start it again (`mnemex up`) to make a new one, "
        f"or set MNEMEX_TOKEN on every process of the stack (make one with: {MAKE_A_TOKEN})"
    )


def read_token(path: Path) -> str | None:
    """The credential stored at ``path``; None when there is no file. Raises ConfigError when it is unsafe."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(
            f"cannot read the stack's internal credential {path}: {exc.strerror or exc}. " + _fix(path)
        ) from None
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as handle:
        info = os.fstat(handle.fileno())
        text = handle.read(4096).strip()
    if info.st_uid != os.geteuid():
        raise ConfigError(
            f"the stack's internal credential {path} belongs to another user (uid {info.st_uid}), "
            "who could read or replace it. " + _fix(path)
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, FILE_MODE)  # ours: take the group and other bits off, as tighten_modes does
    weak = weak_token_reason(text) if text else "it is empty"
    if weak is not None:
        raise ConfigError(f"the stack's internal credential {path} is unusable ({weak}). " + _fix(path))
    return text


def ensure_token(home: Path) -> str:
    """The credential of the stack at ``home``: read from its file, or generated into it on first start."""
    path = token_path(home)
    existing = read_token(path)
    if existing is not None:
        return existing
    try:
        path.parent.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        os.chmod(path.parent, FOLDER_MODE)
        token = secrets.token_urlsafe(32)
        temporary = path.parent / f".{TOKEN_FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(token + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):  # another process of the stack made it first: use theirs
                os.link(temporary, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the stack's internal credential {path}: {exc.strerror or exc}. Make MNEMEX_HOME "
            f"writable by this user (`chmod 700 {home}` as its owner), or set MNEMEX_TOKEN "
            f"(make one with: {MAKE_A_TOKEN})"
        ) from None
    stored = read_token(path)
    if stored is None:
        raise ConfigError(f"the stack's internal credential {path} vanished while it was made. " + _fix(path))
    return stored


def grpc_token(explicit: str | None, home: Path) -> str:
    """The token gRPC calls carry: ``MNEMEX_TOKEN`` when set, else the home's generated credential."""
    return explicit or ensure_token(home)
