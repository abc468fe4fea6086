"""The mnemex export format: JSONL, one object per line. Plain module.

    {"type": "header", "format": "mnemex-export", "version": 1, "mnemex": "0.1.0", "exported_at": ...}
    {"type": "memory", "record": {<the memory service's Export record: scope, collection, id, content, metadata>}}
    {"type": "kg", "scope": {"user": ..., "project": ...}, "graph": {<kg Export JSON, or Roampal's layout>},
     "when": "empty"}   # optional: merge only into a scope whose graph is still empty
    {"type": "end", "memories": N, "graphs": M}

The ``end`` line lets a reader tell a complete export from a cut one; an
export that fails half-way ends with ``{"type": "error", "error": ...}``.
On import, a record or graph without a scope goes to the caller's project;
the user is always the importer's own. With ``keep_user`` a record that
names another user is rejected (counted as invalid) instead of adopted.
``classify_line`` reads one line; one bad line never stops an import.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict, dataclass, field

from gateway.gateway_errors import InvalidInput
from gateway.safe_json import UnrepresentableNumber, decode_json
from kernel.json_values import JSONObject, JSONValue

FORMAT_NAME = "mnemex-export"
FORMAT_VERSION = 1
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_REPORTED_ERRORS = 10


@dataclass
class ImportTally:
    imported: int = 0
    skipped_existing: int = 0
    invalid: int = 0
    graphs: int = 0
    graphs_skipped: int = 0
    kg_nodes: int = 0
    kg_edges: int = 0
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    def reject(self, number: int, why: str) -> None:
        self.invalid += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(f"line {number}: {why}")


def encode_line(obj: Mapping[str, object]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def scope_key(scope: object) -> tuple[str, str] | None:
    if isinstance(scope, dict):
        user = scope.get("user")
        if isinstance(user, str):
            return user, str(scope.get("project") or "")
    return None


class ForeignUser(ValueError):
    """A record kept its user, and that user is not the importer's."""


class _Rejected(ValueError):
    pass


def _scope(given: object, default: Mapping[str, str], keep_user: bool) -> JSONObject:
    key = scope_key(given)
    if key is None:
        return {**default}
    if keep_user and key[0] != default["user"]:
        raise ForeignUser(
            f"belongs to user {key[0]!r}; this gateway imports only into its own user {default['user']!r} "
            "(drop keep_user to import it as yours, or import it through that user's gateway)"
        )
    return {"user": default["user"], "project": key[1]}


def _header_version(obj: JSONObject) -> int:
    version = obj.get("version", 0) or 0
    try:
        if not isinstance(version, (str, int, float)):
            raise TypeError(f"version is a {type(version).__name__}")
        return int(version)
    except (TypeError, ValueError):
        return FORMAT_VERSION + 1  # unreadable: treat as a format this build does not know


def classify_line(
    raw: bytes, number: int, default: dict[str, str], *, keep_user: bool, tally: ImportTally
) -> JSONObject | None:
    """One JSONL line -> ``{"type": "memory", "record"}`` / ``{"type": "kg", "scope", "graph"}`` or None.

    Header and end lines and blank lines give None; malformed lines are counted
    in ``tally`` with a reason and give None, so one bad line never stops an import.
    A lone surrogate in a string becomes U+FFFD; a number JSON cannot carry
    (NaN, Infinity, 1e400) rejects the line, naming where it is.
    """
    text = raw.strip()
    if not text:
        return None
    if len(text) > MAX_LINE_BYTES:
        tally.reject(number, f"longer than {MAX_LINE_BYTES:,} bytes")
        return None
    try:
        obj = decode_json(text)
    except UnrepresentableNumber as exc:
        tally.reject(number, str(exc))
        return None
    except ValueError as exc:
        tally.reject(number, f"not JSON ({exc})")
        return None
    if not isinstance(obj, dict):
        tally.reject(number, "not a JSON object")
        return None
    kind = obj.get("type", "memory")
    if kind == "header":
        if obj.get("format") != FORMAT_NAME or _header_version(obj) > FORMAT_VERSION:
            raise InvalidInput(f"line {number}: not a {FORMAT_NAME} v{FORMAT_VERSION} file (header {obj!r:.200})")
        return None
    if kind in ("end", "error"):
        return None
    try:
        return _classify_record(obj, kind, default, keep_user)
    except (ForeignUser, _Rejected) as exc:
        tally.reject(number, str(exc))
        return None


def _classify_record(obj: JSONObject, kind: JSONValue, default: dict[str, str], keep_user: bool) -> JSONObject:
    if kind == "kg":
        if not isinstance(obj.get("graph"), dict):
            raise _Rejected("kg line without a 'graph' object")
        return {
            "type": "kg",
            "scope": _scope(obj.get("scope"), default, keep_user),
            "graph": obj["graph"],
            "when": "empty" if obj.get("when") == "empty" else "always",
        }
    if kind != "memory":
        raise _Rejected(f"unknown line type {kind!r:.80}")
    record = obj.get("record", obj)
    if not isinstance(record, dict) or not isinstance(record.get("content"), str) or not record.get("collection"):
        raise _Rejected("memory record needs 'collection' and 'content'")
    record = {k: v for k, v in record.items() if k != "type"}
    record["scope"] = _scope(record.get("scope"), default, keep_user)
    return {"type": "memory", "record": record}


async def jsonl_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Split a streamed body into lines; a line over ``MAX_LINE_BYTES`` stops it with InvalidInput."""
    buffer = b""
    async for chunk in chunks:
        buffer += chunk
        if len(buffer) > MAX_LINE_BYTES and b"\n" not in buffer:
            raise InvalidInput(f"a JSONL line is longer than {MAX_LINE_BYTES:,} bytes; split the record")
        *complete, buffer = buffer.split(b"\n")
        for line in complete:
            yield line
    if buffer:
        yield buffer
