"""Keep ``MNEMEX_HOME`` private: folders 0700, files 0600, and never run on a home others can write.

Every memory, prompt and log line lives under the home, so it is the user's
alone, as a Postgres data directory is:

- ``private_umask()`` (umask 077) makes every folder and file a process
  creates from then on private; each service and the supervisor call it first.
- ``protect_home(home)`` creates a missing home as 0700; refuses a home owned
  by another user (they could rename ``logs/`` or swap a store while the stack
  runs; root excepted, as it owns a Kubernetes volume's root) and a home that
  every user can write (anyone could plant memories or swap a store), saying
  the command that fixes it (a group-writable one is tightened when this user
  owns it, and left alone on a shared volume, as Kubernetes' fsGroup makes
  it); refuses a home it cannot write to (a read-only disk or mount) with the
  path and the fix, instead of a traceback later; and tightens what an older
  version left readable (0755 folders, 0644 files) in place.

Plain module: os, pwd and pathlib only. Errors are ``ConfigError`` so every caller
prints them as one line.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pwd
import stat
import tempfile
from pathlib import Path

from kernel.config import ConfigError

PRIVATE_UMASK = 0o077
FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_umask() -> None:
    """From now on this process creates folders 0700 and files 0600."""
    os.umask(PRIVATE_UMASK)


def _check_writable(home: Path) -> None:
    try:
        fd, probe = tempfile.mkstemp(dir=home, prefix=".write-check.")
    except OSError as exc:
        if exc.errno == errno.EROFS:
            why = "it is on a read-only file system"
        elif exc.errno == errno.ENOSPC:
            why = "the disk is full (no space left on device)"
        elif exc.errno in (errno.EACCES, errno.EPERM):
            why = "this user may not write to it"
        else:
            why = exc.strerror or str(exc)
        raise ConfigError(
            f"MNEMEX_HOME {home} is not writable: {why}. Make it writable (remount it read-write, free space, "
            f"or `chmod 700 {home}` as its owner), or set MNEMEX_HOME to a writable folder"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def tighten_modes(home: Path) -> int:
    """Take group and other bits off everything under ``home`` (links left alone); returns how many changed."""
    changed = 0
    for root, folders, files in os.walk(home):
        for name in folders + files:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                continue
            # Folders and owner-executable files keep the owner's x bit; nothing for group or others.
            wanted = FOLDER_MODE if stat.S_ISDIR(info.st_mode) or info.st_mode & stat.S_IXUSR else FILE_MODE
            if stat.S_IMODE(info.st_mode) & ~wanted:
                with contextlib.suppress(OSError):
                    os.chmod(path, stat.S_IMODE(info.st_mode) & wanted)
                    changed += 1
    return changed


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _refuse_foreign_owner(home: Path, info: os.stat_result) -> None:
    """Refuse a home owned by another user: they could rename ``logs/``, swap a store or read it all while it runs.

    root counts as no other user (it can do all of that anyway, and owns a Kubernetes volume's root)."""
    me = os.geteuid()
    if info.st_uid in (me, 0):
        return
    raise ConfigError(
        f"MNEMEX_HOME {home} belongs to another user ({_user_name(info.st_uid)}, uid {info.st_uid}), who could "
        "read, rename or replace what mnemex keeps there while it runs. Use a home of your own (unset MNEMEX_HOME, "
        f"or point it at a folder you own: `mkdir -m 700 DIR`), or take this one over: "
        f"sudo chown -R {_user_name(me)} {home}"
    )


def protect_home(home: Path, *, fix_modes: bool = True) -> None:
    """Set the private umask, then check and tighten ``home`` (see the module doc). Raises ConfigError."""
    private_umask()
    try:
        home.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create MNEMEX_HOME {home}: {exc.strerror or exc}. Create it yourself (`mkdir -m 700 {home}`) "
            "or set MNEMEX_HOME to a writable folder"
        ) from None
    info = home.stat()
    _refuse_foreign_owner(home, info)
    if info.st_mode & stat.S_IWOTH:
        raise ConfigError(
            f"MNEMEX_HOME {home} can be written by every user (mode {stat.S_IMODE(info.st_mode):o}): anyone on "
            f"this machine could plant memories or replace a store. Fix it with: chmod 700 {home}"
        )
    _check_writable(home)
    if stat.S_IMODE(info.st_mode) != FOLDER_MODE:
        # A group-writable home we own is tightened; one we do not own is a deliberate shared
        # volume (Kubernetes' fsGroup makes the volume's root group-writable) and is left as set.
        with contextlib.suppress(OSError):
            os.chmod(home, FOLDER_MODE)
    if fix_modes:
        tighten_modes(home)
