from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from services.memory.domain.arrays import Vector
from services.memory.domain.ranking import RankInput, learned_score
from services.memory.domain.record import MemoryRecord
from services.memory.retrieval.lexical import LexicalIndex
from services.memory.retrieval.mirror_text import MirrorText, MirrorTexts
from services.memory.storage.collection_mirror import CHANGE_FEED, CollectionMirror
from services.memory.storage.record_codec import parse_record

DIM = 8
TEXTS = MirrorTexts(lexical=True)  # retrieval's BM25 index and time cues, synced from each mirror's change feed


def unit(seed: int) -> Vector:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def meta(created: str = "2025-01-01T00:00:00+00:00", **extra: object) -> dict[str, object]:
    return {"created_at": created, "score": 0.5, **extra}


def record(memory_id: str, document: str, metadata: dict[str, object], collection: str = "history") -> MemoryRecord:
    """A stored row as the mirror receives it: parsed once by the record codec."""
    return parse_record(memory_id, collection, document, metadata)


def stored(mirror: CollectionMirror, memory_id: str) -> MemoryRecord:
    row = mirror.row(memory_id)
    assert row is not None
    return row


def patch(
    mirror: CollectionMirror,
    memory_id: str,
    embedding: Vector | None = None,
    *,
    content: str | None = None,
    score: float | None = None,
    uses: int | None = None,
    success_count: float | None = None,
) -> None:
    """An update as the store makes it: the mirrored record with some fields changed, put back
    (without ``embedding`` the row keeps its vector)."""
    before = stored(mirror, memory_id)
    counters = dataclasses.replace(
        before.counters,
        score=before.counters.score if score is None else score,
        uses=before.counters.uses if uses is None else uses,
        success_count=before.counters.success_count if success_count is None else success_count,
    )
    after = dataclasses.replace(before, counters=counters)
    if content is not None:
        after = dataclasses.replace(after, content=content)
    mirror.put(after, embedding)


def archive(mirror: CollectionMirror, memory_id: str, archived: bool) -> None:
    mirror.put(dataclasses.replace(stored(mirror, memory_id), archived=archived))


def bm25(mirror: CollectionMirror) -> LexicalIndex:
    lexical = TEXTS.synced(mirror).lexical
    assert isinstance(lexical, LexicalIndex)
    return lexical


def filled(n: int) -> CollectionMirror:
    mirror = CollectionMirror("history", DIM)
    for i in range(n):
        mirror.put(record(f"m{i}", f"note number {i} about topic{i % 3}", meta()), unit(i))
    return mirror


def test_nearest_is_exact_cosine_order() -> None:
    mirror = filled(300)
    query = unit(1000)
    expected = sorted(range(300), key=lambda i: -float(unit(i) @ query))[:10]
    got = mirror.nearest(query, 10)
    assert [row.id for row, _ in got] == [f"m{i}" for i in expected]
    assert got[0][1] == pytest.approx(float(unit(expected[0]) @ query), abs=1e-5)


def test_remove_keeps_rows_packed_and_consistent() -> None:
    mirror = filled(50)
    for i in range(0, 50, 2):
        mirror.remove(f"m{i}")
    mirror.remove("never-there")
    assert len(mirror) == 25
    for i in range(1, 50, 2):  # every survivor still maps to its own vector and text
        assert mirror.similarities([f"m{i}"], unit(i))[0] == pytest.approx(1.0, abs=1e-5)
        row = mirror.row(f"m{i}")
        assert row is not None and row.content == f"note number {i} about topic{i % 3}"
    assert all(row.id not in {f"m{i}" for i in range(0, 50, 2)} for row, _ in mirror.nearest(unit(7), 50))
    assert {doc for doc, _ in bm25(mirror).search("number", 100)} == {f"m{i}" for i in range(1, 50, 2)}


def test_archived_rows_leave_nearest_and_bm25_but_stay_readable() -> None:
    mirror = filled(5)
    archive(mirror, "m2", True)
    assert "m2" not in [row.id for row, _ in mirror.nearest(unit(2), 5)]
    assert "m2" not in dict(bm25(mirror).search("topic2", 5))
    row = mirror.row("m2")
    assert row is not None and row.archived is True
    archive(mirror, "m2", False)
    assert mirror.nearest(unit(2), 1)[0][0].id == "m2"


def test_put_of_a_changed_record_refreshes_rank_facts_and_text() -> None:
    mirror = filled(3)
    patch(mirror, "m1", score=0.9, uses=4)
    row = mirror.row("m1")
    assert row is not None and row.counters.score == 0.9 and row.counters.uses == 4
    patch(mirror, "m1", unit(99), content="completely different words")
    assert mirror.nearest(unit(99), 1)[0][0].id == "m1"
    assert dict(bm25(mirror).search("different", 3)).keys() == {"m1"}
    assert stored(mirror, "m1").counters.score == 0.9
    with pytest.raises(ValueError, match="not mirrored"):  # a new row needs its vector
        mirror.put(record("m9", "t", meta()))


