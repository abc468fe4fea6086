"""``mnemex init`` / ``mnemex uninit``: plan the changes, show them, apply them.

    result = init(Path.home(), clients=("claude", "cursor"), dry_run=True)
    print(result.render())          # a unified diff of every config it would touch
    result = init(Path.home())       # Claude Code only: backups, client folder, merged configs
    result = uninit(Path.home(), clients=("cursor",))

The manifest ``<home>/.config/mnemex/client-setup.json`` remembers exactly
what was added (per client, per file) and which client folder each client
uses, so ``uninit`` removes that and only that, and a second ``init``
changes nothing. The client folder ``<mnemex home>/client`` (hook copies and
``connection.json``, see ``hook_install``) goes with the last client using it.

Backups: ``init`` saves a file it is about to change for the first time as
``<file>.mnemex-backup-<time>`` (same mode as the file) and names it in its
report; later inits reuse that one, so there is at most one per file.
``uninit`` writes none: it only takes mnemex's own entries out, editing the
file in place (comments and layout kept). When it has taken all of them out
it deletes init's backup, which by then is stale; where it had to leave one
of mnemex's entries in place (edited after init), it keeps the backup and
says where it is. So uninit leaves no backup behind on a clean removal.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from kernel.json_values import JSONObject, JSONValue, parse_value
from mnemex.client_setup import hook_install, plugin_deps
from mnemex.client_setup.client_entries import (
    BUILDERS,
    CLIENTS,
    FileTarget,
    Launch,
    Target,
    check_clients,
    opencode_plugin_path,
    targets_for,
)
from mnemex.client_setup.files import SetupError, make_backup, read_text, write_atomic
from mnemex.client_setup.hook_install import ClientFolder, missing_dirs
from mnemex.client_setup.jsondoc import elements
from mnemex.client_setup.merge import FileRecord, Merged, install_file, install_json, remove_file, remove_json
from mnemex.client_setup.result import FileChange, SetupResult

MANIFEST_VERSION = 1
OPENCODE_BEFORE = "opencode_dependencies_before"  # manifest key: plugin_deps.snapshot taken at the first init


def opencode_dir(home: Path) -> Path:
    return home / ".config" / "opencode"


def manifest_path(home: Path) -> Path:
    return home / ".config" / "mnemex" / "client-setup.json"


def _load_manifest(home: Path) -> JSONObject:
    path = manifest_path(home)
    text = read_text(path)
    if text is None:
        return {"version": MANIFEST_VERSION, "clients": {}, "folders": {}}
    try:
        data = parse_value(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"{path} is corrupt ({exc.msg}); move it aside and run the command again") from exc
    if (
        not isinstance(data, dict)
        or not isinstance(data.setdefault("clients", {}), dict)
        or not isinstance(data.setdefault("folders", {}), dict)
    ):
        raise SetupError(f"{path} is not a mnemex manifest; move it aside and run the command again")
    return data


def _object(value: JSONValue) -> JSONObject:
    """A table of the manifest; TypeError when the manifest holds something else there."""
    if not isinstance(value, dict):
        raise TypeError(f"the manifest holds a {type(value).__name__} where an object belongs")
    return value


def _table(data: JSONObject, key: str, *, create: bool = False) -> JSONObject:
    """The table ``data[key]``: {} when missing (kept in ``data`` with ``create``)."""
    return _object(data.setdefault(key, {}) if create else data.get(key, {}))


def _strs(values: JSONValue) -> tuple[str, ...]:
    """A list of paths in the manifest; TypeError for anything else in it."""
    found = elements(values)
    if not all(isinstance(value, str) for value in found):
        raise TypeError("the manifest holds a non-string where a path belongs")
    return tuple(str(value) for value in found)


def _record_of(manifest: JSONObject, client: str, path: Path) -> FileRecord | None:
    raw = _table(_table(manifest, "clients"), client).get(str(path))
    return FileRecord.from_json(_object(raw)) if raw else None


def _remove_dirs(dirs: set[str]) -> None:
    """Remove directories init created, deepest first, where they are empty now."""
    for directory in sorted(dirs, key=lambda d: len(Path(d).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (something else lives there now) or already gone
            Path(directory).rmdir()


def _reassign(
    folders: JSONObject, clients: tuple[str, ...], target: Path | None
) -> tuple[JSONObject, list[tuple[Path, tuple[str, ...]]]]:
    """Move ``clients`` to folder ``target`` (none: out of every folder).

    Returns the new folder table and the folders no client uses any more, with the directories init created for them.
    """
    table: dict[str, tuple[list[JSONValue], list[JSONValue]]] = {}  # folder: (its clients, the dirs init created)
    for directory, raw in folders.items():
        entry = _object(raw)
        users = [c for c in elements(entry.get("clients", [])) if c not in clients]
        table[directory] = (users, elements(entry.get("created_dirs", [])))
    if target is not None and clients:
        users, _ = table.setdefault(str(target), ([], [*missing_dirs(target / hook_install.HOOKS_DIR)]))
        users[:] = [c for c in CLIENTS if c in users or c in clients]
    emptied = [(Path(d), _strs(created)) for d, (users, created) in table.items() if not users]
    kept: JSONObject = {
        d: {"clients": users, "created_dirs": created} for d, (users, created) in table.items() if users
    }
    return kept, emptied


def _backups(change: FileChange, action: str, result: SetupResult) -> FileRecord | None:
    """Write or delete the backups of one change, per the rule in the module docstring."""
    record = change.record
    if action == "init":
        first_change = record is not None and record.backup is None and not record.created_file
        if change.changed and change.before is not None and first_change:
            backup = make_backup(change.path, change.before)
            result.backups.append(backup)
            record = replace(record, backup=str(backup)) if record is not None else None
        return record
    old = change.previous.backup if change.previous is not None else None
    if old is None or not Path(old).exists():
        return record
    if change.drop_backup:
        Path(old).unlink(missing_ok=True)
        result.removed_backups.append(Path(old))
    else:
        result.notes.append(f"kept the copy of {change.path} from before mnemex's init: {old}")
    return record


def _apply(home: Path, manifest: JSONObject, result: SetupResult, folders: JSONObject) -> None:
    """Client folder first (hooks exist before a config names them), then configs, then the manifest."""
    emptied: set[str] = set()
    for folder in result.folders:
        if not folder.remove:
            hook_install.apply(folder)
    for change in result.changes:
        record = _backups(change, result.action, result)
        if change.changed:
            if change.after is None:
                change.path.unlink(missing_ok=True)
                emptied.update(change.removed_dirs)
            else:
                if record is not None and change.before is None:
                    record = replace(record, created_dirs=missing_dirs(change.path))
                write_atomic(change.path, change.after)
        change.record = record
    for folder in result.folders:
        if folder.remove:
            hook_install.apply(folder)
    clients = _table(manifest, "clients")
    for change in result.changes:
        files = _table(clients, change.client, create=True)
        if change.record is None:
            files.pop(str(change.path), None)
        else:
            files[str(change.path)] = change.record.to_json()
    manifest["clients"] = {c: f for c, f in clients.items() if f}
    manifest["folders"] = folders
    path = manifest_path(home)
    if manifest["clients"] or manifest["folders"]:
        # The folders the manifest's own path needed (``~/.config`` in a bare home) go with it.
        manifest.setdefault("manifest_dirs", [*missing_dirs(path)])
        write_atomic(path, json.dumps(manifest, indent=2) + "\n")
    else:
        path.unlink(missing_ok=True)
        emptied.add(str(path.parent))
        emptied.update(str(d) for d in elements(manifest.get("manifest_dirs") or []))
    _remove_dirs(emptied)


def _plan_folders(
    manifest: JSONObject, clients: tuple[str, ...], target: Path | None, environ: Mapping[str, str]
) -> tuple[list[ClientFolder], JSONObject, set[str]]:
    folders, emptied = _reassign(_table(manifest, "folders"), clients, target)
    plans = [hook_install.plan_install(target, environ)] if target is not None and clients else []
    dirs: set[str] = set()
    for directory, created in emptied:
        plans.append(hook_install.plan_remove(directory))
        dirs.update(created)
    return plans, folders, dirs


def default_launch(
    home: Path,
    python: str | None = None,
    hook_python: str | None = None,
    gateway_url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Launch:
    environ = os.environ if environ is None else environ
    if gateway_url is None:
        from kernel.config import Settings

        gateway_url = Settings.from_env(environ).gateway_url
    return Launch(
        home=home,
        python=python or sys.executable,
        hook_python=hook_python or hook_install.base_interpreter(),
        client_dir=hook_install.mnemex_home(home, environ) / "client",
        gateway_url=gateway_url,
    )


def _plan_install(target: Target, manifest: JSONObject) -> tuple[FileChange, list[str]]:
    before = read_text(target.path)
    previous = _record_of(manifest, target.client, target.path)
    merged: Merged
    if isinstance(target, FileTarget):
        merged = install_file(target.path, before, previous, target.content)
    else:
        merged = install_json(target.path, before, previous, target.entries, jsonc=target.jsonc)
    change = FileChange(target.path, target.label, before, merged.after, target.client, merged.record)
    change.previous = previous
    return change, merged.notes


def init(
    home: Path | None = None,
    *,
    clients: tuple[str, ...] | None = None,
    cursor: bool = False,
    opencode: bool = False,
    dry_run: bool = False,
    python: str | None = None,
    hook_python: str | None = None,
    gateway_url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> SetupResult:
    """Install mnemex into ``clients`` (default: Claude Code; ``cursor``/``opencode`` add those).

    ``environ`` (default ``os.environ``) names the stack: its ``MNEMEX_*`` settings
    go into ``<mnemex home>/client/connection.json``. SetupError, before anything
    is written, when a config cannot be read or merged (its message names the
    file, line and column, and how to set up the other clients meanwhile).
    ValueError for an unknown client name, before anything is read.
    """
    home = home or Path.home()
    environ = os.environ if environ is None else environ
    wanted = (clients or ("claude",)) + (("cursor",) if cursor else ()) + (("opencode",) if opencode else ())
    chosen = check_clients(wanted)
    launch = default_launch(home, python, hook_python, gateway_url, environ)
    manifest = _load_manifest(home)
    result = SetupResult("init", dry_run, [])
    done = _plan_clients(
        chosen, result, lambda client: [_plan_install(target, manifest) for target in BUILDERS[client](launch)]
    )
    if "opencode" in done and OPENCODE_BEFORE not in manifest:
        # What OpenCode's config folder held before mnemex's plugin made it install packages there.
        manifest[OPENCODE_BEFORE] = [*plugin_deps.snapshot(opencode_dir(home))]
    result.folders, folders, dirs = _plan_folders(manifest, tuple(done), launch.client_dir, environ)
    if not dry_run:
        _apply(home, manifest, result, folders)
        _remove_dirs(dirs)
    return result


def uninit(home: Path | None = None, *, dry_run: bool = False, clients: tuple[str, ...] = CLIENTS) -> SetupResult:
    """Remove exactly what ``init`` added for ``clients`` (as recorded in the manifest), and its backups.

    Backups: see the module docstring (a round trip on unedited files leaves none).
    The client folder (hook copies, connection file) goes when no client uses it any more.
    """
    home = home or Path.home()
    chosen = check_clients(clients)
    manifest = _load_manifest(home)
    result = SetupResult("uninit", dry_run, [])
    done = _plan_clients(chosen, result, lambda client: _plan_removals(client, manifest))
    if "opencode" in done and OPENCODE_BEFORE in manifest:
        before = manifest.pop(OPENCODE_BEFORE)
        config_dir = opencode_dir(home)
        ours = opencode_plugin_path(config_dir)
        existed = [name for name in elements(before or []) if isinstance(name, str)]  # compared with file names
        cleanup = plugin_deps.clean_up(config_dir, ours, existed, dry_run=dry_run)
        result.notes += cleanup.notes(dry_run)
    result.folders, folders, dirs = _plan_folders(manifest, tuple(done), None, os.environ)
    if not dry_run:
        _apply(home, manifest, result, folders)
        _remove_dirs(dirs)
    return result


Planned = list[tuple[FileChange, list[str]]]


def _plan_clients(chosen: tuple[str, ...], result: SetupResult, plan: Callable[[str], Planned]) -> list[str]:
    """Each client's planned changes into ``result``; returns the clients planned.

    A file that cannot be read or merged stops the whole command before anything is written; for ``init``
    the message adds how to set up the other clients meanwhile.
    """
    done: list[str] = []
    for client in chosen:
        try:
            planned = plan(client)
        except SetupError as exc:
            others = [c for c in chosen if c != client]
            if result.action != "init" or not others:
                raise
            dry = " --dry-run" if result.dry_run else ""
            rest = f"mnemex init --client {','.join(others)}{dry}"
            raise SetupError(f"{exc} Or leave {client} out for now: {rest}") from exc
        done.append(client)
        for change, notes in planned:
            result.changes.append(change)
            result.notes += notes
    return done


def _plan_removals(client: str, manifest: JSONObject) -> Planned:
    """What removing ``client``'s recorded entries does to each file ``init`` changed for it."""
    planned: Planned = []
    for raw_path, raw in _table(_table(manifest, "clients"), client).items():
        path = Path(raw_path)
        record = FileRecord.from_json(_object(raw))
        before = read_text(path)
        backup_text = read_text(Path(record.backup)) if record.backup else None
        remover = remove_file if record.content_sha256 is not None else remove_json
        merged = remover(path, before, record, backup_text)
        change = FileChange(path, f"{client} config", before, merged.after, client, None, record.created_dirs)
        change.previous = record
        change.drop_backup = not merged.left
        planned.append((change, merged.notes))
    return planned


def targets(home: Path, clients: tuple[str, ...] = CLIENTS) -> list[Target]:
    """The files ``init`` would touch for ``clients`` (for ``mnemex doctor``)."""
    return targets_for(default_launch(home), clients)
