"""The client folder ``<mnemex home>/client``: hook scripts and the connection file.

``init`` copies the standard-library-only hook scripts out of the installed
``hooks`` package into ``<mnemex home>/client/hooks/`` and writes
``<mnemex home>/client/connection.json`` (mode 0600) beside them. The hook
commands run those copies with the base interpreter (the real ``python3``
outside any virtual environment), so deleting a checkout or its ``.venv``
never leaves the clients with commands that point at nothing. The hooks find
``connection.json`` as ``../connection.json`` relative to themselves, and the
MCP entries name it in ``MNEMEX_CONNECTION_FILE``.

Pure planning (:func:`plan_install`, :func:`plan_remove`) and one writer
(:func:`apply`), like the config files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from kernel import connection
from mnemex.client_setup.files import SetupError, read_text, write_atomic

HOOK_MODULES = ("hook_client.py", "hook_events.py", "hook_json.py", "hook_main.py")
EVENT_SCRIPTS = ("session_start.py", "user_prompt_submit.py", "post_tool_use.py", "pre_compact.py", "stop.py")
HOOK_FILES = HOOK_MODULES + EVENT_SCRIPTS  # at least these; every module of the package is copied
HOOKS_DIR = "hooks"
PRIVATE = 0o600  # the connection file can hold MNEMEX_TOKEN; the hook copies live in the home, the user's alone
READABLE = PRIVATE  # the hooks run as `python3 -S <file>`: their owner reads them, nobody else needs to
PRIVATE_DIR = 0o700


def mnemex_home(home: Path, environ: Mapping[str, str]) -> Path:
    """The mnemex data dir the stack of ``environ`` uses, for a user whose ``$HOME`` is ``home``.

    ``MNEMEX_HOME`` when set; otherwise the platform's user data dir, taken
    relative to ``home`` (so a temporary ``home`` gets its own).
    """
    if environ.get("MNEMEX_HOME"):
        return Path(environ["MNEMEX_HOME"]).expanduser()
    from kernel.config import default_home

    default = default_home()
    if home == Path.home():
        return default
    try:
        return home / default.relative_to(Path.home())
    except ValueError:  # XDG_DATA_HOME outside $HOME
        return home / ".local" / "share" / "mnemex"


def base_interpreter() -> str:
    """The Python outside any virtual environment that this one was made from (hooks need only the stdlib)."""
    base = getattr(sys, "_base_executable", "") or sys.executable
    try:
        resolved = Path(base).resolve(strict=True)
    except OSError:
        return sys.executable
    return str(resolved) if os.access(resolved, os.X_OK) else sys.executable


def start_command() -> tuple[str, ...]:
    """How hooks start this installation's stack: its ``mnemex`` console script, ``up --detach``."""
    beside = Path(sys.executable).parent / ("mnemex.exe" if os.name == "nt" else "mnemex")
    if beside.is_file() and os.access(beside, os.X_OK):
        return (str(beside), "up", "--detach")
    found = shutil.which("mnemex")
    if found:
        return (str(Path(found).absolute()), "up", "--detach")
    return (sys.executable, "-m", "mnemex.cli", "up", "--detach")


def connection_text(environ: Mapping[str, str]) -> str:
    """The connection file for the stack ``environ`` describes."""
    return connection.Connection(env=connection.recorded_env(environ), start_command=start_command()).to_json()


def packaged_hooks() -> dict[str, str]:
    """Every module of the installed ``hooks`` package (a checkout or a wheel) but ``__init__``, by file name."""
    try:
        package = resources.files("hooks")
        names = sorted(
            item.name
            for item in package.iterdir()
            if item.name.endswith(".py") and item.name != "__init__.py" and item.is_file()
        )
        sources = {name: package.joinpath(name).read_text(encoding="utf-8") for name in names}
    except (ModuleNotFoundError, OSError) as exc:
        raise SetupError(
            f"the mnemex hook scripts cannot be read from this installation ({exc}); reinstall mnemex"
        ) from exc
    missing = [name for name in HOOK_FILES if name not in sources]
    if missing:
        raise SetupError(f"this installation lacks the hook scripts {', '.join(missing)}; reinstall mnemex")
    return sources


@dataclass
class FolderFile:
    path: Path
    before: str | None
    after: str | None
    mode: int = READABLE

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class ClientFolder:
    """Planned changes to one client folder."""

    directory: Path
    files: list[FolderFile] = field(default_factory=list)
    remove: bool = False  # uninstall: the files go, and the folder with them when empty

    @property
    def changed(self) -> bool:
        return any(f.changed for f in self.files)

    @property
    def connection_file(self) -> Path:
        return self.directory / connection.FILE_NAME

    def summary(self, dry_run: bool) -> list[str]:
        if not self.changed:
            return []
        verb = ("would remove" if dry_run else "removed") if self.remove else ("would write" if dry_run else "wrote")
        hooks = [f for f in self.files if f.changed and f.path.parent.name == HOOKS_DIR]
        lines = [f"hook scripts: {verb} {len(hooks)} in {self.directory / HOOKS_DIR}"] if hooks else []
        if any(f.changed and f.path == self.connection_file for f in self.files):
            lines.append(f"connection file: {verb} {self.connection_file}")
        return lines


def plan_install(directory: Path, environ: Mapping[str, str]) -> ClientFolder:
    folder = ClientFolder(directory)
    for name, text in packaged_hooks().items():
        path = directory / HOOKS_DIR / name
        folder.files.append(FolderFile(path, read_text(path), text, READABLE))
    path = folder.connection_file
    folder.files.append(FolderFile(path, read_text(path), connection_text(environ), PRIVATE))
    return folder


def plan_remove(directory: Path) -> ClientFolder:
    folder = ClientFolder(directory, remove=True)
    names = sorted(set(HOOK_FILES) | set(packaged_hooks()))
    for path in [directory / HOOKS_DIR / name for name in names] + [folder.connection_file]:
        before = read_text(path)
        if before is not None:
            folder.files.append(FolderFile(path, before, None))
    return folder


def missing_dirs(path: Path) -> tuple[str, ...]:
    """The ancestors of ``path`` that do not exist yet, outermost first."""
    missing = []
    parent = path.parent
    while not parent.exists():
        missing.append(str(parent))
        parent = parent.parent
    return tuple(reversed(missing))


def apply(folder: ClientFolder) -> None:
    if any(item.after is not None and item.changed for item in folder.files):
        for directory in (folder.directory, folder.directory / HOOKS_DIR):
            directory.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
            os.chmod(directory, PRIVATE_DIR)  # the home is the user's alone (mnemex doctor checks it)
    for item in folder.files:
        if not item.changed:
            continue
        if item.after is None:
            item.path.unlink(missing_ok=True)
        else:
            write_atomic(item.path, item.after, mode=item.mode)
    if folder.remove:
        hooks = folder.directory / HOOKS_DIR
        cache = hooks / "__pycache__"  # written by the interpreter that ran the hooks
        stems = {Path(name).stem for name in set(HOOK_FILES) | set(packaged_hooks())}
        if cache.is_dir():
            for compiled in cache.iterdir():
                if compiled.name.split(".")[0] in stems:
                    compiled.unlink(missing_ok=True)
        for directory in (cache, hooks, folder.directory):
            with contextlib.suppress(OSError):  # not empty: something else lives there
                directory.rmdir()
