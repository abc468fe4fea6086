"""Every write path reaches the keyword index: a lexical-only query finds what each one wrote.

The BM25 index and the time cues live in retrieval (``retrieval.mirror_text``) and
sync from the mirror's change feed before each read; storage never calls into
retrieval. So the index cannot be told about a write; it has to see it. Each write
path of the service runs here through its use case (store, update, archive and
restore, a lifecycle move and delete, a consolidation merge, an import), and a query
answered from keyword matches alone (the embedding service refuses the query) must
find exactly what that write left active.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from services.memory.composition import MemoryUseCases
from services.memory.domain.lifecycle import Action, Transition
from services.memory.domain.naming import Scope
from services.memory.domain.search_params import build_search_params
from services.memory.storage.collection_mirror import CHANGE_FEED
from services.memory.usecases.lifecycle_moves import LifecycleMoves
from tests.support.memory_core import HashEmbedder, make_core, unit

QUERY_MARK = "lookup:"  # texts the embedder refuses: the query, so the search answers from keywords alone


class QueryRefusingEmbedder(HashEmbedder):
    async def embed(self, texts: list[str], timeout: float | None = None) -> npt.NDArray[np.float32]:
        if any(text.startswith(QUERY_MARK) for text in texts):
            raise ConnectionError("embedding service down")
        return await super().embed(texts, timeout)


async def keyword_hits(core: MemoryUseCases, scope: Scope, word: str) -> set[str]:
    params = build_search_params(query=f"{QUERY_MARK} {word}", has_vector=False, limit=20)
    return {m.id for m in await core.searcher.search(scope, params)}


def vector(seed: int) -> bytes:
    return unit(np.random.default_rng(seed).standard_normal(384).astype(np.float32))


async def lines(*records: dict[str, object]) -> AsyncIterator[str]:
    for record in records:
        yield json.dumps(record)


def test_a_lexical_only_query_finds_what_every_write_path_wrote(tmp_path: Path) -> None:
    async def main() -> None:
        core = make_core(tmp_path, embedder=QueryRefusingEmbedder())
        scope = core.scope("u", "p")
        writes = core.writes

        async def store(content: str, collection: str = "working", seed: int = 0) -> str:
            result = await writes.store(scope, collection=collection, content=content, vector=vector(seed))
            return result.memory.id

        # mirrors built before the writes below, so every write reaches a built mirror
        assert await keyword_hits(core, scope, "anything") == set()

        # store
        stored = await store("the zebrafish tank needs a new heater", seed=1)
        assert await keyword_hits(core, scope, "zebrafish") == {stored}

        # update: the new words are found, the old ones no longer
        await writes.update(
            scope,
            stored,
            content="the quokka enclosure needs a new heater",
            tags=[],
            replace_tags=False,
            importance=None,
            confidence=None,
        )
        assert await keyword_hits(core, scope, "quokka") == {stored}
        assert await keyword_hits(core, scope, "zebrafish") == set()

        # archive, then restore
        await writes.archive(scope, stored, "no longer relevant")
        assert await keyword_hits(core, scope, "quokka") == set()
        await core.restore.restore(scope, stored)
        assert await keyword_hits(core, scope, "quokka") == {stored}

        # lifecycle: a promotion moves the memory to another collection (a new id), a deletion removes it
        moves = LifecycleMoves(
            core.store, core.events, core.io, locks=core.locks, lifecycle=core.settings.lifecycle, clock=core.clock
        )
        record = await core.store.locate(scope, stored)
        assert record is not None
        _, moved = await moves.apply(scope, record, record, Transition(Action.PROMOTE, "history"))
        assert moved != stored
        assert await keyword_hits(core, scope, "quokka") == {moved}
        record = await core.store.locate(scope, moved)
        assert record is not None
        await moves.apply(scope, record, record, Transition(Action.DELETE))
        assert await keyword_hits(core, scope, "quokka") == set()

        # consolidation: the merge is found, its archived sources are not
        first = await store("the axolotl prefers cold water", "patterns", seed=2)
        second = await store("keep the axolotl water below twenty degrees", "patterns", seed=3)
        assert await keyword_hits(core, scope, "axolotl") == {first, second}
        merge = await core.consolidation.consolidate(
            scope, source_ids=[first, second], content="the axolotl wants cold water, below twenty degrees"
        )
        assert await keyword_hits(core, scope, "axolotl") == {merge.merged.id}
        undone = await core.consolidation.undo(scope, merge.merged.id)
        assert await keyword_hits(core, scope, "axolotl") == {m.id for m in undone.restored}

        # import
        report = await core.portability.import_records(
            lines(
                {
                    "scope": {"user": "u", "project": "p"},
                    "collection": "history",
                    "id": "history_imported1",
                    "content": "the narwhal documentary was imported from the old laptop",
                    "metadata": {"created_at": "2026-01-01T00:00:00+00:00"},
                }
            )
        )
        assert report.imported == 1
        assert await keyword_hits(core, scope, "narwhal") == {"history_imported1"}
        await core.close()

    asyncio.run(main())


def test_a_reader_further_behind_than_the_change_feed_rebuilds_and_misses_nothing(tmp_path: Path) -> None:
    """More mirror changes between two reads than the feed keeps: the index rebuilds from the mirror's rows."""

    async def main() -> None:
        core = make_core(tmp_path, embedder=QueryRefusingEmbedder())
        scope = core.scope("u", "p")
        ids = []
        for i in range(5):
            result = await core.writes.store(
                scope, collection="working", content=f"pangolin sighting number {i}", vector=vector(100 + i)
            )
            ids.append(result.memory.id)
        assert await keyword_hits(core, scope, "pangolin") == set(ids)
        with core.store.mirrors.read(scope, "working") as mirror:
            behind = core.texts.synced(mirror).version
        await core.writes.update(
            scope,
            ids[0],
            content="an armadillo, not a pangolin",
            tags=[],
            replace_tags=False,
            importance=None,
            confidence=None,
        )
        await core.writes.archive(scope, ids[1], "seen twice")
        churned = await core.store.locate(scope, ids[2])
        assert churned is not None
        for _ in range(CHANGE_FEED):  # a burst of changes to one row: the feed forgets the two above
            core.store.mirrors.put(scope, churned)
        with core.store.mirrors.read(scope, "working") as mirror:
            assert mirror.changes_since(behind) is None  # the feed no longer reaches back
        assert await keyword_hits(core, scope, "armadillo") == {ids[0]}
        assert await keyword_hits(core, scope, "pangolin") == {ids[0], ids[2], ids[3], ids[4]}
        await core.close()

    asyncio.run(main())
