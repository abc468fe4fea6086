"""Which project a working directory belongs to.

The project is the git root of the cwd (walking up to the nearest ``.git``),
unless the directory, or one of its parents, has been bound to a named
project with ``mnemex projects bind``. Bindings live in
``$MNEMEX_HOME/projects.json`` as ``{"bindings": {"/abs/dir": "name"}}``.

Project ids are safe for collection names: a readable slug plus a short
hash of the root path, so two checkouts called ``app`` stay apart. Both are
made from the redacted path (``kernel.privacy``), so a token in a directory
name never becomes part of an id; an ordinary path redacts to itself, so its
id never changes.

A cwd sent by a remote user (a per-user token over the network) names a
directory on *their* machine: ``resolve_remote`` derives its id from the
string alone and never touches the server's filesystem (no ``~user``
expansion, no symlink or ``/proc/self/cwd`` resolution, no ``.git`` probing).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from kernel.json_values import as_object, object_at, parse_value
from kernel.privacy import redact

BINDINGS_FILE = "projects.json"
DEFAULT_PROJECT = "default"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


class InvalidProjectName(ValueError):
    pass


def slug(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_").lower()
    return cleaned[:40] or "root"


def git_root(start: Path) -> Path | None:
    current = start
    for candidate in (current, *current.parents):
        try:
            if (candidate / ".git").exists():
                return candidate
        except OSError:  # name too long, permission denied: not a repository we can use
            continue
    return None


def load_bindings(home: Path) -> dict[str, str]:
    path = home / BINDINGS_FILE
    try:
        data = as_object(parse_value(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}
    return {key: value for key, value in object_at(data, "bindings").items() if isinstance(value, str)}


def save_bindings(home: Path, bindings: dict[str, str]) -> None:
    """Atomic write: a crash leaves the old file or the new one, never half."""
    home.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=home, prefix=".projects.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"bindings": dict(sorted(bindings.items()))}, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, home / BINDINGS_FILE)


def validate_name(name: str) -> str:
    if not _NAME_RE.match(name):
        raise InvalidProjectName(
            f"project name {name!r} is not allowed: use 1-63 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def bind(home: Path, directory: Path, name: str) -> None:
    bindings = load_bindings(home)
    bindings[str(directory.resolve())] = validate_name(name)
    save_bindings(home, bindings)


def unbind(home: Path, directory: Path) -> bool:
    bindings = load_bindings(home)
    removed = bindings.pop(str(directory.resolve()), None) is not None
    if removed:
        save_bindings(home, bindings)
    return removed


def resolve(cwd: str | os.PathLike[str] | None, home: Path) -> str:
    """Project id for a cwd: a bound name, else ``<slug>-<hash>`` of the git root."""
    if not cwd:
        return DEFAULT_PROJECT
    try:
        path = Path(cwd).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return DEFAULT_PROJECT
    bindings = load_bindings(home)
    if bindings:
        for candidate in (path, *path.parents):
            name = bindings.get(str(candidate))
            if name:
                return name
    return _project_id(str(git_root(path) or path))


def resolve_remote(cwd: str | os.PathLike[str] | None, home: Path) -> str:
    """Project id for a cwd from another machine: a bound name, else ``<slug>-<hash>`` of the path as written.

    The path is only normalised as text (``a/./b/../c`` -> ``a/c``). For an absolute path that does
    not exist on the server this is the id ``resolve`` gave, so remote users keep their projects.
    """
    if not cwd:
        return DEFAULT_PROJECT
    text = os.fspath(cwd)
    if "\0" in text:
        return DEFAULT_PROJECT
    path = PurePosixPath(posixpath.normpath(text))
    bindings = load_bindings(home)
    for candidate in (path, *path.parents) if bindings else ():
        name = bindings.get(str(candidate))
        if name:
            return name
    return _project_id(str(path))


def _project_id(root: str) -> str:
    cleaned = redact(root)
    digest = hashlib.sha1(cleaned.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug(Path(cleaned).name)}-{digest}"


class CachedResolver:
    """``resolve`` for a long-running process, without the filesystem walk on every call.

    A prompt's cwd rarely changes project, but resolving it costs a realpath, a walk
    up to ``.git`` and a read of the bindings file. An answer is reused for ``ttl``
    seconds (so a new ``.git`` or a moved directory is seen within that time) and
    never after the bindings file changed (so ``mnemex projects bind`` takes effect
    on the next prompt: a stat per call checks it).
    """

    def __init__(
        self, home: Path, ttl: float = 10.0, max_entries: int = 256, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.home = home
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._entries: dict[str, tuple[str, tuple[int, int, int] | None, float]] = {}

    def _bindings_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = (self.home / BINDINGS_FILE).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_ino, st.st_size)

    def __call__(self, cwd: str | os.PathLike[str] | None) -> str:
        key = os.fspath(cwd) if cwd else ""
        stamp = self._bindings_stamp()
        now = self._clock()
        hit = self._entries.get(key)
        if hit is not None and hit[1] == stamp and now - hit[2] < self.ttl:
            return hit[0]
        project = resolve(cwd, self.home)
        if key not in self._entries and len(self._entries) >= self.max_entries:
            del self._entries[next(iter(self._entries))]  # the oldest entry
        self._entries[key] = (project, stamp, now)
        return project
