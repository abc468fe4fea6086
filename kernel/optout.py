"""Per-project opt-out and the pause switch: where mnemex stores and injects nothing.

Two ways to exclude a project, both honoured by the hooks without a network call
and by the gateway's hook routes:

- ``mnemex projects --exclude DIR`` records ``DIR`` in the opt-out file
  ``<mnemex home>/client/optout.json`` (beside the hooks' connection file); the
  directory and everything below it is excluded. ``--include DIR`` undoes it.
- A file named ``.mnemex-ignore`` committed at (or above) the working directory
  excludes that tree for everyone who clones it. The search walks up at most
  ``MAX_MARKER_LEVELS`` directories, and only through folders of this user's
  own (``marker_above``): a request's ``cwd`` is no probe of other paths.

``mnemex pause`` pauses capture and context everywhere until ``mnemex resume``;
``mnemex pause --session ID`` pauses one session only.

The file: ``{"version": 1, "excluded": ["/abs/dir", ...], "paused": true|false,
"paused_sessions": ["id", ...]}``. The hooks read it with their own stdlib
reader (``hooks/hook_client.py``), which must accept the same shape.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import parse_value

FILE_NAME = "optout.json"
MARKER_FILE = ".mnemex-ignore"
MAX_MARKER_LEVELS = 40
VERSION = 1


def optout_path(mnemex_home: Path) -> Path:
    """``<mnemex home>/client/optout.json``: the folder the installed hooks read their connection from."""
    return mnemex_home / "client" / FILE_NAME


@dataclass
class OptOut:
    excluded: list[str] = field(default_factory=list)
    paused: bool = False
    paused_sessions: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        data: dict[str, object] = {
            "version": VERSION,
            "excluded": sorted(set(self.excluded)),
            "paused": self.paused,
            "paused_sessions": sorted(set(self.paused_sessions)),
        }
        return json.dumps(data, indent=2) + "\n"

    @property
    def empty(self) -> bool:
        return not self.excluded and not self.paused and not self.paused_sessions


def load(mnemex_home: Path) -> OptOut:
    """The recorded opt-outs; an empty one when the file is missing or unreadable."""
    try:
        data = parse_value(optout_path(mnemex_home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return OptOut()
    if not isinstance(data, dict):
        return OptOut()
    excluded = data.get("excluded")
    sessions = data.get("paused_sessions")
    return OptOut(
        excluded=[str(d) for d in excluded] if isinstance(excluded, list) else [],
        paused=data.get("paused") is True,
        paused_sessions=[str(s) for s in sessions] if isinstance(sessions, list) else [],
    )


class OptOutReader:
    """``load`` for a long-running process (the gateway asks on every hook request): the file is read
    and parsed again only when its stat changes, and always while it was changed in the last
    ``RACY_S`` seconds (file times are coarse: two writes that close together may share one)."""

    RACY_S = 2.0

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._record = OptOut()

    def load(self, mnemex_home: Path) -> OptOut:
        """The recorded opt-outs (treat the result as read-only: it is shared between calls)."""
        path = optout_path(mnemex_home)
        try:
            info = os.stat(path)
        except OSError:
            key: tuple[object, ...] = (path, None)
        else:
            if time.time() - info.st_mtime < self.RACY_S:
                return load(mnemex_home)
            key = (path, info.st_ino, info.st_size, info.st_mtime_ns)
        if key != self._key:
            self._record, self._key = load(mnemex_home), key
        return self._record


def save(mnemex_home: Path, optout: OptOut) -> Path:
    """Write the file atomically; remove it once nothing is opted out."""
    path = optout_path(mnemex_home)
    if optout.empty:
        path.unlink(missing_ok=True)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".optout-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(optout.to_json())
    os.replace(tmp, path)
    return path


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def excluded_by_list(cwd: str, excluded: list[str]) -> str | None:
    """The excluded directory that holds ``cwd`` (itself or a parent), else None."""
    real = os.path.realpath(cwd)
    for directory in excluded:
        if _within(real, directory) or _within(os.path.abspath(cwd), directory):
            return directory
    return None


def _own_directory(path: str, owner: int) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == owner


def marker_above(cwd: str, levels: int = MAX_MARKER_LEVELS, *, owner: int | None = None) -> str | None:
    """The nearest ``.mnemex-ignore`` at or above ``cwd`` (bounded walk), else None.

    Only the user's own folders are probed: the walk starts at the real path
    of ``cwd`` and stops at the first folder that does not exist or belongs to
    another user than ``owner`` (default: this process's user, the stack's).
    A ``cwd`` sent to the gateway so cannot tell whether a file exists
    anywhere else (a foreign or missing path always answers None). The marker
    must be a regular file, not a link.
    """
    uid = os.geteuid() if owner is None else owner
    current = os.path.realpath(cwd)
    for _ in range(levels):
        if not _own_directory(current, uid):
            return None
        candidate = os.path.join(current, MARKER_FILE)
        try:
            if stat.S_ISREG(os.lstat(candidate).st_mode):
                return candidate
        except OSError:
            pass
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def exclusion_reason(cwd: str | None, optout: OptOut) -> str | None:
    """Why ``cwd`` is excluded (the listed directory or a marker file), or None when it is not.

    The reply names no marker path: it goes back to whoever sent the ``cwd``."""
    if not cwd:
        return None
    listed = excluded_by_list(cwd, optout.excluded) if optout.excluded else None
    if listed is not None:
        return f"excluded with `mnemex projects --exclude {listed}`"
    if marker_above(cwd) is not None:
        return f"excluded by a {MARKER_FILE} file in this directory or a folder above it"
    return None


def is_paused(session_id: str | None, optout: OptOut) -> bool:
    return optout.paused or bool(session_id and session_id in optout.paused_sessions)
