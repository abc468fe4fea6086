"""What ``init`` / ``uninit`` changed (or would change): per-file changes and the rendered report."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import JSONArray, JSONObject
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
    drop_backup: bool = False  # uninit took all of mnemex out of the file: init's backup can go

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def deleted(self) -> bool:
        return self.before is not None and self.after is None

    def outcome(self, dry_run: bool) -> str:
        """What ``uninit`` did to the file, in words ("removed mnemex's hooks from <file>")."""
        verb = "would remove" if dry_run else "removed"
        if self.deleted:
            return f"{verb} {self.path} (mnemex created it)"
        record = self.previous
        if record is not None and record.content_sha256 is not None:
            return f"{'would put' if dry_run else 'put'} back {self.path} as it was before mnemex's init"
        return f"{verb} mnemex's {_what(record)} from {self.path}"

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
    skipped: dict[str, str] = field(default_factory=dict)  # client -> why it was left alone (none today)

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes) or any(f.changed for f in self.folders)

    def diff(self) -> str:
        # The client folder is left out: the hook sources are long, and the connection file may hold a token.
        return "".join(c.diff() for c in self.changes if c.changed)

    def summary(self) -> str:
        verb = "would change" if self.dry_run else "changed"
        if self.action == "init":
            lines = [f"{c.label}: {verb} {c.path}" for c in self.changes if c.changed]
        else:
            lines = [f"{c.label}: {c.outcome(self.dry_run)}" for c in self.changes if c.changed]
        for folder in self.folders:
            lines += folder.summary(self.dry_run)
        if not lines:
            lines = [f"mnemex {self.action}: nothing to do (already up to date)"]
        lines += [f"backup: {b} (the file as it was; mnemex uninit removes it)" for b in self.backups]
        lines += [f"removed backup: {b}" for b in self.removed_backups]
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"skipped {client}: {why}" for client, why in self.skipped.items()]
        return "\n".join(lines)

    def render(self) -> str:
        return (self.diff() + "\n" + self.summary()) if self.dry_run and self.changed else self.summary()

    def as_json(self) -> JSONObject:
        """What ``--json`` prints: each file changed, the hook folders, backups and notes (never a diff of the
        connection file, which may hold a token)."""
        files: JSONArray = [
            {
                "client": c.client,
                "label": c.label,
                "path": str(c.path),
                "deleted": c.deleted,
                "created": c.before is None,
                **({"outcome": c.outcome(self.dry_run)} if self.action != "init" else {}),
            }
            for c in self.changes
            if c.changed
        ]
        return {
            "action": self.action,
            "dry_run": self.dry_run,
            "changed": self.changed,
            "files": files,
            "folders": [line for folder in self.folders for line in folder.summary(self.dry_run)],
            "backups": [str(b) for b in self.backups],
            "removed_backups": [str(b) for b in self.removed_backups],
            "notes": list(self.notes),
            "skipped": dict(self.skipped),
            **({"diff": self.diff()} if self.dry_run else {}),
        }


# The first key of an entry's path, as a user would name it.
_NAMES = {"hooks": "hooks", "permissions": "tool permissions", "mcpServers": "MCP server", "mcp": "MCP server"}


def _what(record: FileRecord | None) -> str:
    """``hooks and tool permissions``: what the record's entries are."""
    names: list[str] = []
    for applied in record.applied if record is not None else ():
        name = _NAMES.get(applied.entry.path[0], "") if applied.entry.path else ""
        if name and name not in names:
            names.append(name)
    if not names:
        return "entries"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
