"""Shared machinery of the memory operations: store, state, locks, embeddings.

No grpc and no chromadb here: ``ChromaStore`` is used through its methods,
always on worker threads (``io``), so the event loop never blocks on disk.

Concurrency: ``locks.hold(uid)`` serialises every read-modify-write of one
memory (score updates, moves, edits). The key is the memory's uid, which
survives promotion, so a writer holding an old id and one holding the new
id still take the same lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

import numpy as np

from services.memory import timefmt
from services.memory.errors import EmbeddingUnavailable, InvalidRequest
from services.memory.group_commit import GroupCommit
from services.memory.mirrors import Mirrors
from services.memory.naming import COLLECTIONS, Scope, memory_id, split_id
from services.memory.session_state import SessionState
from services.memory.settings import MemorySettings
from services.memory.store import ChromaStore, StoredMemory

T = TypeVar("T")
EAGER_MIRROR_ROWS = 5000  # a write mirrors a not-yet-mirrored collection up to this size (about 0.5 s to build)


class Embedder(Protocol):
    async def embed(self, texts: list[str], timeout: float | None = None) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors."""


class KeyedLocks:
    """One asyncio lock per key, dropped again when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock_now, users_now = self._locks[key]
            if users_now <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock_now, users_now - 1)

    def __len__(self) -> int:
        return len(self._locks)


def limit_blas_threads() -> None:
    """Make numpy's BLAS single-threaded in this process.

    Measured on 2 busy cores: a 10k x 384 matrix-vector product took 15 ms with
    OpenBLAS's default thread pool and 1.1 ms on one thread; the service gets
    its parallelism from concurrent requests, not from BLAS.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the OPENBLAS_NUM_THREADS=1 set by __main__ covers the service process
        return
    threadpool_limits(1, user_api="blas")


def vector_from_bytes(data: bytes, dim: int) -> np.ndarray:
    if len(data) != dim * 4:
        raise InvalidRequest(
            f"vector has {len(data)} bytes; expected {dim * 4} (packed little-endian float32 x {dim}), "
            "or send no vector to have the text embedded server side"
        )
    vector = np.frombuffer(data, dtype="<f4").astype(np.float32)
    if not np.all(np.isfinite(vector)):
        raise InvalidRequest("vector contains NaN or infinity")
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        raise InvalidRequest("vector is all zeros: send a real embedding")
    return vector / norm


