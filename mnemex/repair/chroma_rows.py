"""Chroma's memories read back from a (salvaged) copy of its SQLite tables, every part from wherever it survived.

Plain module (sqlite3, json, numpy). A memory is spread over several of
Chroma's tables: ``embeddings`` (its id and collection), ``embedding_metadata``
(metadata, and the document under ``chroma:document``), the full-text index's
``embedding_fulltext_search_content`` (the document again) and the write log
``embeddings_queue`` (id, metadata with the document, and the vector, until
Chroma purges it). ``read_collections`` puts each memory together from all of
them, so losing a page of one table loses nothing another still holds.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import SupportsIndex, SupportsInt

import numpy as np
import numpy.typing as npt

from kernel.json_values import JSONObject, parse_value

DOCUMENT_KEY = "chroma:document"
Vector = npt.NDArray[np.float32]
# A row's or collection's metadata as Chroma stored it (its scalars), passed through untouched.
RowMetadata = dict[str, object]


@dataclass
class SalvagedCollection:
    name: str
    metadata: RowMetadata
    space: str = "cosine"
    dimension: int | None = None
    rows: dict[str, tuple[str, RowMetadata]] = field(default_factory=dict)  # id -> (document, metadata)
    logged_vectors: dict[str, Vector] = field(default_factory=dict)  # id -> vector, from the write log
    from_log: int = 0  # rows only the write log still held
    new_ids: dict[str, int] = field(default_factory=dict)  # new id -> old row number, for rows whose id was lost
    lost_ids: list[str] = field(default_factory=list)  # ids known, but no text to keep with them


def _int(value: object) -> int:
    """``int(value)`` of a SQLite value; one ``int`` cannot read raises ``TypeError`` as ``int`` does."""
    if isinstance(value, str | bytes | SupportsInt | SupportsIndex):
        return int(value)
    raise TypeError(f"int() cannot read a {type(value).__name__}")


def _value(string: object, integer: object, real: object, boolean: object) -> object:
    if string is not None:
        return string
    if boolean is not None and integer is None and real is None:
        return bool(boolean)
    if integer is not None:
        return _int(integer)
    return real


def _rows(db: sqlite3.Connection, query: str) -> list[tuple[object, ...]]:
    """The rows of ``query``, or none when its table did not survive the salvage."""
    try:
        return db.execute(query).fetchall()
    except sqlite3.Error:
        return []


# Operations of Chroma's write log (``embeddings_queue.operation``).
_ADD, _UPDATE, _UPSERT, _DELETE = 0, 1, 2, 3


@dataclass
class _Logged:
    document: str | None = None
    metadata: RowMetadata = field(default_factory=dict)
    vector: Vector | None = None
    deleted: bool = False


def _vector(blob: object, encoding: object) -> Vector | None:
    if not isinstance(blob, bytes) or not blob or str(encoding or "FLOAT32").upper() != "FLOAT32" or len(blob) % 4:
        return None
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def read_log(db: sqlite3.Connection) -> dict[str, dict[str, _Logged]]:
    """Chroma's write log (``embeddings_queue``) replayed in order: collection id -> memory id -> latest state.

    The log holds each write's id, metadata (with the document) and vector until
    Chroma purges it, so it still names rows whose pages in the other tables
    were lost.
    """
    found: dict[str, dict[str, _Logged]] = defaultdict(dict)
    query = "SELECT operation, topic, id, vector, encoding, metadata FROM embeddings_queue ORDER BY seq_id"
    for operation, topic, row_id, blob, encoding, metadata_json in _rows(db, query):
        if not isinstance(topic, str) or not isinstance(row_id, str):
            continue
        rows = found[topic.rsplit("/", 1)[-1]]
        metadata = _logged_metadata(metadata_json)
        if operation == _DELETE:
            rows[row_id] = _Logged(deleted=True)
            continue
        entry = rows.get(row_id)
        if entry is None or entry.deleted or operation in (_ADD,):
            entry = rows[row_id] = _Logged()
        document = metadata.pop(DOCUMENT_KEY, None)
        if document is not None:
            entry.document = str(document)
        for key, value in metadata.items():
            if value is None:
                entry.metadata.pop(key, None)
            else:
                entry.metadata[key] = value
        vector = _vector(blob, encoding)
        if vector is not None:
            entry.vector = vector
    return found


def _logged_metadata(text: object) -> JSONObject:
    """A write-log entry's metadata JSON; empty when missing, unreadable or not an object."""
    if not text:
        return {}
    if not isinstance(text, str | bytes):  # as json.loads refuses it
        raise TypeError(f"the JSON object must be str or bytes, not {type(text).__name__}")
    try:
        metadata = parse_value(text)
    except ValueError:
        return {}
    return metadata if isinstance(metadata, dict) else {}


