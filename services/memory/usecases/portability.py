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
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from kernel.privacy import redact
from services.memory.domain.arrays import Vector
from services.memory.domain.memory_errors import MemoryServiceError
from services.memory.domain.naming import (
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
from services.memory.domain.write_rules import clean_content
from services.memory.retrieval.embedding_calls import Vectors
from services.memory.storage.chroma_store import SCAN_PAGE, StoredRow
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.record_codec import imported_metadata

FORMAT = "mnemex.memory/1"
IMPORT_BATCH = 256
MAX_RECORD_CHARS = 400_000
MAX_METADATA_KEYS = 64


@dataclass
class ImportReport:
    imported: int = 0
    skipped_existing: int = 0
    invalid: int = 0


class _Invalid(ValueError):
    pass


def record_json(owner: Scope, row: StoredRow) -> str:
    record: dict[str, object] = {
        "format": FORMAT,
        "scope": {"user": owner.user, "project": owner.project},
        "collection": row.collection,
        "id": row.id,
        "content": row.document,
        "metadata": row.metadata,
    }
    if row.embedding is not None:
        vector = np.ascontiguousarray(row.embedding, dtype="<f4")
        record["embedding"] = base64.b64encode(vector.tobytes()).decode("ascii")
        record["dim"] = int(vector.shape[0])
    return json.dumps(record, ensure_ascii=False, default=str)


def _uid_key(row: StoredRow) -> str:
    prefix, uid = split_id(row.id)
    return uid if prefix is not None else row.id


def _redacted(given: Mapping[object, object]) -> dict[str, object]:
    """The first ``MAX_METADATA_KEYS`` entries with every string redacted, in lists too (the record
    codec decides what of it is stored: ``imported_metadata``)."""
    return {
        str(key): redact(value)
        if isinstance(value, str)
        else [redact(v) if isinstance(v, str) else v for v in value]
        if isinstance(value, list)
        else value
        for key, value in list(given.items())[:MAX_METADATA_KEYS]
    }


def _embedding(data: Mapping[str, object], dim: int) -> Vector | None:
    """The record's embedding when it is a finite, non-zero vector of this service's dimension."""
    encoded = data.get("embedding")
    if not isinstance(encoded, str):
        return None
    try:
        vector = np.frombuffer(base64.b64decode(encoded, validate=True), dtype="<f4").astype(np.float32)
    except (binascii.Error, ValueError):
        return None
    if vector.shape != (dim,) or not np.all(np.isfinite(vector)):
        return None
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else None


class Portability:
    def __init__(
        self,
        store: MemoryStore,
        vectors: Vectors,
        *,
        default_user: str,
        max_content_chars: int,
        clock: Callable[[], datetime],
        check_owner: Callable[[str], None] | None = None,
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._check_owner = check_owner  # a sharded service refuses records of users it does not own
        self._default_user = default_user
        self._max_content_chars = max_content_chars
        self._clock = clock

    async def _owner_collections(self, scope: Scope | None) -> list[tuple[Scope, str]]:
        owners = await self._store.owner_scopes()
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

    async def export(self, scope: Scope | None) -> AsyncIterator[str]:
        """Every memory of ``scope`` (a user's projects when project is empty; all when None)."""
        for owner, collection in await self._owner_collections(scope):
            # the owner scope reads its own collection: for memory_bank, project "" maps to the user
            reader = owner if owner.project else Scope(owner.user, DEFAULT_PROJECT)
            offset = 0
            while True:
                rows = await self._store.page_rows(reader, collection, offset, SCAN_PAGE)
                for row in rows:
                    yield record_json(owner, row)
                if len(rows) < SCAN_PAGE:
                    break
                offset += SCAN_PAGE

    def _parse(self, line: str) -> tuple[Scope, StoredRow]:
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
        if not isinstance(raw_scope, dict):
            raise _Invalid("scope is not an object")
        try:
            scope = make_scope(
                str(raw_scope.get("user") or ""), str(raw_scope.get("project") or ""), self._default_user
            )
            content = clean_content(str(data.get("content") or ""), self._max_content_chars)
            record_id = check_id(str(data["id"])) if data.get("id") else memory_id(collection, new_uid())
        except MemoryServiceError as exc:
            raise _Invalid(str(exc)) from None
        if self._check_owner is not None:
            self._check_owner(scope.user)  # NotThisShard ends the import: the row would be invisible here
        given = data.get("metadata") or {}
        if not isinstance(given, dict):
            raise _Invalid("metadata is not an object")
        meta = imported_metadata(_redacted(given), project=scope.project, now=self._clock())
        return scope, StoredRow(record_id, collection, content, meta, _embedding(data, self._vectors.dim))

    async def _existing_uids(self, scope: Scope, rows: list[StoredRow]) -> set[str]:
        """Uids (or raw ids) among ``rows`` already stored in any collection of the scope."""
        probes: dict[str, list[str]] = {c: [] for c in COLLECTIONS}
        for row in rows:
            prefix, uid = split_id(row.id)
            for collection in COLLECTIONS:
                probes[collection].append(memory_id(collection, uid) if prefix is not None else row.id)
        found: set[str] = set()
        for collection, ids in probes.items():
            for stored in await self._store.stored_ids(scope, collection, ids):
                prefix, uid = split_id(stored)
                found.add(uid if prefix is not None else stored)
        return found

    async def _write(self, scope: Scope, rows: list[StoredRow], report: ImportReport) -> None:
        existing = await self._existing_uids(scope, rows)
        fresh = [row for row in rows if _uid_key(row) not in existing]
        report.skipped_existing += len(rows) - len(fresh)
        need = [row for row in fresh if row.embedding is None]
        if need:
            vectors = await self._vectors.embed([row.document for row in need])
            for row, vector in zip(need, vectors, strict=True):
                row.embedding = vector
        await self._store.add_rows(scope, fresh)
        report.imported += len(fresh)

    async def import_records(self, lines: AsyncIterator[str]) -> ImportReport:
        report = ImportReport()
        batch: list[tuple[Scope, StoredRow]] = []
        seen: set[tuple[str, str, str]] = set()

        async def flush() -> None:
            groups: dict[Scope, list[StoredRow]] = {}
            for scope, row in batch:
                groups.setdefault(scope, []).append(row)
            batch.clear()
            for scope, rows in groups.items():
                await self._write(scope, rows, report)

        async for line in lines:
            try:
                scope, row = self._parse(line)
            except _Invalid:
                report.invalid += 1
                continue
            owner = scope.owner_of(row.collection)
            key = (owner.user, owner.project, _uid_key(row))
            if key in seen:
                report.skipped_existing += 1
                continue
            seen.add(key)
            batch.append((scope, row))
            if len(batch) >= IMPORT_BATCH:
                await flush()
        if batch:
            await flush()
        return report