@dataclass
class Runtime:
    settings: MemorySettings
    store: ChromaStore
    state: SessionState
    embedder: Embedder | None
    mirrors: Mirrors = field(init=False)
    commits: GroupCommit = field(init=False)
    executor: ThreadPoolExecutor = field(init=False)
    locks: KeyedLocks = field(default_factory=KeyedLocks)
    clock: Callable[[], datetime] = timefmt.now

    def __post_init__(self) -> None:
        self.mirrors = Mirrors(
            self._mirror_rows, self.settings.vector_dim, lexical=self.settings.retrieval_mode == "hybrid",
            weights=self.settings.ranking,
        )
        self.commits = GroupCommit(self._flush_metadata)
        # Own pool: a search fans out to ~10 store/index calls at once, more than asyncio's default pool has.
        self.executor = ThreadPoolExecutor(max_workers=self.settings.io_threads, thread_name_prefix="memory-io")

    async def _flush_metadata(self, target: Hashable, ids: list[str], metadatas: list[dict[str, Any]]) -> None:
        assert isinstance(target, tuple)  # (owner scope, collection), see update()
        owner: Scope = target[0]
        collection: str = target[1]
        await self.io(self.store.update_metadata, owner, collection, ids, metadatas)

    def _mirror_rows(self, scope: Scope, collection: str) -> list[tuple[str, str, dict[str, Any], np.ndarray]]:
        rows = self.store.scan(scope, collection, embeddings=True)
        return [(r.id, r.document, r.metadata, r.embedding) for r in rows if r.embedding is not None]

    def now(self) -> datetime:
        return self.clock()

    async def io(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run blocking store / SQLite work on the I/O pool."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.state.close()

    # -- embeddings -----------------------------------------------------------------
    async def embed(self, texts: list[str]) -> np.ndarray:
        if self.embedder is None:
            raise EmbeddingUnavailable("no embedding service configured: send vectors, or set MNEMEX_EMBEDDING_ADDR")
        limit = self.settings.max_embed_chars  # the model reads ~256 tokens; longer texts are stored whole
        clipped = [text[:limit] for text in texts]
        try:
            vectors = await self.embedder.embed(clipped, timeout=self.settings.embed_timeout_s)
        except Exception as exc:
            raise EmbeddingUnavailable(f"embedding service failed ({type(exc).__name__}: {exc})") from exc
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape != (len(texts), self.settings.vector_dim):
            raise EmbeddingUnavailable(
                f"embedding service returned shape {vectors.shape}; this memory service expects dimension "
                f"{self.settings.vector_dim} (MNEMEX_MEMORY_VECTOR_DIM)"
            )
        return vectors

    async def vector_for(self, text: str, given: bytes = b"") -> np.ndarray:
        if given:
            return vector_from_bytes(given, self.settings.vector_dim)
        return (await self.embed([text]))[0]

    # -- finding and changing memories ------------------------------------------------
    async def locate(self, scope: Scope, memory_id_: str, *, embeddings: bool = False) -> StoredMemory | None:
        """The memory with this id, or the same uid in another collection (it moved).

        Without embeddings a built mirror answers (it holds every committed write,
        and writers of one memory are serialised by its uid lock); otherwise, and
        for collections not mirrored yet, the store does.
        """
        prefix, uid = split_id(memory_id_)
        if prefix is None:
            probes = [(c, memory_id_) for c in COLLECTIONS]
        else:
            probes = [(prefix, memory_id_), *((c, memory_id(c, uid)) for c in COLLECTIONS if c != prefix)]
        for collection, candidate in probes:
            if not embeddings:
                built, row = self.mirrors.lookup(scope, collection, candidate)
                if built:
                    if row is not None:
                        return StoredMemory(row.id, collection, row.document, dict(row.metadata))
                    continue
            rows = await self.io(self.store.get, scope, collection, [candidate], embeddings=embeddings)
            if rows:
                return rows[0]
        return None

    async def add(self, scope: Scope, memories: list[StoredMemory]) -> None:
        by_collection: dict[str, list[StoredMemory]] = {}
        for item in memories:
            by_collection.setdefault(item.collection, []).append(item)
        for collection, items in by_collection.items():
            await self.io(self.store.add, scope, collection, items)
            await self.io(self._mirror_add, scope, collection, items)

    def _mirror_add(self, scope: Scope, collection: str, items: list[StoredMemory]) -> None:
        if not self.mirrors.built(scope, collection) and self.store.count(scope, collection) <= EAGER_MIRROR_ROWS:
            self.mirrors.warm(scope, collection)  # small (often brand-new) collection: mirror it now, cheaply
        for item in items:
            assert item.embedding is not None
            self.mirrors.put(scope, collection, item.id, item.document, item.metadata, item.embedding)

    async def update(self, scope: Scope, memory: StoredMemory, changes: dict[str, Any]) -> None:
        """Write ``changes`` over the stored metadata (plus document/embedding if ``memory.embedding``).

        Metadata-only changes go through group commit; either way the call
        returns only after the store has the change.
        """
        if memory.embedding is None:
            await self.commits.update((scope.owner_of(memory.collection), memory.collection), memory.id, changes)
        else:
            await self.io(
                self.store.update,
                scope,
                memory.collection,
                StoredMemory(memory.id, memory.collection, memory.document, changes, memory.embedding),
            )
        memory.metadata.update(changes)
        text = memory.document if memory.embedding is not None else None
        await self.io(self.mirrors.patch, scope, memory.collection, memory.id, changes, text, memory.embedding)

    async def delete(self, scope: Scope, memory: StoredMemory) -> None:
        await self.delete_ids(scope, memory.collection, [memory.id])

    async def delete_ids(self, scope: Scope, collection: str, ids: list[str]) -> None:
        await self.io(self.store.delete, scope, collection, ids)
        await self.io(self._mirror_remove, scope, collection, ids)

    def _mirror_remove(self, scope: Scope, collection: str, ids: list[str]) -> None:
        for gone in ids:
            self.mirrors.remove(scope, collection, gone)

    async def move(self, scope: Scope, memory: StoredMemory, target: str, changes: dict[str, Any]) -> StoredMemory:
        """Re-home a memory in ``target`` under ``<target>_<uid>``; add first, then delete.

        A crash between the two steps leaves a copy in each collection; the
        maintenance sweep keeps the newer one (``moved_at``).
        """
        if memory.embedding is None:
            rows = await self.io(self.store.get, scope, memory.collection, [memory.id], embeddings=True)
            if not rows:
                raise InvalidRequest(f"memory {memory.id} vanished during a move")
            memory = rows[0]
        _, uid = split_id(memory.id)
        moved = StoredMemory(
            memory_id(target, uid), target, memory.document, {**memory.metadata, **changes}, memory.embedding
        )
        await self.add(scope, [moved])
        await self.delete(scope, memory)
        return moved

    async def gather(self, *jobs: Awaitable[T]) -> list[T]:
        return list(await asyncio.gather(*jobs))