def _new_id(collection: SalvagedCollection) -> str:
    prefix = str(collection.metadata.get("mnemex_collection") or "recovered")
    while True:
        candidate = f"{prefix}_{secrets.randbelow(10**15):015d}"
        if candidate not in collection.rows:
            return candidate


def _whole(text: str | None) -> bool:
    """A text as written: a zeroed or overwritten stretch leaves NUL bytes no memory holds."""
    return bool(text) and "\x00" not in str(text)


def best_text(*candidates: str | None) -> str:
    """The first whole text among ``candidates``, else the first non-empty one, else ''."""
    for text in candidates:
        if _whole(text):
            return str(text)
    return next((str(text) for text in candidates if text), "")


def _covered(text: str, known: set[str]) -> bool:
    """Whether ``text`` (cut at its first NUL) is all or the start of a text kept already."""
    head = text.split("\x00", 1)[0]
    return text in known or (head != text and any(k.startswith(head) for k in known))


def _space(config: object) -> str:
    """The distance space a collection's configuration JSON names; "cosine" when it names none or is unreadable."""
    text = config or "{}"
    if not isinstance(text, str | bytes):  # as json.loads refuses it
        raise TypeError(f"the JSON object must be str or bytes, not {type(text).__name__}")
    try:
        settings = parse_value(text)
    except ValueError:
        return "cosine"
    hnsw = (settings.get("hnsw") if isinstance(settings, dict) else None) or {}
    space = (hnsw.get("space") if isinstance(hnsw, dict) else None) or "cosine"
    return str(space)


def _collections(db: sqlite3.Connection) -> dict[object, SalvagedCollection]:
    """Collections by their Chroma id (as the salvaged row holds it)."""
    found: dict[object, SalvagedCollection] = {}
    for collection_id, name, config, dimension in _rows(
        db, "SELECT id, name, config_json_str, dimension FROM collections"
    ):
        found[collection_id] = SalvagedCollection(
            str(name) if name else "", {}, _space(config), dimension if isinstance(dimension, int) else None
        )
    for collection_id, key, *values in _rows(
        db, "SELECT collection_id, key, str_value, int_value, float_value, bool_value FROM collection_metadata"
    ):
        if str(key).startswith(("chroma:", "hnsw:")):
            continue
        if collection_id not in found:  # its `collections` row is lost; its name comes back from its metadata
            found[collection_id] = SalvagedCollection("", {})
        found[collection_id].metadata[str(key)] = _value(*values)
    for collection_id, collection in list(found.items()):
        if not collection.name:
            collection.name = _mnemex_name(collection.metadata)
            if not collection.name:
                del found[collection_id]
    return found


def _mnemex_name(metadata: Mapping[str, object]) -> str:
    """The Chroma name mnemex gives a collection, from the scope and collection kept in its metadata."""
    from services.memory.domain.naming import Scope
    from services.memory.storage.chroma_store import chroma_name

    user, collection = metadata.get("mnemex_user"), metadata.get("mnemex_collection")
    if not isinstance(user, str) or not isinstance(collection, str):
        return ""
    return chroma_name(Scope(user, str(metadata.get("mnemex_project", ""))), collection)


