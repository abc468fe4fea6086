"""LexicalIndex: BM25 ranking, incremental add/remove, bounds."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.memory.retrieval.lexical import LexicalIndex

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "kappa", "lambda"]


def build(docs: dict[str, str]) -> LexicalIndex:
    index = LexicalIndex()
    for doc_id, text in docs.items():
        index.add(doc_id, text)
    return index


def test_ranks_matching_document_first() -> None:
    index = build(
        {
            "pytest": "run the unit tests with pytest -x before committing",
            "docker": "docker compose up brings the database online",
            "chroma": "chroma queries need explicit embeddings or they download a model",
        }
    )
    hits = index.search("how do I run the tests?", 3)
    assert hits[0][0] == "pytest"
    assert all(score > 0 for _, score in hits)
    assert [doc for doc, _ in index.search("database compose", 3)] == ["docker"]


def test_rare_terms_outweigh_common_ones() -> None:
    index = build({f"d{i}": "deploy service" for i in range(20)})
    index.add("special", "deploy kubernetes")
    assert index.search("deploy kubernetes", 1)[0][0] == "special"


def test_add_replaces_and_remove_forgets() -> None:
    index = build({"a": "postgres migration failed", "b": "redis cache warm"})
    index.add("a", "mysql replica lag")
    assert len(index) == 2
    assert index.search("postgres", 5) == []
    assert index.search("mysql", 5)[0][0] == "a"
    index.remove("a")
    index.remove("never-added")
    assert len(index) == 1
    assert index.search("mysql", 5) == []
    assert "a" not in index and "b" in index


def test_code_identifiers_match_whole_and_parts() -> None:
    index = build(
        {
            "camel": "fixed a crash in getUserName when the header is empty",
            "path": "the bug lives in services/memory/lexical.py line 40",
            "other": "user interface colours were updated",
        }
    )
    assert index.search("getUserName", 3)[0][0] == "camel"
    assert index.search("lexical.py", 3)[0][0] == "path"
    # parts are indexed too: "user name" reaches the camelCase identifier
    assert index.search("user name", 3)[0][0] == "camel"


def test_empty_index_empty_query_and_k_zero() -> None:
    index = LexicalIndex()
    assert index.search("anything", 5) == []
    index.add("a", "something here")
    assert index.search("", 5) == []
    assert index.search("the of and", 5) == []  # only stopwords
    assert index.search("something", 0) == []


def test_huge_inputs_are_bounded() -> None:
    index = LexicalIndex()
    index.add("big", "word " * 200_000)
    assert len(index) == 1
    assert index.search("word " * 10_000, 1)[0][0] == "big"


def test_ties_break_by_id() -> None:
    index = build({"b": "shared text", "a": "shared text", "c": "shared text", "d": "other"})
    assert [d for d, _ in index.search("shared", 2)] == ["a", "b"]


texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    base=st.dictionaries(st.text(string.ascii_lowercase, min_size=1, max_size=4), texts, max_size=12),
    extra_text=texts,
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
)
def test_remove_undoes_add(base: dict[str, str], extra_text: str, query: str) -> None:
    index = build(base)
    before = index.search(query, 20)
    index.add("__extra__", extra_text)
    index.remove("__extra__")
    after = index.search(query, 20)
    assert [d for d, _ in after] == [d for d, _ in before]
    for (_, s1), (_, s2) in zip(before, after, strict=True):
        assert abs(s1 - s2) < 1e-9


@settings(max_examples=40, deadline=None)
@given(docs=st.dictionaries(st.text(string.ascii_lowercase, min_size=1, max_size=4), texts, min_size=1, max_size=12))
def test_insertion_order_does_not_change_results(docs: dict[str, str]) -> None:
    forward = build(docs)
    backward = build(dict(reversed(list(docs.items()))))
    for word in WORDS[:4]:
        assert forward.search(word, 10) == backward.search(word, 10)


@settings(max_examples=40, deadline=None)
@given(
    docs=st.dictionaries(st.text(string.ascii_lowercase, min_size=1, max_size=4), texts, max_size=12),
    k=st.integers(1, 15),
)
def test_results_are_sorted_and_bounded(docs: dict[str, str], k: int) -> None:
    hits = build(docs).search("alpha beta gamma", k)
    assert len(hits) <= k
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)


@settings(max_examples=30, deadline=None)
@given(
    ops=st.lists(
        st.tuples(st.booleans(), st.integers(0, 15), texts),
        min_size=1,
        max_size=80,
    )
)
def test_churn_matches_a_fresh_index(ops: list[tuple[bool, int, str]]) -> None:
    """Any mix of adds, replaces and removes (with compaction and renumbering) equals building from scratch."""
    churned = LexicalIndex()
    live: dict[str, str] = {}
    for is_add, key, text in ops:
        doc_id = f"d{key}"
        if is_add:
            churned.add(doc_id, text)
            live[doc_id] = text
        else:
            churned.remove(doc_id)
            live.pop(doc_id, None)
    fresh = build(live)
    assert len(churned) == len(fresh) == len(live)
    for word in WORDS:
        got, want = churned.search(word, 20), fresh.search(word, 20)
        assert [d for d, _ in got] == [d for d, _ in want]
        assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(got, want, strict=True))


def test_heavy_churn_renumbers_slots() -> None:
    index = LexicalIndex()
    for round_ in range(6):
        for i in range(1000):
            index.add(f"doc{i}", f"alpha beta round{round_} item{i}")
    for i in range(990):
        index.remove(f"doc{i}")
    assert len(index) == 10
    assert index._next_slot <= 1024  # renumbered: 6,000 slots were used, the slot space shrank back
    hits = index.search("round5 item995", 3)
    assert hits[0][0] == "doc995"


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["add", "remove", "search"]), st.integers(0, 9), texts),
        min_size=1,
        max_size=60,
    )
)
def test_cached_term_parts_never_outlive_a_write(ops: list[tuple[str, int, str]]) -> None:
    """Searches between writes reuse each term's cached part; every answer still equals a fresh index's."""
    index = LexicalIndex()
    live: dict[str, str] = {}
    for op, key, text in ops:
        doc_id = f"d{key}"
        if op == "add":
            index.add(doc_id, text)
            live[doc_id] = text
        elif op == "remove":
            index.remove(doc_id)
            live.pop(doc_id, None)
        for word in WORDS[:4] if op == "search" else WORDS[:1]:
            got, want = index.search(word, 5), build(live).search(word, 5)
            assert [d for d, _ in got] == [d for d, _ in want]
            assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(got, want, strict=True))


def test_the_term_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import services.memory.retrieval.lexical as lexical

    monkeypatch.setattr(lexical, "MAX_CACHED_POSTINGS", 50)
    index = build({f"d{i}": " ".join(WORDS) for i in range(20)})  # every term has 20 postings
    for word in WORDS:
        assert [d for d, _ in index.search(word, 3)] == ["d0", "d1", "d10"]
        assert index._cached_postings <= 50