def test_time_window_and_growth() -> None:
    mirror = CollectionMirror("working", DIM)
    for i in range(600):  # beyond the initial capacity
        created = "2025-01-10T00:00:00+00:00" if i % 2 else "2024-12-01T00:00:00+00:00"
        mirror.put(record(f"m{i}", "t", meta(created), "working"), unit(i))
    since = 1736294400.0  # 2025-01-08
    recent = {row.id for row in mirror.rows_since(since)}
    assert recent == {f"m{i}" for i in range(1, 600, 2)}
    assert all(int(row.id[1:]) % 2 for row, _ in mirror.nearest(unit(3), 40, since))
    with pytest.raises(ValueError, match="dimension"):
        mirror.put(record("bad", "t", meta(), "working"), np.ones(DIM + 1, dtype=np.float32))


def test_rank_columns_follow_every_write() -> None:
    """The learned score, creation time and time flag the prompt path reads stay in step with the row."""

    def expected(mirror: CollectionMirror, memory_id: str) -> tuple[float, float, bool]:
        row = stored(mirror, memory_id)
        c = row.counters
        learned = learned_score(RankInput("history", c.score, c.uses, c.success_count, 0.0))
        return learned, row.created_ts, "yesterday" in row.content

    mirror = filled(40)
    mirror.put(record("m3", "we fixed it yesterday", meta(score=0.9)), unit(3))
    patch(mirror, "m5", score=0.1, uses=4, success_count=1.0)
    patch(mirror, "m7", content="moved on yesterday")
    mirror.remove("m0")  # the last row moves into slot 0
    for memory_id in ("m3", "m5", "m7", "m39", "m12"):
        slot = mirror.slot_of(memory_id)
        assert slot is not None
        ids, learned, created = mirror.rank_columns(np.array([slot]))
        cue = TEXTS.synced(mirror).cue_column(ids)
        assert ids == [memory_id]
        assert (float(learned[0]), float(created[0]), bool(cue[0])) == pytest.approx(expected(mirror, memory_id))


def test_scan_gives_every_cosine_and_the_live_top() -> None:
    mirror = filled(60)
    archive(mirror, "m1", True)
    query = unit(1000)
    sims, top = mirror.scan(query, 5)
    assert len(sims) == 60
    assert [mirror.rank_columns(top)[0]] == [[row.id for row, _ in mirror.nearest(query, 5)]]
    assert mirror.slot_of("m1") not in top.tolist()


class CountingIndex(LexicalIndex):
    """A real BM25 index that notes which ids it was handed text for."""

    def __init__(self) -> None:
        super().__init__()
        self.added: list[str] = []

    def add(self, doc_id: str, text: str) -> None:
        self.added.append(doc_id)
        super().add(doc_id, text)


def test_a_text_further_behind_than_the_feed_indexes_only_what_changed() -> None:
    mirror = filled(50)
    index = CountingIndex()
    text = MirrorText(index)
    text.sync(mirror)
    assert len(index.added) == 50
    index.added.clear()
    synced_at = text.version
    for round_ in range(CHANGE_FEED // 50 + 1):  # more changes than the feed keeps, scores only
        for i in range(50):
            patch(mirror, f"m{i}", uses=round_ + 1)
    patch(mirror, "m3", content="the staging cluster moved to frankfurt")
    archive(mirror, "m4", True)
    mirror.put(record("m50", "a brand new note about kubernetes", meta()), unit(50))
    assert mirror.changes_since(synced_at) is None  # the feed no longer reaches back: the text reconciles
    text.sync(mirror)
    assert sorted(index.added) == ["m3", "m50"]  # the 48 rows whose text did not change are not indexed again
    assert [doc for doc, _ in index.search_terms(["frankfurt"], 5)] == ["m3"]
    assert index.search_terms(["topic1"], 60) and "m4" not in dict(index.search_terms(["note"], 60))
    assert "m3" not in dict(index.search_terms(["number"], 60))  # its old words are gone


def test_behind_counts_the_changes_a_text_has_yet_to_apply() -> None:
    texts = MirrorTexts(lexical=True)
    mirror = filled(5)
    assert texts.behind(mirror) == mirror.version + 1  # never synced
    texts.synced(mirror)
    assert texts.behind(mirror) == 0
    for i in range(3):
        patch(mirror, f"m{i}", uses=1)
    assert texts.behind(mirror) == 3


def test_a_projects_keyword_hits_are_not_crowded_out_by_other_projects_facts() -> None:
    from services.memory.retrieval.candidates import lexical_hits, lexical_terms

    mirror = CollectionMirror("memory_bank", DIM)
    for i in range(300):  # 30 name the query's words twice: they outscore the project's own
        line = f"billing deploys billing deploys to cluster {i}" if i < 30 else f"lunch is at noon on floor {i}"
        mirror.put(record(f"o{i}", line, meta(fact_scope="project", project=f"other{i % 7}"), "memory_bank"), unit(i))
    mirror.put(
        record("own", "billing deploys on Tuesdays", meta(fact_scope="project", project="here"), "memory_bank"),
        unit(900),
    )
    mirror.put(
        record("wide", "deploys need a ticket", meta(fact_scope="user", project="other1"), "memory_bank"), unit(901)
    )
    synced, terms = TEXTS.synced(mirror), lexical_terms("billing deploys")
    assert "own" not in [doc_id for doc_id, _ in lexical_hits(mirror, synced, terms, 5, None)]
    hits = [doc_id for doc_id, _ in lexical_hits(mirror, synced, terms, 5, "here")]
    assert hits == ["own", "wide"]
