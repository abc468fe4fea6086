"""Export and import of every memory with its full metadata (and embedding).

One JSON object per memory::

    {"format": "mnemex.memory/1", "scope": {"user": "...", "project": "..."},
     "collection": "history", "id": "history_<hex>", "content": "...",
     "metadata": {...every stored key...}, "embedding": "<base64 float32 LE>", "dim": 384}

memory_bank records carry ``project: ""`` (they belong to the user). Import
is idempotent: a record whose id (or uid) already exists in its scope is
skipped, so replaying an export, or a half-finished import, is safe.
Content and string metadata are redacted on the way in; an embedding of the
wrong dimension (or none) is recomputed from the content.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernel.privacy import redact
from services.memory import timefmt
from services.memory.errors import MemoryServiceError
from services.memory.naming import (
    COLLECTIONS,
    DEFAULT_PROJECT,
    USER_WIDE_PROJECT,
    Scope,
    check_id,
    make_scope,
    memory_id,
    new_uid,
    split_id,
)
from services.memory.normalize import created_at_of
from services.memory.runtime import Runtime
from services.memory.store import SCAN_PAGE, StoredMemory
from services.memory.write_rules import clean_content

FORMAT = "mnemex.memory/1"
IMPORT_BATCH = 256
MAX_RECORD_CHARS = 400_000


@dataclass
class ImportReport:
    imported: int = 0
    skipped_existing: int = 0
    invalid: int = 0


async def _owner_collections(rt: Runtime, scope: Scope | None) -> list[tuple[Scope, str]]:
    owners = await rt.io(rt.store.owner_scopes)
    if scope is None:
        return sorted(owners, key=lambda item: (item[0].user, item[0].project, item[1]))
    picked = []
    for owner, collection in owners:
        if owner.user != scope.user:
            continue
        if scope.project and owner.project not in (scope.project, USER_WIDE_PROJECT):
            continue
        picked.append((owner, collection))
    return sorted(picked, key=lambda item: (item[0].project, item[1]))


def record_json(owner: Scope, memory: StoredMemory) -> str:
    record: dict[str, Any] = {
        "format": FORMAT,
        "scope": {"user": owner.user, "project": owner.project},
        "collection": memory.collection,
        "id": memory.id,
        "content": memory.document,
        "metadata": memory.metadata,
    }
    if memory.embedding is not None:
        vector = np.ascontiguousarray(memory.embedding, dtype="<f4")
        record["embedding"] = base64.b64encode(vector.tobytes()).decode("ascii")
        record["dim"] = int(vector.shape[0])
    return json.dumps(record, ensure_ascii=False, default=str)


async def export_records(rt: Runtime, scope: Scope | None) -> AsyncIterator[str]:
    """Every memory of ``scope`` (a user's projects when project is empty; all when None)."""
    for owner, collection in await _owner_collections(rt, scope):
        # the owner scope reads its own collection: for memory_bank, project "" maps to the user
        reader = owner if owner.project else Scope(owner.user, DEFAULT_PROJECT)
        offset = 0
        while True:
            rows = await rt.io(rt.store.page, reader, collection, offset, SCAN_PAGE, embeddings=True)
            for row in rows:
                yield record_json(owner, row)
            if len(rows) < SCAN_PAGE:
                break
            offset += SCAN_PAGE


class _Invalid(ValueError):
    pass


def _parse(rt: Runtime, line: str) -> tuple[Scope, StoredMemory]:
    if len(line) > MAX_RECORD_CHARS:
        raise _Invalid("record too large")
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _Invalid(str(exc)) from None
    if not isinstance(data, dict):
        raise _Invalid("record is not an object")
    collection = data.get("collection")
    if collection not in COLLECTIONS:
        raise _Invalid("unknown collection")
    raw_scope = data.get("scope") or {}
    try:
        scope = make_scope(str(raw_scope.get("user") or ""), str(raw_scope.get("project") or ""), rt.settings.default_user)
        content = clean_content(str(data.get("content") or ""), rt.settings.max_content_chars)
        record_id = check_id(str(data["id"])) if data.get("id") else memory_id(collection, new_uid())
    except MemoryServiceError as exc:
        raise _Invalid(str(exc)) from None
    meta_in = data.get("metadata") or {}
    if not isinstance(meta_in, dict):
        raise _Invalid("metadata is not an object")
    meta: dict[str, Any] = {}
    for key, value in list(meta_in.items())[:64]:
        if isinstance(value, str):
            meta[str(key)] = redact(value)
        elif isinstance(value, bool | int | float):
            meta[str(key)] = value
        elif isinstance(value, list):
            meta[str(key)] = json.dumps([redact(v) if isinstance(v, str) else v for v in value])
    meta.pop("content", None)
    meta.pop("text", None)
    created = created_at_of(meta) or rt.now()
    meta["created_at"] = timefmt.to_iso(created)
    meta["created_ts"] = created.timestamp()
    meta.setdefault("project", scope.project)
    embedding = None
    if isinstance(data.get("embedding"), str):
        try:
            vector = np.frombuffer(base64.b64decode(data["embedding"], validate=True), dtype="<f4").astype(np.float32)
        except (binascii.Error, ValueError):
            vector = None
        if vector is not None and vector.shape == (rt.settings.vector_dim,) and np.all(np.isfinite(vector)):
            norm = float(np.linalg.norm(vector))
            embedding = vector / norm if norm > 0 else None
    return scope, StoredMemory(record_id, collection, content, meta, embedding)


async def _existing_uids(rt: Runtime, scope: Scope, memories: list[StoredMemory]) -> set[str]:
    """Uids (or raw ids) among ``memories`` already stored in any collection of the scope."""
    probes: dict[str, list[str]] = {c: [] for c in COLLECTIONS}
    for memory in memories:
        prefix, uid = split_id(memory.id)
        for collection in COLLECTIONS:
            probes[collection].append(memory_id(collection, uid) if prefix is not None else memory.id)
    found: set[str] = set()
    for collection, ids in probes.items():
        for row in await rt.io(rt.store.get, scope, collection, ids):
            found.add(split_id(row.id)[1] if split_id(row.id)[0] is not None else row.id)
    return found


def _uid_key(memory: StoredMemory) -> str:
    prefix, uid = split_id(memory.id)
    return uid if prefix is not None else memory.id


async def import_records(rt: Runtime, lines: AsyncIterator[str]) -> ImportReport:
    report = ImportReport()
    batch: list[tuple[Scope, StoredMemory]] = []
    seen: set[tuple[str, str, str]] = set()

    async def flush() -> None:
        groups: dict[Scope, list[StoredMemory]] = {}
        for scope, memory in batch:
            groups.setdefault(scope, []).append(memory)
        batch.clear()
        for scope, memories in groups.items():
            existing = await _existing_uids(rt, scope, memories)
            fresh = [m for m in memories if _uid_key(m) not in existing]
            report.skipped_existing += len(memories) - len(fresh)
            need = [m for m in fresh if m.embedding is None]
            if need:
                vectors = await rt.embed([m.document for m in need])
                for memory, vector in zip(need, vectors, strict=True):
                    memory.embedding = vector
            await rt.add(scope, fresh)
            report.imported += len(fresh)

    async for line in lines:
        try:
            scope, memory = _parse(rt, line)
        except _Invalid:
            report.invalid += 1
            continue
        owner = scope.owner_of(memory.collection)
        key = (owner.user, owner.project, _uid_key(memory))
        if key in seen:
            report.skipped_existing += 1
            continue
        seen.add(key)
        batch.append((scope, memory))
        if len(batch) >= IMPORT_BATCH:
            await flush()
    if batch:
        await flush()
    return report
