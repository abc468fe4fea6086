"""The rules of domain.context_selection on hand-made results (the real-model cases are integration tests)."""

from __future__ import annotations

import numpy as np

from services.memory.domain.context_selection import STALE_VALUE_OF, SelectionRules, select
from services.memory.domain.memory_view import NormalizedMemory


def memory(
    mid: str, content: str, collection: str = "history", similarity: float = 0.7, **extra: object
) -> NormalizedMemory:
    fields: dict = {  # type: ignore[type-arg]
        "id": mid,
        "collection": collection,
        "content": content,
        "created_at": "",
        "age": "1d",
        "score": 0.5,
        "wilson_score": 0.5,
        "uses": 0,
        "success_count": 0.0,
        "learned_score": 0.5,
        "last_outcome": "",
        "outcome_history": "",
        "embedding_similarity": similarity,
    }
    fields.update(extra)
    return NormalizedMemory(**fields)


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_copies_collapse_into_the_first_with_the_best_evidence_and_facts_never_do() -> None:
    same = unit(1, 0, 0)
    ranked = [
        memory("history_1", "pip install -e . fixes the billing import", worked_count=1),
        memory("patterns_2", "pip install -e . fixes the billing import", "patterns", worked_count=4),
        memory("memory_bank_3", "pip install -e . fixes the billing import", "memory_bank"),
    ]
    kept, choices = select(ranked, [same, same, same], session_id="s", project="p", limit=5)
    assert [m.id for m in kept] == ["history_1", "memory_bank_3"]
    assert kept[0].worked_count == 4  # the copy with the most judged outcomes, not a sum
    assert choices[0].merged_ids == ("patterns_2",) and choices[1].reason == "duplicate of history_1"


def test_another_projects_fact_and_a_stale_value_come_last_and_the_limit_counts_after_the_order() -> None:
    ranked = [
        memory("memory_bank_1", "deploys to Frankfurt", "memory_bank", project="a", metadata={"fact_scope": "project"}),
        memory("working_2", "we are on Postgres 14", metadata={STALE_VALUE_OF: "memory_bank_9"}),
        memory("working_3", "run the migrations in a transaction"),
        memory("memory_bank_4", "deploys to Dublin", "memory_bank", project="b", metadata={"fact_scope": "project"}),
    ]
    vectors = [unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1), unit(1, 1, 0)]
    kept, choices = select(ranked, vectors, session_id="s", project="b", limit=3)
    assert [m.id for m in kept] == ["working_3", "memory_bank_4", "memory_bank_1"]
    assert kept[2].metadata["from_project"] == "a"
    assert choices[1].reason == "over the limit of 3"


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
