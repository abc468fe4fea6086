"""Rebuild a Chroma folder from what its damaged copy still holds.

Run only with the stack stopped, on a folder already set aside (Chroma must be
the only one holding its SQLite file while it runs). Steps:

1. ``sqlite_salvage`` copies the readable rows of the old ``chroma.sqlite3``
   into a scratch file (a truncated or partly overwritten file still gives
   most rows; a garbage header gives none).
2. From that copy (``chroma_rows``): each collection (name, mnemex metadata,
   distance space) and each row (id, document, metadata), put together from
   every table that holds a part of it, Chroma's write log included.
3. Vectors: from the old folder through Chroma itself when its index still
   reads (a scratch copy is opened, never the set-aside original); else from
   the write log; otherwise the documents are embedded again with the local
   model (``embed``), as ``mnemex import`` does for rows without vectors.
4. Everything is added to a fresh ``PersistentClient`` at the store's path.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from kernel.store_health import CHROMA_DB_NAME
from mnemex.repair.chroma_rows import Vector, read_collections
from mnemex.repair.sqlite_salvage import salvage_sqlite

if TYPE_CHECKING:
    from chromadb.api.types import Metadata, Space

Embed = Callable[[list[str]], Vector]
ADD_BATCH = 500
# The tables that hold a part of each memory (the others are Chroma's bookkeeping).
ROW_TABLES = ("embeddings", "embedding_metadata", "embedding_fulltext_search_content", "embeddings_queue")


@dataclass
class ChromaSalvage:
    collections: int = 0
    rows: int = 0
    vectors_kept: int = 0
    vectors_from_log: int = 0
    embedded_again: int = 0
    from_log: int = 0
    new_ids: int = 0
    errors: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    lost_ids: list[str] = field(default_factory=list)


def _old_vectors(old_folder: Path, name: str, ids: list[str], scratch: Path) -> dict[str, Vector]:
    """The vectors the old index still serves for ``ids`` (empty when it cannot be read)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    copy = scratch / "old-chroma"
    if not copy.exists():
        shutil.copytree(old_folder, copy)
    try:
        client = chromadb.PersistentClient(path=str(copy), settings=ChromaSettings(anonymized_telemetry=False))
        handle = client.get_collection(name, embedding_function=None)
        found: dict[str, Vector] = {}
        for start in range(0, len(ids), ADD_BATCH):
            got = handle.get(ids=ids[start : start + ADD_BATCH], include=["embeddings"])
            embeddings = got["embeddings"]
            if embeddings is None:  # asked for, so never; unreadable as any other failure here
                return {}
            for row_id, vector in zip(got["ids"], embeddings, strict=False):
                found[row_id] = np.asarray(vector, dtype=np.float32)
        return found
    except Exception:
        return {}


