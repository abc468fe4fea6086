"""The rules of domain.context_selection on hand-made results (the real-model cases are integration tests)."""

from __future__ import annotations

import numpy as np

from services.memory.domain.arrays import Vector
from services.memory.domain.context_selection import STALE_VALUE_OF, SelectionRules, covers_fact, select, states_fact
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.record import Scalar


def memory(
    mid: str,
    content: str,
    collection: str = "history",
    similarity: float | None = 0.7,
    *,
    worked_count: int = 0,
    project: str = "",
    metadata: dict[str, Scalar] | None = None,
) -> NormalizedMemory:
    return NormalizedMemory(
        id=mid,
        collection=collection,
        content=content,
        created_at="",
        age="1d",
        score=0.5,
        wilson_score=0.5,
        uses=0,
        success_count=0.0,
        learned_score=0.5,
        last_outcome="",
        outcome_history="",
        embedding_similarity=similarity,
        worked_count=worked_count,
        project=project,
        metadata={} if metadata is None else metadata,
    )


def unit(*values: float) -> Vector:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_copies_collapse_into_the_first_with_the_best_evidence_and_facts_never_do() -> None:
    same = unit(1, 0, 0)
    ranked = [
        memory("history_1", "pip install -e . fixes the billing import", worked_count=1),
        memory("patterns_2", "pip install -e . fixes the billing import", "patterns", worked_count=4),
        memory("memory_bank_3", "The billing package is installed in editable mode", "memory_bank"),
    ]
    kept, choices = select(ranked, [same, same, same], session_id="s", project="p", limit=5)
    assert [m.id for m in kept] == ["history_1", "memory_bank_3"]
    assert kept[0].worked_count == 4  # the copy with the most judged outcomes, not a sum
    assert choices[0].merged_ids == ("patterns_2",) and choices[1].reason == "duplicate of history_1"


def test_another_projects_fact_and_a_stale_value_are_left_out_and_the_limit_counts_after_them() -> None:
    """Issue 35 replaced the old rule (shown last, labelled): another project's fact never reaches the
    block, and a line stating a superseded value gives its place to the fact that holds now."""
    ranked = [
        memory("memory_bank_1", "deploys to Frankfurt", "memory_bank", project="a", metadata={"fact_scope": "project"}),
        memory("working_2", "we are on Postgres 14", metadata={STALE_VALUE_OF: "memory_bank_9"}),
        memory("working_3", "run the migrations in a transaction"),
        memory("memory_bank_4", "deploys to Dublin", "memory_bank", project="b", metadata={"fact_scope": "project"}),
        memory("memory_bank_5", "indent with tabs", "memory_bank", project="a", metadata={"fact_scope": "user"}),
        memory("memory_bank_6", "the default branch is main", "memory_bank", project="a"),  # no scope: user-wide
    ]
    vectors = [unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1), unit(1, 1, 0), unit(1, 0, 1), unit(0, 1, 1)]
    current = memory("memory_bank_9", "The billing API uses Postgres 16", "memory_bank", project="b", similarity=None)
    kept, choices = select(ranked, vectors, session_id="s", project="b", limit=3, current=[(current, unit(0, 1, 0.1))])
    assert [m.id for m in kept] == ["memory_bank_9", "working_3", "memory_bank_4"]
    assert [c.id for c in choices] == [m.id for m in ranked] + ["memory_bank_9"]
    assert choices[0].reason == "fact of project a" and not choices[0].kept
    assert choices[1].reason == "states a superseded value (the current one is memory_bank_9)"
    assert choices[4].reason == "over the limit of 3" and choices[5].reason == "over the limit of 3"
    assert all("from_project" not in m.metadata for m in kept)


def test_a_stale_line_gives_its_place_to_a_current_fact_found_below_it_and_an_off_topic_one_gives_nothing() -> None:
    ranked = [
        memory("working_1", "we are on Postgres 14", similarity=0.7, metadata={STALE_VALUE_OF: "memory_bank_3"}),
        memory("history_2", "run the migrations in a transaction", similarity=0.6),
        memory("memory_bank_3", "The API uses Postgres 16", "memory_bank", similarity=0.2),  # below the floor alone
        memory("working_4", "pinned Postgres 14 in ci.yml", similarity=0.1, metadata={STALE_VALUE_OF: "memory_bank_8"}),
    ]
    current = memory("memory_bank_8", "CI uses Postgres 16", "memory_bank", similarity=None)
    kept, choices = select(ranked, [None] * 4, session_id="", project="p", limit=5, current=[(current, None)])
    assert [m.id for m in kept] == ["memory_bank_3", "history_2"]
    assert choices[3].reason.startswith("below relevance floor")
    assert [c.id for c in choices] == [m.id for m in ranked]  # the unused current fact is not a result


def test_a_fact_and_the_exchange_that_stated_it_are_one_line_where_the_better_stood() -> None:
    fact = "The ledger staging cluster is called blue-7."
    ranked = [
        memory("working_1", f"User: FYI for later: {fact}\nAssistant: Noted.", similarity=0.8, worked_count=3),
        memory("history_2", "User: where are the parser tests?\nAssistant: in tests/parser", similarity=0.5),
        memory("memory_bank_3", fact, "memory_bank", similarity=0.7),
        # says it in other words, as close as a copy: one line too
        memory("working_4", "User: the ledger cluster for staging is called blue-7, right?", similarity=0.6),
        # as close, with the words of another value: not this fact
        memory("working_5", "User: The ledger staging cluster is called blue-9 now", similarity=0.6),
    ]
    vectors = [unit(0, 0, 0, 1), unit(0, 1, 0, 0), unit(1, 0, 0, 0), unit(0.85, 0.53, 0, 0), unit(0.85, 0, 0.53, 0)]
    kept, choices = select(ranked, vectors, session_id="", project="p", limit=5)
    assert [m.id for m in kept] == ["memory_bank_3", "history_2", "working_5"]
    assert choices[0].reason == "duplicate of memory_bank_3 (states the fact)" and not choices[0].kept
    assert choices[2].merged_ids == ("working_1", "working_4")
    assert kept[0].metadata["collapsed_ids"] == "working_1,working_4"
    assert kept[0].worked_count == 0  # an exchange's outcomes judged an answer, not the fact


def test_states_fact_reads_the_statement_in_a_row_and_covers_fact_every_number() -> None:
    fact = "The staging database runs PostgreSQL 16."
    assert states_fact("User: FYI: the staging  database runs postgresql 16!\nAssistant: ok", fact)
    assert not states_fact("User: the staging database, which runs PostgreSQL 16", fact)
    assert covers_fact("User: the staging database, which runs PostgreSQL 16", fact)
    assert not covers_fact("User: the staging database runs PostgreSQL 14", fact)
    assert not states_fact("ok", "on it") and not covers_fact("main", "Use main")  # too short to look for


def test_the_floor_is_absolute_and_relative_to_the_best_and_spares_linked_facts() -> None:
    ranked = [
        memory("history_1", "the fix", similarity=0.8),
        memory("history_2", "related", similarity=0.35),
        memory("history_3", "off topic", similarity=0.3),
        memory("memory_bank_4", "linked fact", "memory_bank", similarity=0.1),
    ]
    rules = SelectionRules(floor=0.15, relative_floor=0.4)
    kept, choices = select(
        ranked, [None] * 4, session_id="", project="p", limit=5, rules=rules, linked=frozenset({"memory_bank_4"})
    )
    assert [m.id for m in kept] == ["history_1", "history_2", "memory_bank_4"]
    assert choices[2].reason == "below relevance floor (0.30 < 0.32)"
