"""Can this process read and write a store? If not, the one command that fixes it.

Plain module (``os``, ``pwd``, ``grp``). A store this process cannot open is not
broken: setting it aside would salvage nothing and leave a fresh, empty store
in its place. ``mnemex repair`` asks ``access_problem`` first and, when it
answers, moves nothing and prints the ``chmod`` (the files are this user's) or
``chown`` (they belong to someone else) to run.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class AccessProblem:
    """``path`` cannot be used by this process: why, and the command that fixes it."""

    path: Path
    reason: str
    fix: str

    def message(self, what: str) -> str:
        return (
            f"{what} cannot be opened: {self.reason} ({self.path}); fix it with `{self.fix}`, then run "
            "`mnemex repair` again (nothing was moved aside)"
        )


def _user_name(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


def _group_name(gid: int) -> str:
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return str(gid)


def fix_command(path: Path, owner_uid: int, *, folder: bool, uid: int | None = None, gid: int | None = None) -> str:
    """``chmod`` when this user owns ``path`` (only the mode is wrong), else ``sudo chown`` to this user."""
    uid = os.getuid() if uid is None else uid
    gid = os.getgid() if gid is None else gid
    recursive = "-R " if folder else ""
    if owner_uid == uid:
        return f"chmod {recursive}u+rw{'X' if folder else ''} {path}"
    return f"sudo chown {recursive}{_user_name(uid)}:{_group_name(gid)} {path}"


def _check_one(path: Path, wanted: int) -> AccessProblem | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except PermissionError as exc:
        return AccessProblem(path, f"permission denied ({exc.strerror})", fix_command(path.parent, -1, folder=True))
    if os.access(path, wanted, follow_symlinks=False):
        return None
    folder = stat.S_ISDIR(info.st_mode)
    needs = "read, write and enter" if folder else "read and write"
    owner = _user_name(info.st_uid)
    reason = f"{_user_name(os.getuid())} may not {needs} it (mode {stat.S_IMODE(info.st_mode):03o}, owner {owner})"
    return AccessProblem(path, reason, fix_command(path, info.st_uid, folder=folder))


def home_problem(home: Path) -> AccessProblem | None:
    """None when this process may read, write and enter the home folder itself (or it does not exist)."""
    return _check_one(home, os.R_OK | os.W_OK | os.X_OK)


def access_problem(path: Path, home: Path) -> AccessProblem | None:
    """None when this process may use ``path`` (a file or a folder, and everything in it), else what to fix.

    The folders from ``home`` down to ``path`` must let it enter; ``path`` and all
    it holds must let it read and write (a folder: enter too).
    """
    folders = [home, *[p for p in path.parents if home in p.parents]]
    for folder in sorted(set(folders), key=lambda p: len(p.parts)):
        if folder.exists() or folder.is_symlink():
            found = _check_one(folder, os.R_OK | os.W_OK | os.X_OK)
            if found is not None:
                return found
    directory = os.R_OK | os.W_OK | os.X_OK
    found = _check_one(path, directory if path.is_dir() else os.R_OK | os.W_OK)
    if found is not None or not path.is_dir():
        if found is None:
            for suffix in ("-wal", "-shm", "-journal"):
                side = path.with_name(path.name + suffix)
                found = found or _check_one(side, os.R_OK | os.W_OK)
        return found
    for root, folders_in, files in os.walk(path):
        for name in folders_in:
            found = _check_one(Path(root) / name, directory)
            if found is not None:
                return AccessProblem(found.path, found.reason, fix_command(path, _owner(found.path), folder=True))
        for name in files:
            found = _check_one(Path(root) / name, os.R_OK | os.W_OK)
            if found is not None:
                return AccessProblem(found.path, found.reason, fix_command(path, _owner(found.path), folder=True))
    return None


def _owner(path: Path) -> int:
    try:
        return path.lstat().st_uid
    except OSError:
        return -1