def _graft_schema(database: Path, scratch: Path) -> Path | None:
    """A copy of ``database`` whose header and schema pages come from a fresh database of this Chroma.

    Chroma creates its tables in the same order every time, so a fresh database
    of the same version has the same root page for each table; its schema pages
    make the damaged file's tables readable again. None when that cannot be made.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    reference = scratch / "reference"
    try:
        chromadb.PersistentClient(path=str(reference), settings=ChromaSettings(anonymized_telemetry=False))
        fresh = sqlite3.connect(f"file:{reference / CHROMA_DB_NAME}?mode=ro", uri=True)
        try:
            page_size = int(fresh.execute("PRAGMA page_size").fetchone()[0])
            pages = [int(r[0]) for r in fresh.execute("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")]
        finally:
            fresh.close()
        raw = (reference / CHROMA_DB_NAME).read_bytes()
        copy = scratch / "grafted.sqlite3"
        shutil.copyfile(database, copy)
        size = copy.stat().st_size
        if size < page_size * max(pages, default=1):
            return None
        with open(copy, "r+b") as handle:
            for page in pages:
                handle.seek((page - 1) * page_size)
                handle.write(raw[(page - 1) * page_size : page * page_size])
            handle.seek(28)  # the header's page count: the pages this file really has
            handle.write((size // page_size).to_bytes(4, "big"))
        return copy
    except Exception:  # any failure here only means no second try
        return None


def rebuild_chroma(old_folder: Path, new_folder: Path, embed: Embed) -> ChromaSalvage:
    """Salvage ``old_folder`` (set aside) into a fresh Chroma at ``new_folder``."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    report = ChromaSalvage()
    new_folder.mkdir(parents=True, exist_ok=True)
    client = chromadb.PersistentClient(path=str(new_folder), settings=ChromaSettings(anonymized_telemetry=False))
    old_database = old_folder / CHROMA_DB_NAME
    if not old_database.exists():
        report.errors.append(f"{old_database} is missing: no collection or row can be read")
        return report
    with tempfile.TemporaryDirectory(prefix="mnemex-chroma-salvage-") as folder:
        scratch = Path(folder)
        salvage = salvage_sqlite(old_database, scratch / "recovered.sqlite3")
        if not salvage.rows:  # its first pages (header, schema) are gone: borrow this Chroma's own
            grafted = _graft_schema(old_database, scratch)
            if grafted is not None:
                retried = salvage_sqlite(grafted, scratch / "recovered-grafted.sqlite3")
                if retried.rows:
                    report.errors.append(
                        f"the file's header and schema pages did not read ({'; '.join(salvage.errors)}); "
                        "the schema of a fresh Chroma database was put in their place to read the rows"
                    )
                    (scratch / "recovered.sqlite3").unlink(missing_ok=True)
                    (scratch / "recovered-grafted.sqlite3").rename(scratch / "recovered.sqlite3")
                    salvage = retried
        report.errors += salvage.errors
        try:
            collections, orphans = read_collections(scratch / "recovered.sqlite3") if salvage.rows else ([], [])
        except sqlite3.Error as exc:
            report.errors.append(f"Chroma's tables could not be read from the salvaged copy: {exc}")
            collections, orphans = [], []
        for collection in collections:
            space = cast("Space", collection.space)  # as the old store recorded it; Chroma checks it
            handle = client.get_or_create_collection(
                collection.name,
                configuration={"hnsw": {"space": space}},
                metadata=collection.metadata or None,
                embedding_function=None,
            )
            report.collections += 1
            ids = list(collection.rows)
            vectors = _old_vectors(old_folder, collection.name, ids, scratch)
            kept = len(vectors)
            for row_id in ids:
                if row_id not in vectors and row_id in collection.logged_vectors:
                    vectors[row_id] = collection.logged_vectors[row_id]
            report.vectors_from_log += len(vectors) - kept
            missing = [row_id for row_id in ids if row_id not in vectors]
            for start in range(0, len(missing), ADD_BATCH):
                batch = missing[start : start + ADD_BATCH]
                fresh = embed([collection.rows[row_id][0] for row_id in batch])
                vectors.update(zip(batch, np.asarray(fresh, dtype=np.float32), strict=True))
            report.vectors_kept += kept
            report.embedded_again += len(missing)
            for start in range(0, len(ids), ADD_BATCH):
                batch = ids[start : start + ADD_BATCH]
                handle.add(
                    ids=batch,
                    documents=[collection.rows[row_id][0] for row_id in batch],
                    # The scalars Chroma stored (a row without metadata passes None, which Chroma takes).
                    metadatas=cast("list[Metadata]", [collection.rows[row_id][1] or None for row_id in batch]),
                    embeddings=np.stack([vectors[row_id] for row_id in batch]),
                )
            report.rows += len(ids)
            report.from_log += collection.from_log
            report.new_ids += len(collection.new_ids)
            report.lost_ids += collection.lost_ids
            if collection.new_ids:
                report.lost.append(
                    f"{collection.name}: {len(collection.new_ids)} memories kept under new ids (their old ids did "
                    f"not read): {_shown([f'{new} (row {old})' for new, old in collection.new_ids.items()])}"
                )
            if collection.lost_ids:
                report.lost.append(
                    f"{collection.name}: {len(collection.lost_ids)} memories lost, their text did not read: "
                    f"{_shown(collection.lost_ids)}"
                )
        if orphans:
            report.lost.append(
                f"{len(orphans)} memories lost: their text reads but their id and collection did not "
                f"(internal rows {_shown([str(row) for row in orphans])}, in the set-aside {CHROMA_DB_NAME})"
            )
        lost_rows = {table: rows for table, rows in salvage.unreadable.items() if table in ROW_TABLES}
        for table, rows in lost_rows.items():
            report.lost.append(
                f"{table}: {len(rows)} rows could not be read (internal rows {_shown([str(r) for r in rows])}); "
                "what the other tables held of them is kept"
            )
    return report


def _shown(values: list[str]) -> str:
    return ", ".join(values[:20]) + (f" ... ({len(values) - 20} more)" if len(values) > 20 else "")
