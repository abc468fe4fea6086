"""Rebuild a Chroma folder from what its damaged copy still holds.

Run only with the stack stopped, on a folder already set aside (Chroma must be
the only one holding its SQLite file while it runs). Steps:

1. ``sqlite_salvage`` copies the readable rows of the old ``chroma.sqlite3``
   into a scratch file (a truncated or partly overwritten file still gives
   most rows; a garbage header gives none).
2. From that copy: each collection (name, mnemex metadata, distance space)
   and each row (id, document, metadata), through Chroma's own tables.
3. Vectors: from the old folder through Chroma itself when its index still
   reads (a scratch copy is opened, never the set-aside original); otherwise
   the documents are embedded again with the local model (``embed``), as
   ``mnemex import`` does for rows without vectors.
4. Everything is added to a fresh ``PersistentClient`` at the store's path.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernel.store_health import CHROMA_DB_NAME
from mnemex.repair.sqlite_salvage import salvage_sqlite

Embed = Callable[[list[str]], np.ndarray]
DOCUMENT_KEY = "chroma:document"
ADD_BATCH = 500


@dataclass
class SalvagedCollection:
    name: str
    metadata: dict[str, Any]
    space: str = "cosine"
    rows: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # id -> (document, metadata)


@dataclass
class ChromaSalvage:
    collections: int = 0
    rows: int = 0
    vectors_kept: int = 0
    embedded_again: int = 0
    errors: list[str] = field(default_factory=list)


def _value(string: Any, integer: Any, real: Any, boolean: Any) -> Any:
    if string is not None:
        return string
    if boolean is not None and integer is None and real is None:
        return bool(boolean)
    if integer is not None:
        return int(integer)
    return real


def read_collections(database: Path) -> list[SalvagedCollection]:
    """Collections and rows from a (salvaged) copy of Chroma's SQLite tables."""
    db = sqlite3.connect(database)
    try:
        found: dict[str, SalvagedCollection] = {}
        for collection_id, name, config in db.execute("SELECT id, name, config_json_str FROM collections"):
            space = "cosine"
            try:
                space = (json.loads(config or "{}").get("hnsw") or {}).get("space") or "cosine"
            except (ValueError, AttributeError):
                pass
            found[collection_id] = SalvagedCollection(name, {}, space)
        for collection_id, key, *values in db.execute(
            "SELECT collection_id, key, str_value, int_value, float_value, bool_value FROM collection_metadata"
        ):
            if collection_id in found and not str(key).startswith(("chroma:", "hnsw:")):
                found[collection_id].metadata[key] = _value(*values)
        segment_owner = dict(db.execute("SELECT id, collection FROM segments WHERE scope = 'METADATA'").fetchall())
        fields: dict[int, dict[str, Any]] = defaultdict(dict)
        for row_id, key, *values in db.execute(
            "SELECT id, key, string_value, int_value, float_value, bool_value FROM embedding_metadata"
        ):
            fields[row_id][key] = _value(*values)
        for row_id, segment_id, embedding_id in db.execute("SELECT id, segment_id, embedding_id FROM embeddings"):
            collection = found.get(segment_owner.get(segment_id, ""))
            if collection is None:
                continue
            metadata = dict(fields.get(row_id, {}))
            document = str(metadata.pop(DOCUMENT_KEY, "") or "")
            collection.rows[str(embedding_id)] = (document, metadata)
        return list(found.values())
    finally:
        db.close()


def _old_vectors(old_folder: Path, name: str, ids: list[str], scratch: Path) -> dict[str, np.ndarray]:
    """The vectors the old index still serves for ``ids`` (empty when it cannot be read)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    copy = scratch / "old-chroma"
    if not copy.exists():
        shutil.copytree(old_folder, copy)
    try:
        client = chromadb.PersistentClient(path=str(copy), settings=ChromaSettings(anonymized_telemetry=False))
        handle: Any = client.get_collection(name, embedding_function=None)
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), ADD_BATCH):
            got = handle.get(ids=ids[start : start + ADD_BATCH], include=["embeddings"])
            for row_id, vector in zip(got["ids"], got["embeddings"], strict=False):
                found[row_id] = np.asarray(vector, dtype=np.float32)
        return found
    except Exception:
        return {}


def rebuild_chroma(old_folder: Path, new_folder: Path, embed: Embed) -> ChromaSalvage:
    """Salvage ``old_folder`` (set aside) into a fresh Chroma at ``new_folder``."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    report = ChromaSalvage()
    new_folder.mkdir(parents=True, exist_ok=True)
    client: Any = chromadb.PersistentClient(path=str(new_folder), settings=ChromaSettings(anonymized_telemetry=False))
    old_database = old_folder / CHROMA_DB_NAME
    if not old_database.exists():
        report.errors.append(f"{old_database} is missing: no collection or row can be read")
        return report
    with tempfile.TemporaryDirectory(prefix="mnemex-chroma-salvage-") as folder:
        scratch = Path(folder)
        salvage = salvage_sqlite(old_database, scratch / "recovered.sqlite3")
        report.errors += salvage.errors
        try:
            collections = read_collections(scratch / "recovered.sqlite3") if salvage.rows else []
        except sqlite3.Error as exc:
            report.errors.append(f"Chroma's tables could not be read from the salvaged copy: {exc}")
            collections = []
        for collection in collections:
            handle = client.get_or_create_collection(
                collection.name,
                configuration={"hnsw": {"space": collection.space}},
                metadata=collection.metadata or None,
                embedding_function=None,
            )
            report.collections += 1
            ids = list(collection.rows)
            vectors = _old_vectors(old_folder, collection.name, ids, scratch)
            missing = [row_id for row_id in ids if row_id not in vectors]
            for start in range(0, len(missing), ADD_BATCH):
                batch = missing[start : start + ADD_BATCH]
                fresh = embed([collection.rows[row_id][0] for row_id in batch])
                vectors.update(zip(batch, np.asarray(fresh, dtype=np.float32), strict=True))
            report.vectors_kept += len(ids) - len(missing)
            report.embedded_again += len(missing)
            for start in range(0, len(ids), ADD_BATCH):
                batch = ids[start : start + ADD_BATCH]
                handle.add(
                    ids=batch,
                    documents=[collection.rows[row_id][0] for row_id in batch],
                    metadatas=[collection.rows[row_id][1] or None for row_id in batch],
                    embeddings=np.stack([vectors[row_id] for row_id in batch]),
                )
            report.rows += len(ids)
    return report
