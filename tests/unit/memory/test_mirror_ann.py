"""The mirror's ANN path (faiss IVF, ``storage.ann_index``): same answers as the exact scan, and an index
that follows every write although mirror slots move.

Vectors here are random (no model); ``tests/integration/memory/test_ann_search.py`` checks the same
through the service with real MiniLM embeddings.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from services.memory.domain.arrays import Vector
from services.memory.domain.record import MemoryRecord
from services.memory.storage.collection_mirror import CollectionMirror
from services.memory.storage.record_codec import parse_record

DIM = 32
ROWS = 1500
MIN_ROWS = 1000


def vectors(n: int, seed: int) -> Vector:
    rows = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    normed: Vector = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normed


def record(i: int) -> MemoryRecord:
    return parse_record(f"m{i}", "history", f"note {i}", {"created_at": "2025-01-01T00:00:00+00:00", "score": 0.5})


def filled(min_rows: int = MIN_ROWS) -> tuple[CollectionMirror, Vector]:
    mirror = CollectionMirror("history", DIM, ann_min_rows=min_rows)
    rows = vectors(ROWS, seed=1)
    for i, row in enumerate(rows):
        mirror.put(record(i), row)
    return mirror, rows


def exact_ids(mirror: CollectionMirror, query: Vector, k: int) -> list[str]:
    _, top = mirror.scan(query, k)
    return mirror.rank_columns(top)[0]


def ann_ids(mirror: CollectionMirror, query: Vector, k: int) -> list[str]:
    top, _ = mirror.top_slots(query, k)
    return mirror.rank_columns(top)[0]


def exhaustive(mirror: CollectionMirror) -> None:
    """Search the whole graph: the index's candidates then contain the true top k, so answers must match."""
    index = mirror.ann_index
    assert index is not None
    index.ef_search = 4 * ROWS


