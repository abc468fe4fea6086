"""What ``init`` / ``uninit`` changed (or would change): per-file changes and the rendered report."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from mnemex.client_setup.hook_install import ClientFolder
from mnemex.client_setup.merge import FileRecord


@dataclass
class FileChange:
    path: Path
    label: str
    before: str | None
    after: str | None
    client: str
    record: FileRecord | None  # what the manifest holds for the file afterwards
    removed_dirs: tuple[str, ...] = ()
    previous: FileRecord | None = None  # what the manifest held before
    drop_backup: bool = False  # uninit put the file back exactly as init's backup holds it

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
    backups: list[Path] = field(default_factory=list)  # backups written
    removed_backups: list[Path] = field(default_factory=list)
    folders: list[ClientFolder] = field(default_factory=list)  # hook copies + connection file
    skipped: dict[str, str] = field(default_factory=dict)  # client -> why it was left alone

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes) or any(f.changed for f in self.folders)

    def diff(self) -> str:
        # The client folder is left out: the hook sources are long, and the connection file may hold a token.
        return "".join(c.diff() for c in self.changes if c.changed)

    def summary(self) -> str:
        verb = "would change" if self.dry_run else "changed"
        lines = [f"{c.label}: {verb} {c.path}" for c in self.changes if c.changed]
        for folder in self.folders:
            lines += folder.summary(self.dry_run)
        if not lines:
            lines = [f"mnemex {self.action}: nothing to do (already up to date)"]
        lines += [f"backup: {b}" for b in self.backups]
        lines += [f"removed backup: {b}" for b in self.removed_backups]
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"skipped {client}: {why}" for client, why in self.skipped.items()]
        return "\n".join(lines)

    def render(self) -> str:
        return (self.diff() + "\n" + self.summary()) if self.dry_run and self.changed else self.summary()
