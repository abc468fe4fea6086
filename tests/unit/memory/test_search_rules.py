from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TypedDict

import pytest

from services.memory.domain import timefmt
from services.memory.domain.filters import matches, sort_memories, within
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import COLLECTIONS
from services.memory.domain.search_params import SortBy, build_search_params, parse_filters
from services.memory.storage.record_codec import parse_record


def moment(text: str) -> datetime:
    parsed = timefmt.parse(text)
    assert parsed is not None
    return parsed


NOW = moment("2025-06-10T00:00:00+00:00")
assert NOW is not None


def test_neither_query_nor_days_back_nor_id_says_what_to_pass() -> None:
    with pytest.raises(InvalidRequest) as err:
        build_search_params()
    message = str(err.value)
    assert "query" in message and "days_back" in message and "id" in message


class SearchArgs(TypedDict, total=False):
    """build_search_params' arguments, as a test sets some of them."""

    query: str
    has_vector: bool
    collections: Sequence[str]
    limit: int
    days_back: int
    memory_id: str
    sort_by: str
    filters_json: str
    collection_weights: Mapping[str, float] | None
    boost_ids: Sequence[str]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"query": "x", "limit": 101}, "limit=101"),
        ({"query": "x", "days_back": 3651}, "days_back=3651"),
        ({"query": "x", "sort_by": "newest"}, "sort_by"),
        ({"query": "x", "collections": ["notes"]}, "unknown collection"),
        ({"query": "x" * 10_001}, "characters"),
        ({"query": "x", "filters_json": "[1]"}, "JSON object"),
        ({"query": "x", "filters_json": "{bad"}, "not valid JSON"),
        ({"query": "x", "filters_json": '{"score": {"$near": 1}}'}, "unknown operator"),
        ({"query": "x", "collection_weights": {"books": -1.0}}, "out of range"),
        ({"memory_id": "no spaces allowed"}, "malformed"),
    ],
)
def test_bad_parameters_are_explained(kwargs: SearchArgs, fragment: str) -> None:
    # kwargs: build_search_params' arguments, bad on purpose.
    with pytest.raises(InvalidRequest) as err:
        build_search_params(**kwargs)
    assert fragment in str(err.value)


def test_defaults() -> None:
    semantic = build_search_params(query="auth bug")
    assert (semantic.limit, semantic.collections, semantic.sort_by) == (10, COLLECTIONS, SortBy.RELEVANCE)
    timeline = build_search_params(days_back=3)
    assert timeline.sort_by is SortBy.RECENCY and not timeline.semantic
    assert build_search_params(has_vector=True).semantic


def normalize(memory_id: str, metadata: dict[str, object], final_rank_score: float | None = None) -> NormalizedMemory:
    """A stored row as the read paths see it: parsed once into a record (collection from the id), then viewed."""
    return view(parse_record(memory_id, None, "c", metadata), now=NOW, final_rank_score=final_rank_score)


def memory(mid: str, created: str, score: float = 0.5, rank: float = 0.0, **meta: object) -> NormalizedMemory:
    return normalize(mid, {"created_at": created, "score": score, **meta}, final_rank_score=rank)


def test_sorts_read_the_normalized_fields() -> None:
    a = memory("working_a", "2025-06-09T00:00:00+00:00", score=0.2, rank=0.9)
    b = memory("history_b", "2025-06-01T00:00:00", score=0.9, rank=0.1)  # naive timestamp, still comparable
    c = normalize("patterns_c", {"timestamp": "2025-06-05T00:00:00+00:00", "score": 0.5})
    assert [m.id for m in sort_memories([b, c, a], SortBy.RECENCY)] == ["working_a", "patterns_c", "history_b"]
    assert [m.id for m in sort_memories([a, c, b], SortBy.SCORE)] == ["history_b", "patterns_c", "working_a"]
    assert [m.id for m in sort_memories([b, a], SortBy.RELEVANCE)] == ["working_a", "history_b"]


def test_filters_cover_fields_metadata_tags_and_dates() -> None:
    item = memory("memory_bank_a", "2025-06-08T00:00:00+00:00", title="Guide", tags=json.dumps(["pref", "tools"]))
    assert matches(item, parse_filters('{"title": "Guide"}'))
    assert not matches(item, parse_filters('{"title": "Other"}'))
    assert matches(item, parse_filters('{"tags": "pref"}'))
    assert matches(item, parse_filters('{"tags": {"$contains": "tools"}}'))
    assert matches(item, parse_filters('{"collection": {"$in": ["memory_bank", "books"]}}'))
    assert matches(item, parse_filters('{"created_at": {"$gte": "2025-06-07"}}'))
    assert not matches(item, parse_filters('{"created_at": {"$lt": "2025-06-07T00:00:00Z"}}'))
    assert matches(item, parse_filters('{"score": {"$gte": 0.5, "$lt": 0.6}}'))
    assert not matches(item, parse_filters('{"missing_key": 1}'))


def test_within_uses_the_normalized_created_at() -> None:
    cutoff = timefmt.parse("2025-06-05T00:00:00+00:00")
    assert within(memory("working_a", "2025-06-06T00:00:00+00:00"), cutoff)
    assert not within(memory("working_a", "2025-06-04T00:00:00+00:00"), cutoff)
    undated = normalize("working_z", {})
    assert not within(undated, cutoff) and within(undated, None)
