"""Input checks and proto conversions give messages that say how to fix things."""

from __future__ import annotations

import pytest

from gateway import input_validation, proto_dicts
from gateway.gateway_errors import InvalidInput
from gateway.replies.memory_replies import Memory
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


def test_outcomes_and_sort_orders() -> None:
    assert proto_dicts.memory_outcome(" Worked ") == common_pb.OUTCOME_WORKED
    with pytest.raises(InvalidInput, match="worked, partial, unknown, failed"):
        proto_dicts.memory_outcome("great")
    with pytest.raises(InvalidInput, match="relevance, recency, score"):
        proto_dicts.sort_by("newest")


def test_unknown_collection_lists_the_choices() -> None:
    with pytest.raises(InvalidInput, match="memory_bank"):
        proto_dicts.collections(["notes"])
    assert proto_dicts.collections(["patterns", " history "]) == ["patterns", "history"]


@pytest.mark.parametrize("value", [0, 101, -1, True, 5.5])
def test_limit_range(value: object) -> None:
    with pytest.raises(InvalidInput, match="from 1 to 100"):
        input_validation.in_range(value, "limit", input_validation.LIMIT_RANGE)  # type: ignore[arg-type]


def test_text_limits_and_ids() -> None:
    with pytest.raises(InvalidInput, match="limit is 2,000"):
        input_validation.text("q" * 2001, "query", input_validation.MAX_QUERY_CHARS)
    with pytest.raises(InvalidInput, match="at most 200"):
        input_validation.memory_id("x" * 201)
    with pytest.raises(InvalidInput, match="empty"):
        input_validation.memory_id("  ")
    with pytest.raises(InvalidInput, match=r"0\.0 to 1\.0"):
        input_validation.unit(1.5, "importance")
    with pytest.raises(InvalidInput, match="10 MB"):
        input_validation.book_size(b"x" * (input_validation.MAX_BOOK_BYTES + 1))


def test_memory_dict_has_the_normalized_shape() -> None:
    proto = mem_pb.Memory(
        id="memory_bank_1",
        collection="memory_bank",
        content="c",
        importance=0.9,
        confidence=0.8,
        metadata_json='{"source": "cli"}',
        tags=["a"],
        embedding_similarity=0.5,
    )
    out = Memory.from_proto(proto).to_json()
    assert out["importance"] == 0.9 and out["confidence"] == 0.8
    assert out["metadata"] == {"source": "cli"} and out["tags"] == ["a"]
    assert out["embedding_similarity"] == 0.5 and "final_rank_score" not in out
    plain = Memory.from_proto(mem_pb.Memory(id="working_1", collection="working", metadata_json="not json")).to_json()
    assert "importance" not in plain and plain["metadata"] == {}


def test_gateway_limits_match_what_the_memory_service_keeps() -> None:
    from gateway import input_validation
    from services.memory.domain import write_rules

    assert input_validation.MAX_REASON_CHARS == write_rules.MAX_REASON_CHARS
