"""Query rewriting without an LLM."""

from __future__ import annotations

import pytest

from services.memory.retrieval.query_expansion import expand_query, temporal_hint


def test_question_words_are_dropped_and_content_kept() -> None:
    expanded = expand_query("What did Caroline research?")
    assert "what" not in expanded.lexical_terms
    assert expanded.lexical_terms.get("carolin") == 1.0
    assert not expanded.temporal


def test_related_terms_get_lower_weight() -> None:
    expanded = expand_query("How many kids does Melanie have?")
    assert expanded.lexical_terms["kid"] == 1.0
    assert 0 < expanded.lexical_terms["son"] < 1.0


@pytest.mark.parametrize(
    ("question", "temporal", "hint"),
    [
        ("When did Caroline go to the support group?", True, None),
        ("What did Melanie paint in May 2023?", True, (2023, 5)),
        ("Where did they travel in 2022?", True, (2022, None)),
        ("What may Caroline like?", False, None),
        ("What is Caroline's identity?", False, None),
    ],
)
def test_temporal_cues(question: str, temporal: bool, hint: tuple[int, int | None] | None) -> None:
    assert temporal_hint(question) == (temporal, hint)
    assert expand_query(question).temporal is temporal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went to a support group yesterday", True),
        ("We went camping last weekend", True),
        ("See you next Friday!", True),
        ("[1:56 pm on 8 May, 2023] Caroline: I love painting", False),
        ("That sounds lovely", False),
    ],
)
def test_mentions_time_is_relative_time_only(text: str, expected: bool) -> None:
    from services.memory.retrieval.query_expansion import mentions_time

    assert mentions_time(text) is expected
