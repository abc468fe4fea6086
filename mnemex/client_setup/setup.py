"""``mnemex init`` / ``mnemex uninit``: plan the changes, show them, apply them.

    result = init(home=Path.home(), cursor=True, dry_run=True)
    print(result.render())          # a unified diff of every file it would touch
    result = init(home=Path.home())  # writes backups, then the merged configs
    result = uninit(home=Path.home())

The manifest ``<home>/.config/mnemex/client-setup.json`` remembers exactly
what was added (per client, per file), so ``uninit`` removes that and only
that, and a second ``init`` changes nothing.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mnemex.client_setup.clients import CLIENTS, FileTarget, Launch, Target, missing_hook_scripts, targets_for
from mnemex.client_setup.files import SetupError, make_backup, read_text, write_atomic
from mnemex.client_setup.merge import FileRecord, Merged, install_file, install_json, remove_file, remove_json

MANIFEST_VERSION = 1
REPO_ROOT = Path(__file__).resolve().parents[2]


def manifest_path(home: Path) -> Path:
    return home / ".config" / "mnemex" / "client-setup.json"


@dataclass
class FileChange:
    path: Path
    label: str
    before: str | None
    after: str | None
    client: str
    record: FileRecord | None
    removed_dirs: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        old_name = str(self.path) if self.before is not None else "/dev/null"
        new_name = str(self.path) if self.after is not None else "/dev/null"
        return "".join(difflib.unified_diff(old, new, old_name, new_name))


@dataclass
class SetupResult:
    action: str
    dry_run: bool
    changes: list[FileChange]
    notes: list[str] = field(default_factory=list)
    backups: list[Path] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes)

    def diff(self) -> str:
        return "".join(c.diff() for c in self.changes if c.changed)

    def summary(self) -> str:
        verb = "would change" if self.dry_run else "changed"
        lines = [f"{c.label}: {verb} {c.path}" for c in self.changes if c.changed]
        if not lines:
            lines = [f"mnemex {self.action}: nothing to do (already up to date)"]
        lines += [f"backup: {b}" for b in self.backups]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def render(self) -> str:
        return (self.diff() + "\n" + self.summary()) if self.dry_run and self.changed else self.summary()


def _load_manifest(home: Path) -> dict[str, Any]:
    path = manifest_path(home)
    text = read_text(path)
    if text is None:
        return {"version": MANIFEST_VERSION, "clients": {}}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"{path} is corrupt ({exc.msg}); move it aside and run the command again") from exc
    if not isinstance(data, dict) or not isinstance(data.setdefault("clients", {}), dict):
        raise SetupError(f"{path} is not a mnemex manifest; move it aside and run the command again")
    return data


def _record_of(manifest: dict[str, Any], client: str, path: Path) -> FileRecord | None:
    raw = manifest["clients"].get(client, {}).get(str(path))
    return FileRecord.from_json(raw) if raw else None


def _missing_dirs(path: Path) -> tuple[str, ...]:
    missing = []
    parent = path.parent
    while not parent.exists():
        missing.append(str(parent))
        parent = parent.parent
    return tuple(reversed(missing))


def _remove_dirs(dirs: set[str]) -> None:
    """Remove directories init created, deepest first, where they are empty now."""
    for directory in sorted(dirs, key=lambda d: len(Path(d).parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty (something else lives there now) or already gone
            Path(directory).rmdir()


def _apply(changes: list[FileChange], home: Path, manifest: dict[str, Any], result: SetupResult) -> None:
    """Back up, write, delete; then save the manifest last."""
    emptied: set[str] = set()
    for change in changes:
        if not change.changed:
            continue
        record = change.record
        ours = record is not None and record.created_file  # no backup of a file init itself created
        if change.before is not None and change.after is not None and not ours:
            backup = make_backup(change.path, change.before)
            result.backups.append(backup)
            if record is not None and record.backup is None:
                record = replace(record, backup=str(backup))
        if change.after is None:
            change.path.unlink(missing_ok=True)
            emptied.update(change.removed_dirs)
        else:
            if record is not None and change.before is None:
                record = replace(record, created_dirs=_missing_dirs(change.path))
            write_atomic(change.path, change.after)
        change.record = record
    for change in changes:
        files = manifest["clients"].setdefault(change.client, {})
        if change.record is None:
            files.pop(str(change.path), None)
        else:
            files[str(change.path)] = change.record.to_json()
    manifest["clients"] = {c: f for c, f in manifest["clients"].items() if f}
    path = manifest_path(home)
    if manifest["clients"]:
        write_atomic(path, json.dumps(manifest, indent=2) + "\n")
    else:
        path.unlink(missing_ok=True)
        emptied.add(str(path.parent))
    _remove_dirs(emptied)


def default_launch(
    home: Path, python: str | None = None, repo: Path | None = None, gateway_url: str | None = None
) -> Launch:
    if gateway_url is None:
        from kernel.config import Settings

        gateway_url = Settings.from_env().gateway_url
    return Launch(home=home, python=python or sys.executable, repo=repo or REPO_ROOT, gateway_url=gateway_url)


def init(
    home: Path | None = None,
    *,
    cursor: bool = False,
    opencode: bool = False,
    dry_run: bool = False,
    python: str | None = None,
    repo: Path | None = None,
    gateway_url: str | None = None,
) -> SetupResult:
    """Install mnemex into Claude Code (always), and Cursor / OpenCode when asked."""
    home = home or Path.home()
    launch = default_launch(home, python, repo, gateway_url)
    clients = ("claude",) + (("cursor",) if cursor else ()) + (("opencode",) if opencode else ())
    manifest = _load_manifest(home)
    result = SetupResult("init", dry_run, [])
    for missing in missing_hook_scripts(launch, clients):
        result.notes.append(f"hook script {missing} does not exist; is the repository complete?")
    for target in targets_for(launch, clients):
        before = read_text(target.path)
        previous = _record_of(manifest, target.client, target.path)
        merged: Merged
        if isinstance(target, FileTarget):
            merged = install_file(target.path, before, previous, target.content)
        else:
            merged = install_json(target.path, before, previous, target.entries)
        result.notes += merged.notes
        result.changes.append(FileChange(target.path, target.label, before, merged.after, target.client, merged.record))
    if not dry_run:
        _apply(result.changes, home, manifest, result)
    return result


def uninit(home: Path | None = None, *, dry_run: bool = False, clients: tuple[str, ...] = CLIENTS) -> SetupResult:
    """Remove exactly what ``init`` added (as recorded in the manifest)."""
    home = home or Path.home()
    manifest = _load_manifest(home)
    result = SetupResult("uninit", dry_run, [])
    for client in clients:
        for raw_path, raw in manifest["clients"].get(client, {}).items():
            path = Path(raw_path)
            record = FileRecord.from_json(raw)
            before = read_text(path)
            backup_text = read_text(Path(record.backup)) if record.backup else None
            remover = remove_file if record.content_sha256 is not None else remove_json
            merged = remover(path, before, record, backup_text)
            result.notes += merged.notes
            result.changes.append(
                FileChange(path, f"{client} config", before, merged.after, client, None, record.created_dirs)
            )
    if not dry_run:
        _apply(result.changes, home, manifest, result)
    return result


def targets(home: Path, clients: tuple[str, ...] = CLIENTS) -> list[Target]:
    """The files ``init`` would touch for ``clients`` (for ``mnemex doctor``)."""
    return targets_for(default_launch(home), clients)
