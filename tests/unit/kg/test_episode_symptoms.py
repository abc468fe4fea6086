"""A known problem keeps the error lines its failed attempts printed, and a recurrence told by that
symptom recalls it (services/kg/episodes.py, KnownProblem.symptoms).

Real store and journal (SQLite under tmp_path), real all-MiniLM-L6-v2 vectors, and the episodes of
tests/unit/kg/problem_pairs.EPISODE_SYMPTOMS, each first solved in a new session: a tool call fails
with the error output, the turn is scored failed, the next one worked.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernel.error_signature import of_output
from services.embedding.model import Encoder
from services.kg.episodes import EpisodeBook
from services.kg.journal import Journal
from services.kg.store import KgStore, episodes_scope
from tests.unit.kg.problem_pairs import EPISODE_SYMPTOMS
from tests.unit.kg.taught_books import SYMPTOM_SCOPE as SCOPE
from tests.unit.kg.taught_books import Clock, learn_every_episode
from tests.unit.kg.taught_books import symptom_fix as fix_of


def recalled(book: EpisodeBook, encoder: Encoder) -> tuple[int, int]:
    """(recurrences whose own fix is shown first, recurrences shown another problem's fix)."""
    right = wrong = 0
    for i, (_, _, recurrence) in enumerate(EPISODE_SYMPTOMS):
        vector = np.asarray(encoder.encode([recurrence])[0], dtype=np.float32)
        lessons = book.lessons(vector, f"later-{i}", SCOPE.project, 2_000_000.0, prompt=recurrence)
        fixes = [lesson.text for lesson in lessons if lesson.kind == "solution"]
        right += bool(fixes) and fixes[0] == fix_of(i)
        wrong += any(text != fix_of(i) for text in fixes)
    return right, wrong


@pytest.fixture
def store(tmp_path: Path) -> KgStore:
    return KgStore(Journal(tmp_path / "kg.sqlite3"), clock=Clock())


def test_a_recurrence_told_by_the_error_of_a_failed_attempt_recalls_its_fix(store: KgStore, encoder: Encoder) -> None:
    learn_every_episode(store, encoder)
    book = store.graphs(episodes_scope(SCOPE.user)).episodes
    assert len(book.problems) == len(EPISODE_SYMPTOMS)
    telling = sum(bool(of_output(output)[1]) for _, output, _ in EPISODE_SYMPTOMS)
    assert sum(len(p.symptoms) for p in book.problems.values()) == telling
    right, wrong = recalled(book, encoder)
    print(f"\nrecalled {right} of {len(EPISODE_SYMPTOMS)} recurrences, {wrong} shown another problem's fix")
    # The judge wants the own problem to beat every other by a margin: 6 of 16 at int8, 7 at fp32
    # (the old single threshold recalled 10, and on an AVX2-only CPU showed another problem's fix).
    # Against the statements alone 2 of the 16 pass.
    assert right >= 6
    assert wrong == 0


def test_symptoms_survive_a_restart_and_a_snapshot(tmp_path: Path, encoder: Encoder) -> None:
    first = KgStore(Journal(tmp_path / "kg.sqlite3"), clock=Clock())
    learn_every_episode(first, encoder)
    learned = recalled(first.graphs(episodes_scope(SCOPE.user)).episodes, encoder)

    replayed = KgStore(Journal(tmp_path / "kg.sqlite3"), clock=Clock()).graphs(episodes_scope(SCOPE.user)).episodes
    assert recalled(replayed, encoder) == learned
    snapshot = EpisodeBook()
    snapshot.load_json(replayed.to_json())
    assert recalled(snapshot, encoder) == learned
    assert [len(p.symptoms) for p in snapshot.problems.values()] == [
        len(p.symptoms) for p in replayed.problems.values()
    ]
