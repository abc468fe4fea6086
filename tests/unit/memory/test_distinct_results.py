"""``domain.distinct_results``: copies collapse into the best ranked one, the floor, the limit after collapsing."""

from __future__ import annotations

import numpy as np

from services.memory.domain.arrays import Vector
from services.memory.domain.distinct_results import (
    ListingRules,
    distinct,
    is_relevant,
    text_key,
    word_sequence,
)
from services.memory.domain.memory_view import NormalizedMemory


def memory(memory_id: str, content: str) -> NormalizedMemory:
    return NormalizedMemory(
        id=memory_id,
        collection="history",
        content=content,
        created_at="",
        age="",
        score=0.5,
        wilson_score=0.5,
        uses=0,
        success_count=0.0,
        learned_score=0.5,
        last_outcome="",
        outcome_history="",
    )


def unit(*values: float) -> Vector:
    vector = np.asarray(values, dtype=np.float64)
    return vector / np.linalg.norm(vector)


def test_text_key_normalises_case_and_whitespace_only() -> None:
    assert text_key("User: Fix it\n\nAssistant:  done ") == text_key("user: fix it assistant: done")
    assert text_key("x != y") != text_key("x == y")


def test_word_sequence_drops_filler_and_sentence_marks_but_keeps_numbers_and_operators() -> None:
    assert word_sequence("Fix the login redirect, please.") == word_sequence("fix login redirect!")
    assert word_sequence("2 failed, 41 passed") != word_sequence("1 failed, 42 passed")
    assert word_sequence("Enable strict mode") != word_sequence("Disable strict mode")
    assert word_sequence("deploy staging then production") != word_sequence("deploy production then staging")
    assert word_sequence("x != y") != word_sequence("x == y")


def test_identical_texts_collapse_into_the_best_ranked_copy_whatever_their_vectors() -> None:
    ranked = [memory("a", "Edited src/App.tsx"), memory("b", "edited  src/App.tsx"), memory("c", "Edited src/App.tsx")]
    shown = distinct(ranked, [None, None, None], [True, True, True], limit=10)
    assert [(s.memory.id, s.duplicate_ids) for s in shown] == [("a", ("b", "c"))]


def test_near_identical_needs_a_close_vector_and_the_same_words() -> None:
    close, far = unit(1.0, 0.0), unit(0.9, 0.45)  # cosine 1.0 and about 0.89
    ranked = [
        memory("a", "User: fix the login redirect\nAssistant: switched to navigate('/home')."),
        memory("b", "User: fix the login redirect please\nAssistant: switched to navigate('/home')"),
        memory("c", "User: fix the login redirect\nAssistant: switched to navigate('/login')."),
        memory("d", "User: fix login redirect\nAssistant: switched to navigate('/home')!"),
    ]
    vectors = [close, close, close, far]
    shown = distinct(ranked, vectors, [True] * 4, limit=10)
    # b: same words, close vector -> a copy; c: different words; d: same words but a distant vector
    assert [(s.memory.id, s.duplicate_ids) for s in shown] == [("a", ("b",)), ("c", ()), ("d", ())]


def test_the_limit_counts_distinct_results_and_copies_past_it_still_count() -> None:
    ranked = [memory(f"copy{i}", "same text") for i in range(5)]
    ranked += [memory(f"other{i}", f"distinct text number {i}") for i in range(4)]
    ranked.append(memory("late", "same text"))
    shown = distinct(ranked, [None] * len(ranked), [True] * len(ranked), limit=3)
    assert [s.memory.id for s in shown] == ["copy0", "other0", "other1"]
    assert shown[0].duplicate_ids == ("copy1", "copy2", "copy3", "copy4", "late")


def test_results_below_the_floor_are_left_out_but_join_a_relevant_copy() -> None:
    ranked = [memory("a", "kept"), memory("b", "off topic"), memory("c", "Kept")]
    shown = distinct(ranked, [None] * 3, [True, False, False], limit=10)
    assert [(s.memory.id, s.duplicate_ids) for s in shown] == [("a", ("c",))]


def test_relevant_by_cosine_or_by_coverage_of_the_query_words() -> None:
    rules = ListingRules(floor=0.3, coverage=0.5)
    assert is_relevant(0.31, 0.0, rules)
    assert is_relevant(0.05, 1.0, rules)  # an identifier the memory names: low cosine, full coverage
    assert not is_relevant(0.22, 0.26, rules)  # "terraform state lock" against a React store
    assert not is_relevant(None, 0.2, rules)  # keyword-only search (no embedding): coverage alone
