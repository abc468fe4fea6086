"""Stored memories as typed records: Chroma plus the mirrors, kept in step.

``MemoryStore`` is what the rest of the service uses to read and change
memories. Reads come back as ``MemoryRecord`` (parsed once, by
``record_codec``); an update takes the record before and after and writes
only the metadata keys that differ. Every Chroma call runs on the I/O pool,
and every write it makes is reported to the mirrors.

Metadata-only updates go through group commit; either way a write returns
only after the store has it. Writers of one memory hold its uid lock
(``keyed_locks``), so a built mirror holds every committed write of it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from kernel.blocking_io import BlockingIO
from services.memory.domain.arrays import Vector
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import COLLECTIONS, Scope, memory_id, split_id
from services.memory.domain.ranking import RankingWeights
from services.memory.domain.record import MemoryRecord, Scalar
from services.memory.storage.chroma_store import ChromaStore, MetadataFilter, StoredRow
from services.memory.storage.group_commit import GroupCommit
from services.memory.storage.mirror_registry import Mirrors
from services.memory.storage.record_codec import changed_metadata, parse_record, to_metadata

EAGER_MIRROR_ROWS = 5000  # a write mirrors a not-yet-mirrored collection up to this size (about 0.5 s to build)


def _record(row: StoredRow) -> MemoryRecord:
    return parse_record(row.id, row.collection, row.document, row.metadata)


class MemoryStore:
    def __init__(
        self,
        chroma: ChromaStore,
        io: BlockingIO,
        *,
        dim: int,
        weights: RankingWeights,
        owns: Callable[[str], bool] | None = None,
        ann_min_rows: int = 0,
    ) -> None:
        self._ann_min_rows = ann_min_rows  # see Mirrors
        self._owns = owns  # a sharded service sees only its own users' scopes in the shared Chroma
        self._chroma = chroma
        self._io = io
        self._dim = dim
        self._weights = weights
        self.mirrors = self.fresh_mirrors()
        self.commits = GroupCommit(self._flush_metadata)

    def fresh_mirrors(self) -> Mirrors:
        """An empty mirror registry that builds each collection from the store on first read."""
        return Mirrors(
            self._mirror_rows,
            self._dim,
            weights=self._weights,
            ann_min_rows=self._ann_min_rows,
        )

    def _mirror_rows(self, scope: Scope, collection: str) -> list[tuple[MemoryRecord, Vector]]:
        rows = self._chroma.scan(scope, collection, embeddings=True)
        return [(_record(r), r.embedding) for r in rows if r.embedding is not None]

    async def _flush_metadata(self, target: Hashable, ids: list[str], metadatas: list[dict[str, Scalar]]) -> None:
        assert isinstance(target, tuple)  # (owner scope, collection), see update()
        owner: Scope = target[0]
        collection: str = target[1]
        await self._io.run(self._chroma.update_metadata, owner, collection, ids, metadatas)

    # -- reads ------------------------------------------------------------------------
    async def locate(self, scope: Scope, memory_id_: str) -> MemoryRecord | None:
        """The memory with this id, or the same uid in another collection (it moved).

        A built mirror answers (it holds every committed write, and writers of one
        memory are serialised by its uid lock); for collections not mirrored yet,
        or a mirror busy right now, the store does.
        """
        for collection, candidate in self._probes(memory_id_):
            built, record = self.mirrors.lookup(scope, collection, candidate)
            if built:
                if record is not None:
                    return record
                continue
            rows = await self._io.run(self._chroma.get, scope, collection, [candidate])
            if rows:
                return _record(rows[0])
        return None

    async def locate_with_vector(self, scope: Scope, memory_id_: str) -> tuple[MemoryRecord, Vector | None] | None:
        """Like ``locate``, read from the store with the memory's embedding."""
        for collection, candidate in self._probes(memory_id_):
            rows = await self._io.run(self._chroma.get, scope, collection, [candidate], embeddings=True)
            if rows:
                return _record(rows[0]), rows[0].embedding
        return None

    @staticmethod
    def _probes(memory_id_: str) -> list[tuple[str, str]]:
        prefix, uid = split_id(memory_id_)
        if prefix is None:
            return [(c, memory_id_) for c in COLLECTIONS]
        return [(prefix, memory_id_), *((c, memory_id(c, uid)) for c in COLLECTIONS if c != prefix)]

    async def get(self, scope: Scope, collection: str, ids: list[str]) -> list[MemoryRecord]:
        return [_record(r) for r in await self._io.run(self._chroma.get, scope, collection, ids)]

    async def scan(
        self, scope: Scope, collection: str, *, content: bool = True, where: MetadataFilter | None = None
    ) -> list[MemoryRecord]:
        """Every memory of the collection, or those whose metadata match ``where`` (``content=False``: without
        the text, cheaper)."""
        rows = await self._io.run(self._chroma.scan, scope, collection, documents=content, where=where)
        return [_record(r) for r in rows]

    async def nearest(self, scope: Scope, collection: str, vector: Vector, n: int) -> list[tuple[MemoryRecord, float]]:
        """The store's ``n`` nearest memories (HNSW), with their cosine."""
        hits = await self._io.run(self._chroma.query, scope, collection, vector, n)
        return [(_record(h.row), h.similarity) for h in hits]

    async def nearest_active(
        self, scope: Scope, collection: str, vectors: list[Vector], n: int
    ) -> list[list[tuple[MemoryRecord, float]]]:
        """For each unit vector, the ``n`` nearest active memories with their cosine, from the collection's
        mirror (built if needed): one thread hop and one lock for a whole batch of writes."""
        return await self._io.run(self._nearest_active, scope, collection, vectors, n)

    def _nearest_active(
        self, scope: Scope, collection: str, vectors: list[Vector], n: int
    ) -> list[list[tuple[MemoryRecord, float]]]:
        with self.mirrors.read(scope, collection) as mirror:
            return [mirror.nearest(vector, n) for vector in vectors]

    def mirrored_vectors(self, scope: Scope, ids_by_collection: dict[str, list[str]]) -> dict[str, Vector]:
        """The unit vectors of these ids from their collections' mirrors, where already built (copies)."""
        found: dict[str, Vector] = {}
        for collection, ids in ids_by_collection.items():
            if self.mirrors.all_built(scope, (collection,)):
                with self.mirrors.read(scope, collection) as mirror:
                    found.update(mirror.vectors_of(ids))
        return found

    async def active_rows(self, scope: Scope, collection: str) -> tuple[list[MemoryRecord], Vector]:
        """The collection's active memories and their unit vectors, from its mirror (built if needed)."""
        return await self._io.run(self._read_active, scope, collection)

    def _read_active(self, scope: Scope, collection: str) -> tuple[list[MemoryRecord], Vector]:
        with self.mirrors.read(scope, collection) as mirror:
            return mirror.active_rows()

    async def count(self, scope: Scope, collection: str) -> int:
        return await self._io.run(self._chroma.count, scope, collection)

    async def owner_scopes(self) -> list[tuple[Scope, str]]:
        """(scope, collection) of every stored collection; when sharded, of this shard's users only."""
        found = await self._io.run(self._chroma.owner_scopes)
        return found if self._owns is None else [item for item in found if self._owns(item[0].user)]

    # -- writes -----------------------------------------------------------------------
    async def add(self, scope: Scope, items: list[tuple[MemoryRecord, Vector]]) -> list[MemoryRecord]:
        """Store new memories; returns them as stored (parsed back from their metadata)."""
        rows = [StoredRow(r.id, r.collection, r.content, to_metadata(r), e) for r, e in items]
        await self.add_rows(scope, rows)
        return [_record(row) for row in rows]

    async def add_rows(self, scope: Scope, rows: list[StoredRow]) -> None:
        """Store rows exactly as given (imports); every row needs its embedding."""
        by_collection: dict[str, list[StoredRow]] = {}
        for row in rows:
            by_collection.setdefault(row.collection, []).append(row)
        for collection, group in by_collection.items():
            await self._io.run(self._chroma.add, scope, collection, group)
            await self._io.run(self._mirror_add, scope, collection, group)

    def _mirror_add(self, scope: Scope, collection: str, rows: list[StoredRow]) -> None:
        if not self.mirrors.built(scope, collection) and self._chroma.count(scope, collection) <= EAGER_MIRROR_ROWS:
            self.mirrors.warm(scope, collection)  # small (often brand-new) collection: mirror it now, cheaply
        for row in rows:
            assert row.embedding is not None
            self.mirrors.put(scope, _record(row), row.embedding)

    async def update(
        self, scope: Scope, before: MemoryRecord, after: MemoryRecord, embedding: Vector | None = None
    ) -> MemoryRecord:
        """Write ``after`` over ``before`` (the same memory): the changed metadata keys, plus the
        text and ``embedding`` when one is given (a new text needs its new embedding)."""
        changes = changed_metadata(before, after)
        if embedding is None:
            await self.commits.update((scope.owner_of(before.collection), before.collection), before.id, changes)
        else:
            row = StoredRow(before.id, before.collection, after.content, changes, embedding)
            await self._io.run(self._chroma.update, scope, before.collection, row)
        await self._io.run(self.mirrors.put, scope, after, embedding)
        return after

    async def move(self, scope: Scope, before: MemoryRecord, after: MemoryRecord, target: str) -> MemoryRecord:
        """Re-home a memory in ``target`` under ``<target>_<uid>``, written as ``after``; add first, then delete.

        The new row keeps every stored key of the old one. A crash between the two
        steps leaves a copy in each collection; the maintenance sweep keeps the
        newer one (``moved_at``).
        """
        rows = await self._io.run(self._chroma.get, scope, before.collection, [before.id], embeddings=True)
        if not rows:
            raise InvalidRequest(f"memory {before.id} vanished during a move")
        old = rows[0]
        _, uid = split_id(before.id)
        metadata = {**old.metadata, **changed_metadata(before, after)}
        moved = StoredRow(memory_id(target, uid), target, old.document, metadata, old.embedding)
        await self.add_rows(scope, [moved])
        await self.delete(scope, before)
        return _record(moved)

    async def delete(self, scope: Scope, record: MemoryRecord) -> None:
        await self.delete_ids(scope, record.collection, [record.id])

    async def delete_ids(self, scope: Scope, collection: str, ids: list[str]) -> None:
        await self._io.run(self._chroma.delete, scope, collection, ids)
        await self._io.run(self._mirror_remove, scope, collection, ids)

    def _mirror_remove(self, scope: Scope, collection: str, ids: list[str]) -> None:
        for gone in ids:
            self.mirrors.remove(scope, collection, gone)

    # -- raw rows, for export and import ------------------------------------------------
    async def page_rows(self, scope: Scope, collection: str, offset: int, limit: int) -> list[StoredRow]:
        """One page of stored rows with their embeddings, as stored (exports write every key)."""
        return await self._io.run(self._chroma.page, scope, collection, offset, limit, embeddings=True)

    async def stored_ids(self, scope: Scope, collection: str, ids: list[str]) -> list[str]:
        """Which of ``ids`` the collection holds."""
        return [row.id for row in await self._io.run(self._chroma.get, scope, collection, ids)]