def assert_consistent(mirror: CollectionMirror) -> None:
    """The index holds exactly the active rows, each under the label its slot carries now."""
    index = mirror.ann_index
    assert index is not None
    active = {mirror.rank_columns(np.asarray([s]))[0][0] for s in range(len(mirror)) if mirror._active[s]}
    assert len(index) == len(active)
    for i in sorted(active)[:: max(1, len(active) // 50)]:  # a sample: each row must be its own nearest
        slot = mirror.slot_of(i)
        assert slot is not None
        query = mirror._matrix[slot]
        assert ann_ids(mirror, query, 1) == [i]


def test_below_the_threshold_the_mirror_scans_exactly() -> None:
    mirror, rows = filled(min_rows=ROWS + 1)
    assert mirror.top_slots(rows[0], 5)[0].tolist() == mirror.scan(rows[0], 5)[1].tolist()
    assert mirror.ann_index is None


def test_ann_top_k_equals_the_exact_top_k_with_exact_cosines() -> None:
    mirror, _ = filled()
    queries = vectors(40, seed=2)
    mirror.top_slots(queries[0], 1)  # builds the index
    exhaustive(mirror)
    for query in queries:
        top, cosines = mirror.top_slots(query, 10)
        assert mirror.rank_columns(top)[0] == exact_ids(mirror, query, 10)
        sims, _ = mirror.scan(query, 10)
        np.testing.assert_allclose(cosines, sims[top], rtol=1e-5, atol=1e-6)
    got = [row.id for row, _ in mirror.nearest(queries[0], 10)]
    assert got == exact_ids(mirror, queries[0], 10)


def test_removals_archives_and_new_vectors_keep_the_index_in_step() -> None:
    mirror, rows = filled()
    mirror.top_slots(rows[0], 1)
    exhaustive(mirror)
    for i in range(0, 300, 3):  # removal moves the last row into the freed slot
        mirror.remove(f"m{i}")
    for i in range(1, 300, 3):
        mirror.put(dataclasses.replace(record(i), archived=True))
    for i in range(2, 60, 3):  # a new vector for a row: it must be found by the new one only
        mirror.put(record(i), -rows[i])
    for i in range(ROWS, ROWS + 50):
        mirror.put(record(i), vectors(1, seed=i)[0])
    mirror.put(record(4))  # restore an archived row without a new vector
    assert_consistent(mirror)
    gone = {f"m{i}" for i in range(0, 300, 3)} | {f"m{i}" for i in range(7, 300, 3)}
    for query in vectors(30, seed=3):
        found = ann_ids(mirror, query, 20)
        assert found == exact_ids(mirror, query, 20)
        assert not gone & set(found)
    assert ann_ids(mirror, -rows[2], 1) == ["m2"]
    assert "m2" not in ann_ids(mirror, rows[2], 5)
    assert ann_ids(mirror, rows[4], 1) == ["m4"]


def test_the_index_is_dropped_when_the_collection_shrinks_and_rebuilt_when_it_grows() -> None:
    mirror, rows = filled()
    mirror.top_slots(rows[0], 1)
    assert mirror.ann_index is not None
    for i in range(1100):
        mirror.remove(f"m{i}")
    assert ann_ids(mirror, rows[1200], 1) == ["m1200"]
    assert mirror.ann_index is None  # 400 rows: below half the threshold, exact again
    for i in range(1100):
        mirror.put(record(i), rows[i])
    mirror.top_slots(rows[0], 1)
    assert_consistent(mirror)


def test_a_fresh_mirror_rebuilds_the_same_index_from_its_rows() -> None:
    first, _ = filled()
    second, _ = filled()  # what a restart does: rows loaded again, index built on the first query
    queries = vectors(20, seed=4)
    for query in queries:
        assert ann_ids(first, query, 10) == ann_ids(second, query, 10)


def test_the_threshold_is_read_from_the_environment() -> None:
    from kernel.config import ConfigError
    from services.memory.settings import MemorySettings
    from services.memory.storage.ann_index import DEFAULT_MIN_ROWS

    assert MemorySettings.from_env({}).ann_min_rows == DEFAULT_MIN_ROWS
    assert MemorySettings.from_env({"MNEMEX_MEMORY_ANN_MIN_ROWS": "0"}).ann_min_rows == 0
    assert MemorySettings.from_env({"MNEMEX_MEMORY_ANN_MIN_ROWS": "50000"}).ann_min_rows == 50_000
    for bad in ("-1", "2.5", "many"):
        with pytest.raises(ConfigError, match="MNEMEX_MEMORY_ANN_MIN_ROWS"):
            MemorySettings.from_env({"MNEMEX_MEMORY_ANN_MIN_ROWS": bad})


def fact(i: int) -> MemoryRecord:
    """A memory_bank fact: most of project a's, every tenth user-wide, every 50th project b's."""
    meta: dict[str, object] = {"created_at": "2025-01-01T00:00:00+00:00", "score": 0.5, "fact_scope": "project"}
    meta["project"] = "b" if i % 50 == 7 else "a"
    if i % 10 == 3:
        meta["fact_scope"] = "user"
    return parse_record(f"f{i}", "memory_bank", f"fact {i}", meta)


def held_in_b(i: int) -> bool:
    return i % 50 == 7 or i % 10 == 3


@pytest.mark.parametrize("min_rows", [0, MIN_ROWS])  # exact scan, then through the ANN index
def test_a_projects_query_takes_only_the_facts_that_hold_there(min_rows: int) -> None:
    mirror = CollectionMirror("memory_bank", DIM, ann_min_rows=min_rows)
    rows = vectors(ROWS, seed=3)
    for i, row in enumerate(rows):
        mirror.put(fact(i), row)
    mirror.remove("f7")  # slots move: the scope column moves with them
    if min_rows:
        mirror.index_if_large()
        exhaustive(mirror)
    query = vectors(1, seed=4)[0]
    k = 20
    wanted = [i for i in np.argsort(-(rows @ query)).tolist() if held_in_b(i) and i != 7][:k]
    top, cosines = mirror.top_slots(query, k, project="b")
    assert mirror.rank_columns(top)[0] == [f"f{i}" for i in wanted]
    assert np.allclose(cosines, rows[wanted] @ query, atol=1e-5)
    unknown, _ = mirror.top_slots(query, k, project="never-seen")  # user-wide facts hold everywhere
    assert all(int(name[1:]) % 10 == 3 for name in mirror.rank_columns(unknown)[0])
    every, _ = mirror.top_slots(query, k)
    assert mirror.rank_columns(every)[0] == [f"f{i}" for i in np.argsort(-(rows @ query)).tolist() if i != 7][:k]
