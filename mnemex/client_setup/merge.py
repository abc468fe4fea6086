"""Pure merge/unmerge of one config file: old text + manifest record -> new text.

``install_json`` first undoes what the previous ``init`` recorded for the
file, then applies the wanted entries, so running ``init`` twice changes
nothing and a changed interpreter path replaces the old entry instead of
adding a second one. ``remove_json`` undoes the record. A JSONC file
(OpenCode's) is edited in place both ways (``jsonc_edit``), so its comments
and layout stay; a plain JSON file is written out afresh, or, when it is back
to exactly what init's backup holds, gets the backup's text, so the original
formatting comes back byte for byte.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import JSONObject, JSONValue
from mnemex.client_setup.files import SetupError, parse_object, render_object
from mnemex.client_setup.jsonc import has_comments
from mnemex.client_setup.jsondoc import Applied, DocumentConflict, Entry, apply_all, describe, elements, undo


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class FileRecord:
    """What the manifest remembers about one file mnemex changed."""

    created_file: bool
    backup: str | None = None
    applied: tuple[Applied, ...] = ()
    content_sha256: str | None = None  # whole-file targets (the OpenCode plugin)
    created_dirs: tuple[str, ...] = ()  # parent directories init had to create, deepest last
    jsonc: bool = False  # the file is JSON with comments / trailing commas (OpenCode)

    def to_json(self) -> JSONObject:
        data: JSONObject = {"created_file": self.created_file, "backup": self.backup}
        if self.created_dirs:
            data["created_dirs"] = list(self.created_dirs)
        if self.jsonc:
            data["jsonc"] = True
        if self.content_sha256 is not None:
            data["content_sha256"] = self.content_sha256
        else:
            data["applied"] = [a.to_json() for a in self.applied]
        return data

    @classmethod
    def from_json(cls, data: JSONObject) -> FileRecord:
        """The record ``to_json`` wrote; KeyError, TypeError or ValueError for a malformed one."""
        return cls(
            created_file=bool(data.get("created_file")),
            backup=_optional_str(data, "backup"),
            applied=tuple(Applied.from_json(_record(a)) for a in elements(data.get("applied", []))),
            content_sha256=_optional_str(data, "content_sha256"),
            created_dirs=tuple(str(d) for d in elements(data.get("created_dirs", []))),
            jsonc=bool(data.get("jsonc")),
        )


def _optional_str(data: JSONObject, key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{key} is {type(value).__name__}, expected a string")
    return value


def _record(value: JSONValue) -> JSONObject:
    if not isinstance(value, dict):
        raise TypeError(f"an applied entry is {type(value).__name__}, expected an object")
    return value


@dataclass
class Merged:
    after: str | None
    record: FileRecord | None
    notes: list[str] = field(default_factory=list)
    left: bool = False  # uninit: something mnemex added stays in the file (edited since)


def install_json(
    path: Path, before: str | None, previous: FileRecord | None, entries: tuple[Entry, ...], *, jsonc: bool = False
) -> Merged:
    doc = parse_object(path, before, jsonc=jsonc)
    original = copy.deepcopy(doc)
    notes: list[str] = []
    if previous is not None:
        report = undo(doc, list(previous.applied))
        notes += [f"{path}: kept your edited '{describe(e.path)}'" for e in report.kept_modified]
    try:
        applied = apply_all(doc, list(entries))
    except DocumentConflict as exc:
        raise SetupError(
            f"{path}: {exc}; mnemex will not rewrite it. Fix that entry, then run the command again."
        ) from exc
    after = before if doc == original else render_object(path, before, doc, jsonc=jsonc)
    created = previous.created_file if previous is not None else before is None
    backup = previous.backup if previous is not None else None
    dirs = previous.created_dirs if previous is not None else ()
    record = FileRecord(created, backup, tuple(applied), created_dirs=dirs, jsonc=jsonc) if applied else None
    return Merged(after, record, notes)


def remove_json(path: Path, before: str | None, record: FileRecord, backup_text: str | None) -> Merged:
    """``before`` without mnemex's recorded entries: edited in place, so the user's other content stays as it is."""
    if before is None:
        return Merged(None, None, [f"{path} no longer exists; nothing to remove"])
    doc = parse_object(path, before, jsonc=record.jsonc)
    original = copy.deepcopy(doc)
    report = undo(doc, list(record.applied))
    notes = [
        f"{path}: left '{describe(e.path)}' in place because it was edited after init" for e in report.kept_modified
    ]
    left = bool(report.kept_modified)
    if doc == original:
        return Merged(before, None, notes, left)
    if record.created_file and not doc:
        return Merged(None, None, notes, left)
    if backup_text is not None and not has_comments(before):
        # Written by an older mnemex that reformatted the file: the backup has the user's own layout.
        try:
            if parse_object(path, backup_text, jsonc=record.jsonc) == doc:
                return Merged(backup_text, None, notes, left)
        except (ValueError, SetupError):
            pass
    return Merged(render_object(path, before, doc, jsonc=record.jsonc), None, notes, left)


def install_file(path: Path, before: str | None, previous: FileRecord | None, content: str) -> Merged:
    created = previous.created_file if previous is not None else before is None
    backup = previous.backup if previous is not None else None
    dirs = previous.created_dirs if previous is not None else ()
    return Merged(content, FileRecord(created, backup, content_sha256=sha256(content), created_dirs=dirs))


def remove_file(path: Path, before: str | None, record: FileRecord, backup_text: str | None) -> Merged:
    if before is None:
        return Merged(None, None)
    if record.content_sha256 != sha256(before):
        note = f"{path} was edited after init; left in place (delete it yourself if unwanted)"
        return Merged(before, None, [note], left=True)
    if record.created_file or backup_text is None:
        return Merged(None, None)
    return Merged(backup_text, None)
