"""Pure edits of a parsed JSON document that can be undone exactly.

``mnemex init`` never rewrites a client's config wholesale. It describes
each thing it wants as an :class:`Entry`:

- ``key``: set ``doc[path]`` to a value (an existing different value is
  replaced and remembered, so ``uninit`` can put it back);
- ``item``: make sure the list at ``path`` contains a value (appended once);
- ``default``: set ``doc[path]`` only when it is missing (e.g. Cursor's
  ``"version": 1``); removed again only if nothing else is left beside it.

:func:`apply_entry` returns an :class:`Applied` record of what really
changed (``None`` when the document already had it: a value the user put
there is never claimed as ours), and :func:`undo` reverses one record,
pruning the containers it had to create. No I/O here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Literal

from kernel.json_values import JSONArray, JSONObject, JSONValue

Path = tuple[str, ...]
EntryKind = Literal["key", "item", "default"]
ENTRY_KINDS: tuple[EntryKind, ...] = ("key", "item", "default")


class DocumentConflict(ValueError):
    """The document has a shape we cannot merge into (e.g. a list where an object belongs)."""


@dataclass(frozen=True)
class Entry:
    kind: EntryKind
    path: Path
    value: JSONValue


@dataclass(frozen=True)
class Applied:
    """One change made to a document, with what is needed to undo it."""

    entry: Entry
    created: tuple[Path, ...] = ()
    had_previous: bool = False
    previous: JSONValue = None

    def to_json(self) -> JSONObject:
        data: JSONObject = {
            "kind": self.entry.kind,
            "path": list(self.entry.path),
            "value": self.entry.value,
            "created": [list(p) for p in self.created],
        }
        if self.had_previous:
            data["previous"] = self.previous
        return data

    @classmethod
    def from_json(cls, data: JSONObject) -> Applied:
        """The record ``to_json`` wrote; KeyError, TypeError or ValueError for a malformed one."""
        kind = next((k for k in ENTRY_KINDS if k == data["kind"]), None)
        if kind is None:
            raise ValueError(f"unknown entry kind {data['kind']!r}")
        return cls(
            entry=Entry(kind, tuple(str(p) for p in elements(data["path"])), data.get("value")),
            created=tuple(tuple(str(p) for p in elements(c)) for c in elements(data.get("created", []))),
            had_previous="previous" in data,
            previous=data.get("previous"),
        )


@dataclass
class UndoReport:
    removed: list[Entry] = field(default_factory=list)
    kept_modified: list[Entry] = field(default_factory=list)


def describe(path: Path) -> str:
    return ".".join(path) if path else "(top level)"


def elements(value: JSONValue) -> list[JSONValue]:
    """What ``for _ in value`` walks: an array's items, a string's characters, an object's keys.

    TypeError for a number, a boolean or null, as that loop would raise."""
    if isinstance(value, list | str | dict):
        return [item for item in value]  # a string gives its characters, an object its keys
    raise TypeError(f"'{type(value).__name__}' object is not iterable")


def _container(doc: JSONObject, path: Path, leaf_is_list: bool, created: list[Path]) -> JSONValue:
    """Walk to ``path``, creating objects (and a final list, with ``leaf_is_list``) where missing."""
    node: JSONValue = doc
    for depth, part in enumerate(path):
        want_list = leaf_is_list and depth == len(path) - 1
        if not isinstance(node, dict):
            raise DocumentConflict(f"'{describe(path[:depth])}' is not a JSON object")
        if part not in node:
            node[part] = [] if want_list else {}
            created.append(path[: depth + 1])
        elif not isinstance(node[part], list if want_list else dict):
            kind = "a list" if want_list else "an object"
            raise DocumentConflict(f"'{describe(path[: depth + 1])}' is {type(node[part]).__name__}, expected {kind}")
        node = node[part]
    return node


def _list_at(doc: JSONObject, path: Path, created: list[Path]) -> JSONArray:
    """The list at ``path``, created (with the objects above it) where missing."""
    node = _container(doc, path, True, created)
    if not isinstance(node, list):
        raise DocumentConflict(f"'{describe(path)}' is {type(node).__name__}, expected a list")
    return node


def _object_at(doc: JSONObject, path: Path, created: list[Path]) -> JSONObject:
    """The object at ``path``, created (with the objects above it) where missing."""
    node = _container(doc, path, False, created)
    if not isinstance(node, dict):
        raise DocumentConflict(f"'{describe(path)}' is {type(node).__name__}, expected an object")
    return node


def _lookup(doc: JSONValue, path: Path) -> tuple[bool, JSONValue]:
    node = doc
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def apply_entry(doc: JSONObject, entry: Entry) -> Applied | None:
    """Apply ``entry`` to ``doc`` in place; ``None`` when nothing had to change."""
    created: list[Path] = []
    if entry.kind == "item":
        found, current = _lookup(doc, entry.path)
        if found and isinstance(current, list) and entry.value in current:
            return None
        target = _list_at(doc, entry.path, created)
        target.append(copy.deepcopy(entry.value))
        return Applied(entry, tuple(created))
    parent = _object_at(doc, entry.path[:-1], created)
    key = entry.path[-1]
    if key in parent:
        if entry.kind == "default" or parent[key] == entry.value:
            return None
        previous = copy.deepcopy(parent[key])
        parent[key] = copy.deepcopy(entry.value)
        return Applied(entry, tuple(created), had_previous=True, previous=previous)
    parent[key] = copy.deepcopy(entry.value)
    return Applied(entry, tuple(created))


def _prune(doc: JSONObject, created: tuple[Path, ...]) -> None:
    """Remove containers we created, deepest first, if they ended up empty."""
    for path in sorted(created, key=len, reverse=True):
        found, node = _lookup(doc, path)
        if found and isinstance(node, (dict, list)) and not node:
            _, parent = _lookup(doc, path[:-1])
            if isinstance(parent, dict):
                del parent[path[-1]]


def undo(doc: JSONObject, applied: list[Applied]) -> UndoReport:
    """Reverse ``applied`` (in reverse order) in place.

    A value the user changed since we wrote it is left alone and reported,
    so ``uninit`` never destroys someone's edit.
    """
    report = UndoReport()
    ordered = sorted(reversed(applied), key=lambda a: a.entry.kind == "default")
    for record in ordered:
        entry = record.entry
        if entry.kind == "item":
            found, current = _lookup(doc, entry.path)
            if found and isinstance(current, list) and entry.value in current:
                current.remove(entry.value)
                report.removed.append(entry)
            else:
                report.kept_modified.append(entry)
            _prune(doc, record.created)
            continue
        found, current = _lookup(doc, entry.path)
        if not found or current != entry.value:
            report.kept_modified.append(entry)
            _prune(doc, record.created)
            continue
        _, parent = _lookup(doc, entry.path[:-1])
        assert isinstance(parent, dict)  # the entry was found, so what holds it is an object
        if entry.kind == "default":
            siblings = [k for k in parent if k != entry.path[-1]]
            if siblings:
                continue
        if record.had_previous:
            parent[entry.path[-1]] = copy.deepcopy(record.previous)
        else:
            del parent[entry.path[-1]]
        report.removed.append(entry)
        _prune(doc, record.created)
    return report


def apply_all(doc: JSONObject, entries: list[Entry]) -> list[Applied]:
    records = []
    for entry in entries:
        record = apply_entry(doc, entry)
        if record is not None:
            records.append(record)
    return records
