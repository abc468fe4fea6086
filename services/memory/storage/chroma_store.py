"""Chroma storage for memories: one Chroma collection per (owner scope, collection).

This is the only module that imports chromadb. It moves raw rows (id,
document, metadata dict, embedding); ``memory_store`` turns them into typed
records through ``record_codec``. Methods are synchronous and
cheap to call from ``asyncio.to_thread``; the client is injected (tests use
``EphemeralClient`` or ``PersistentClient(tmp_path)``). Embeddings are always
passed explicitly: any text-only Chroma call would try to download a model.

Callers pass the *request* scope; memory_bank calls are routed to the user's
own collection here (``Scope.owner_of``), so no caller can forget it.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chromadb
import numpy as np
import numpy.typing as npt
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import GetResult, Include, Metadata, Where
from chromadb.config import Settings as ChromaSettings

from kernel.store_health import CHROMA_DB_NAME, StoreUnreadable, chroma_files_problem, first_line
from services.memory.domain.arrays import Vector
from services.memory.domain.naming import COLLECTIONS, Scope

SCAN_PAGE = 5000
HEALTH_COLLECTIONS_LOCAL = 2000
HEALTH_COLLECTIONS_REMOTE = 20
_NEGATIVE_TTL_S = 5.0


@dataclass(slots=True)
class StoredRow:
    """One Chroma row as stored."""

    id: str
    collection: str
    document: str
    metadata: Mapping[str, object] = field(default_factory=dict)  # Chroma scalars (``record_codec``)
    embedding: Vector | None = None


@dataclass(frozen=True)
class Hit:
    row: StoredRow
    similarity: float


def _slug(text: str, width: int) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return cleaned[:width].strip("-") or "x"


def chroma_name(scope: Scope, collection: str) -> str:
    """Chroma collection name for ``collection`` of ``scope`` (already the owner scope).

    ``mx-<user slug>-<project slug>-<hash>-<collection>``: readable, always valid
    for Chroma, and unique thanks to the hash of the exact (user, project) pair.
    The pair itself is kept in the collection's metadata, which is how
    ``owner_scopes`` finds scopes.
    """
    digest = hashlib.sha256(f"{scope.user}\x00{scope.project}".encode()).hexdigest()[:12]
    project = _slug(scope.project, 40) if scope.project else "user"
    return f"mx-{_slug(scope.user, 24)}-{project}-{digest}-{collection}"


def chroma_metadata(metadata: Mapping[str, object]) -> Metadata:
    """Chroma accepts scalars only: lists/dicts become JSON strings, None is dropped."""
    out: dict[str, str | int | float | bool] = {}
    for key, value in metadata.items():
        if value is None:
            continue
        if isinstance(value, str | bool | int | float):
            out[key] = value
        else:
            out[key] = json.dumps(value, ensure_ascii=False, default=str)
    return out


def open_client(home: Path, chroma_url: str | None) -> ClientAPI:
    """A PersistentClient under ``home/chroma``, or an HttpClient for MNEMEX_CHROMA_URL."""
    settings = ChromaSettings(anonymized_telemetry=False)
    if chroma_url:
        from urllib.parse import urlparse

        url = urlparse(chroma_url if "://" in chroma_url else f"http://{chroma_url}")
        return chromadb.HttpClient(
            host=url.hostname or "127.0.0.1",
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=settings,
        )
    path = home / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    problem = chroma_files_problem(path)  # before Chroma would create a fresh, empty database
    if problem is not None:
        raise StoreUnreadable(f"{problem}; run `mnemex doctor`, then `mnemex repair` with the stack stopped")
    try:
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:
        raise StoreUnreadable(
            f"chroma store unreadable: {first_line(exc)} ({path / CHROMA_DB_NAME}); run `mnemex doctor`, "
            "then `mnemex repair` with the stack stopped"
        ) from exc


MetadataFilter = Where  # Chroma's ``where`` grammar, named here for callers that never import chromadb
ChromaVector = Sequence[float] | Sequence[int] | npt.NDArray[np.float32 | np.int32]  # one embedding, as read


def _include(embeddings: bool) -> Include:
    """Documents and metadatas, and the embeddings when asked for."""
    include: Include = ["documents", "metadatas"]
    if embeddings:
        include.append("embeddings")
    return include


class ChromaStore:
    def __init__(self, client: ClientAPI, path: Path | None = None) -> None:
        self._client = client
        self.path = path  # the persist directory, when the client is a local PersistentClient
        self._lock = threading.Lock()
        self._handles: dict[str, Collection] = {}
        self._cosine: dict[str, bool] = {}
        self._missing: dict[str, float] = {}

    # -- collection handles -------------------------------------------------
    def _handle(self, scope: Scope, collection: str, create: bool) -> Collection | None:
        owner = scope.owner_of(collection)
        name = chroma_name(owner, collection)
        handle = self._handles.get(name)
        if handle is not None:
            return handle
        if not create and time.monotonic() - self._missing.get(name, -1e9) < _NEGATIVE_TTL_S:
            return None
        with self._lock:
            handle = self._handles.get(name)
            if handle is not None:
                return handle
            if create:
                handle = self._client.get_or_create_collection(
                    name,
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={
                        "mnemex_user": owner.user,
                        "mnemex_project": owner.project,
                        "mnemex_collection": collection,
                    },
                    embedding_function=None,
                )
            else:
                try:
                    handle = self._client.get_collection(name, embedding_function=None)
                except Exception:
                    self._missing[name] = time.monotonic()
                    return None
            self._missing.pop(name, None)
            space = ((getattr(handle, "configuration", None) or {}).get("hnsw") or {}).get("space", "cosine")
            self._cosine[name] = space == "cosine"
            self._handles[name] = handle
            return handle

    def _writable(self, scope: Scope, collection: str) -> Collection:
        handle = self._handle(scope, collection, create=True)
        assert handle is not None  # create=True always yields a handle
        return handle

    def _similarity(self, handle: Collection, distance: float) -> float:
        if self._cosine.get(handle.name, True):
            return 1.0 - float(distance)
        return 1.0 - float(distance) / 2.0  # squared L2 between unit vectors

    @staticmethod
    def _rows(result: GetResult, collection: str, with_embeddings: bool) -> list[StoredRow]:
        embeddings = result.get("embeddings") if with_embeddings else None
        return ChromaStore._columns_rows(
            collection, result.get("ids"), result.get("documents"), result.get("metadatas"), embeddings
        )

    @staticmethod
    def _columns_rows(
        collection: str,
        ids: Sequence[str] | None,
        documents: Sequence[str | None] | None,
        metadatas: Sequence[Metadata | None] | None,
        embeddings: Sequence[ChromaVector] | ChromaVector | None = None,
    ) -> list[StoredRow]:
        """Rows from the columns a Chroma get (or one query) returns; a missing column reads as empty values."""
        ids = ids or []
        documents = documents or [None] * len(ids)
        metadatas = metadatas or [None] * len(ids)
        rows = []
        for i, memory_id in enumerate(ids):
            vector = None
            if embeddings is not None and len(embeddings) > i:
                vector = np.asarray(embeddings[i], dtype=np.float32)
            rows.append(StoredRow(memory_id, collection, documents[i] or "", dict(metadatas[i] or {}), vector))
        return rows

    # -- reads ----------------------------------------------------------------
    def get(self, scope: Scope, collection: str, ids: Iterable[str], *, embeddings: bool = False) -> list[StoredRow]:
        wanted = list(dict.fromkeys(ids))
        handle = self._handle(scope, collection, create=False)
        if handle is None or not wanted:
            return []
        return self._rows(handle.get(ids=wanted, include=_include(embeddings)), collection, embeddings)

    def scan(
        self,
        scope: Scope,
        collection: str,
        *,
        embeddings: bool = False,
        documents: bool = True,
        where: MetadataFilter | None = None,
    ) -> list[StoredRow]:
        """Every memory of the collection (optionally those matching ``where``), paged."""
        handle = self._handle(scope, collection, create=False)
        if handle is None:
            return []
        include: Include = ["metadatas", "documents"] if documents else ["metadatas"]
        if embeddings:
            include.append("embeddings")
        rows: list[StoredRow] = []
        offset = 0
        while True:
            page = handle.get(include=include, where=where, limit=SCAN_PAGE, offset=offset)
            batch = self._rows(page, collection, embeddings)
            rows.extend(batch)
            if len(batch) < SCAN_PAGE:
                return rows
            offset += SCAN_PAGE

    def page(
        self, scope: Scope, collection: str, offset: int, limit: int = SCAN_PAGE, *, embeddings: bool = False
    ) -> list[StoredRow]:
        """One page of the collection in storage order (for streaming exports)."""
        handle = self._handle(scope, collection, create=False)
        if handle is None:
            return []
        page = handle.get(include=_include(embeddings), limit=limit, offset=offset)
        return self._rows(page, collection, embeddings)

    def query(
        self, scope: Scope, collection: str, vector: Vector, n: int, where: MetadataFilter | None = None
    ) -> list[Hit]:
        handle = self._handle(scope, collection, create=False)
        if handle is None or n <= 0:
            return []
        query: list[npt.NDArray[np.float32 | np.int32]] = [np.asarray(vector, dtype=np.float32)]
        result = handle.query(
            query_embeddings=query,
            n_results=n,
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        ids, documents, metadatas = result.get("ids"), result.get("documents"), result.get("metadatas")
        rows = self._columns_rows(  # the one query's columns
            collection,
            ids[0] if ids else None,
            documents[0] if documents else None,
            metadatas[0] if metadatas else None,
        )
        distances = (result.get("distances") or [[]])[0]
        return [Hit(row, self._similarity(handle, d)) for row, d in zip(rows, distances, strict=False)]

    def count(self, scope: Scope, collection: str) -> int:
        handle = self._handle(scope, collection, create=False)
        return 0 if handle is None else int(handle.count())

    # -- writes ---------------------------------------------------------------
    def add(self, scope: Scope, collection: str, memories: list[StoredRow]) -> None:
        if not memories:
            return
        if any(m.embedding is None for m in memories):
            raise ValueError("every stored memory needs an embedding (text-only Chroma calls download a model)")
        handle = self._writable(scope, collection)
        handle.add(
            ids=[m.id for m in memories],
            documents=[m.document for m in memories],
            metadatas=[chroma_metadata(m.metadata) for m in memories],
            embeddings=np.stack([np.asarray(m.embedding, dtype=np.float32) for m in memories]),
        )

    def update(self, scope: Scope, collection: str, memory: StoredRow) -> None:
        """Overwrite metadata keys (and document + embedding when an embedding is given)."""
        handle = self._writable(scope, collection)
        # Chroma refuses an empty metadata dict; a text-only change sends none
        metadatas = [chroma_metadata(memory.metadata)] if memory.metadata else None
        if memory.embedding is not None:
            handle.update(
                ids=[memory.id],
                documents=[memory.document],
                metadatas=metadatas,
                embeddings=np.asarray(memory.embedding, dtype=np.float32)[None, :],
            )
        elif metadatas is not None:
            handle.update(ids=[memory.id], metadatas=metadatas)

    def update_metadata(
        self, scope: Scope, collection: str, ids: list[str], metadatas: Sequence[Mapping[str, object]]
    ) -> None:
        """Overwrite metadata keys of several memories in one call."""
        changed = [(i, m) for i, m in zip(ids, metadatas, strict=True) if m]
        if not changed:
            return
        handle = self._writable(scope, collection)
        handle.update(ids=[i for i, _ in changed], metadatas=[chroma_metadata(m) for _, m in changed])

    def delete(self, scope: Scope, collection: str, ids: Iterable[str]) -> None:
        wanted = list(dict.fromkeys(ids))
        handle = self._handle(scope, collection, create=False)
        if handle is not None and wanted:
            handle.delete(ids=wanted)

    # -- scopes ---------------------------------------------------------------
    def owner_scopes(self) -> list[tuple[Scope, str]]:
        """(owner scope, collection) for every mnemex collection in the client."""
        found: list[tuple[Scope, str]] = []
        for item in self._client.list_collections():
            name = item if isinstance(item, str) else item.name
            if not name.startswith("mx-"):
                continue
            handle = item if not isinstance(item, str) else self._client.get_collection(name, embedding_function=None)
            meta = handle.metadata or {}
            collection = meta.get("mnemex_collection")
            if collection in COLLECTIONS and "mnemex_user" in meta:
                found.append((Scope(str(meta["mnemex_user"]), str(meta.get("mnemex_project", ""))), collection))
        return found

    # -- health ---------------------------------------------------------------
    def health_problem(self) -> str | None:
        """A real read of every collection (its count goes through the vector segment); None when all read."""
        where = f" ({self.path})" if self.path is not None else ""
        if self.path is not None:
            problem = chroma_files_problem(self.path)
            if problem is not None:
                return problem
        try:
            # A local store: every collection (a user's own, a few hundred at most). A Chroma server
            # shared by every shard: its heartbeat and a first page of collections, not all of them.
            limit = HEALTH_COLLECTIONS_LOCAL if self.path is not None else HEALTH_COLLECTIONS_REMOTE
            if self.path is None:
                self._client.heartbeat()
            for item in self._client.list_collections(limit=limit):
                handle = self._client.get_collection(item, embedding_function=None) if isinstance(item, str) else item
                handle.count()
        except Exception as exc:
            return f"chroma store unreadable: {first_line(exc)}{where}"
        return None
