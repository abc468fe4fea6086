"""Reciprocal rank fusion."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.memory.fusion import fuse_ranked, ranked_ids, rrf_fuse

ids = st.lists(st.sampled_from(list("abcdefghij")), unique=True, max_size=10)


def test_documents_in_both_lists_win() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["c", "d", "a"]], k=60)
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert ranked_ids(fused)[:2] == ["a", "c"]
    assert set(fused) == {"a", "b", "c", "d"}


def test_weights_scale_each_ranking() -> None:
    fused = rrf_fuse([["a"], ["b"]], k=0, weights=[1.0, 2.0])
    assert fused == {"a": 1.0, "b": 2.0}
    assert fuse_ranked([["a"], ["b"]], weights=[0.0, 1.0]) == ["b"]


def test_duplicates_count_once_at_best_rank() -> None:
    assert rrf_fuse([["a", "a", "b"]], k=0) == {"a": 1.0, "b": pytest.approx(1 / 3)}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"weights": [1.0]}, "one weight per ranking"), ({"k": -1}, "k must be >= 0"), ({"weights": [1.0, -1.0]}, ">= 0")],
)
def test_bad_arguments_say_how_to_fix(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rrf_fuse([["a"], ["b"]], **kwargs)


@given(rankings=st.lists(ids, max_size=4))
def test_order_of_rankings_does_not_matter(rankings: list[list[str]]) -> None:
    forward = rrf_fuse(rankings)
    backward = rrf_fuse(list(reversed(rankings)))
    assert forward.keys() == backward.keys()
    for doc_id in forward:
        assert forward[doc_id] == pytest.approx(backward[doc_id])
    assert ranked_ids(forward) == ranked_ids(backward)


@given(ranking=ids)
def test_single_ranking_order_is_preserved(ranking: list[str]) -> None:
    assert ranked_ids(rrf_fuse([ranking])) == ranking


@given(a=ids, b=ids)
def test_union_of_ids_and_positive_scores(a: list[str], b: list[str]) -> None:
    fused = rrf_fuse([a, b])
    assert set(fused) == set(a) | set(b)
    assert all(score > 0 for score in fused.values())