def _merge_log(found: Mapping[object, SalvagedCollection], log: dict[str, dict[str, _Logged]]) -> None:
    """Rows the write log still holds: fill in what the other tables lost, add those they lost entirely."""
    for collection_id, logged in log.items():
        collection = found.get(collection_id)
        if collection is None:
            continue
        for row_id, entry in logged.items():
            if entry.deleted:
                continue
            if entry.vector is not None and entry.vector.size == (collection.dimension or entry.vector.size):
                collection.logged_vectors[row_id] = entry.vector
            kept = collection.rows.get(row_id)
            if kept is not None:  # its metadata rows are newer than the log; fill in only what they lost
                document, metadata = kept
                collection.rows[row_id] = (best_text(document, entry.document), {**entry.metadata, **metadata})
            elif entry.document:
                collection.rows[row_id] = (entry.document, dict(entry.metadata))
                collection.from_log += 1
            else:
                collection.lost_ids.append(row_id)


def _adopt_orphans(
    found: dict[object, SalvagedCollection], parts: dict[int, tuple[str, RowMetadata]], only: object | None
) -> list[int]:
    """Rows whose id is lost but whose text reads: kept under a new id when one collection is all there is.

    Returns the internal row numbers of those that could not be placed (or whose text is damaged too).
    """
    known_texts = {document for c in found.values() for document, _ in c.rows.values() if document}
    orphans: list[int] = []
    for row, (document, metadata) in sorted(parts.items()):
        if not document or _covered(document, known_texts):
            continue
        if only is None or not _whole(document):  # nowhere to put it, or its text is itself damaged
            orphans.append(row)
            continue
        new_id = _new_id(found[only])
        found[only].rows[new_id] = (document, metadata)
        found[only].new_ids[new_id] = row
        known_texts.add(document)
    return orphans


def read_collections(database: Path) -> tuple[list[SalvagedCollection], list[int]]:
    """Collections and rows from a (salvaged) copy of Chroma's SQLite tables.

    Each row is put together from every table that still holds a part of it:
    ``embeddings`` (its id), ``embedding_metadata`` (metadata and document),
    the full-text index's content table (the document again) and the write log
    (id, metadata, document and vector). A row whose id is lost but whose text
    reads is kept under a new id when there is one collection it can belong to,
    else its internal row number is returned as lost; an id whose text is lost
    everywhere is listed in its collection's ``lost_ids``.
    """
    db = sqlite3.connect(database)
    try:
        found = _collections(db)
        segment_owner = {
            segment: owner
            for segment, owner in _rows(db, "SELECT id, collection FROM segments WHERE scope = 'METADATA'")
        }
        only = next(iter(found)) if len(found) == 1 else None
        fields: dict[int, RowMetadata] = defaultdict(dict)
        for row, key, *values in _rows(
            db, "SELECT id, key, string_value, int_value, float_value, bool_value FROM embedding_metadata"
        ):
            fields[_int(row)][str(key)] = _value(*values)
        texts = {_int(r[0]): str(r[1]) for r in _rows(db, "SELECT id, c0 FROM embedding_fulltext_search_content")}
        parts: dict[int, tuple[str, RowMetadata]] = {}  # internal row -> (document, metadata)
        for row in set(fields) | set(texts):
            metadata = dict(fields.get(row, {}))
            stored = metadata.pop(DOCUMENT_KEY, None)
            document = best_text(str(stored) if stored else None, texts.get(row))
            parts[row] = (document, metadata)
        for row, segment_id, embedding_id in _rows(db, "SELECT id, segment_id, embedding_id FROM embeddings"):
            collection = found.get(segment_owner.get(segment_id, only or ""))
            if collection is not None:
                collection.rows[str(embedding_id)] = parts.pop(_int(row), ("", {}))
        _merge_log(found, read_log(db))
        orphans = _adopt_orphans(found, parts, only)
        for collection in found.values():  # an id with no text anywhere: nothing to keep but the id
            for row_id in [row_id for row_id, (document, _) in collection.rows.items() if not document]:
                del collection.rows[row_id]
                collection.lost_ids.append(row_id)
        return list(found.values()), orphans
    finally:
        db.close()
