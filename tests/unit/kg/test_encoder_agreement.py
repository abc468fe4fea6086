"""The kg's recognition decisions with the int8 and the fp32 encoder, side by side.

int8 vectors sit 0.99 cosine from fp32 ones, and closer or farther on another CPU (AVX2 without
VNNI saturates differently): the old rule took most of its decisions near one cosine, and two
tests flipped there. The judge decides on a margin over the runner-up, which moves the bulk of
the decisions away from any edge, but a margin is a threshold too: a case that lands within the
encoders' drift (about 0.02 in score) of it can still flip. Measured here: the filing of every
episode agrees; 1 of 94 pair decisions and 1 of 17 symptom decisions differ (a recurrence shown
its own fix at one precision, nothing at the other; never another problem's fix). The bound below
pins that rate; the issue's target, no flip at all, is not met by any threshold on a continuous
score, and a dead band decided by shared terms was tried and moved the flips rather than removing
them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from services.embedding.model import Encoder, load_encoder
from services.kg.journal import Journal
from services.kg.store import KgStore, episodes_scope
from tests.unit.kg import taught_books
from tests.unit.kg.problem_pairs import EPISODE_NEAR_MISSES, EPISODE_SYMPTOMS, NEAR_MISSES


@pytest.fixture(scope="module")
def encoders() -> dict[str, Encoder]:
    return {precision: load_encoder(precision=precision) for precision in ("int8", "fp32")}


def pair_decisions(encoder: Encoder) -> list[str]:
    book, recurrences = taught_books.filed_book(encoder)
    near = [b for _, b in NEAR_MISSES] + [t for _, t in EPISODE_NEAR_MISSES]
    decisions = [f"filed:{len(book.problems)}"]
    for i, text in enumerate([*recurrences, *near]):
        lessons = book.lessons(taught_books.vector(encoder, text), f"q{i}", taught_books.PROJECT, 10_000.0, prompt=text)
        decisions.append(lessons[0].problem_id if lessons else "-")
    return decisions


def symptom_decisions(encoder: Encoder, home: Path) -> list[str]:
    store = KgStore(Journal(home / "kg.sqlite3"), clock=taught_books.Clock())
    taught_books.learn_every_episode(store, encoder)
    book = store.graphs(episodes_scope(taught_books.SYMPTOM_SCOPE.user)).episodes
    decisions = [f"filed:{len(book.problems)}"]
    for i, (_, _, recurrence) in enumerate(EPISODE_SYMPTOMS):
        vector = taught_books.vector(encoder, recurrence)
        lessons = book.lessons(vector, f"later-{i}", taught_books.SYMPTOM_SCOPE.project, 2_000_000.0, prompt=recurrence)
        decisions.append(lessons[0].problem_id if lessons else "-")
    store.close()
    return decisions


def test_the_same_pairs_are_recognised_at_int8_and_fp32(encoders: dict[str, Encoder]) -> None:
    int8, fp32 = (pair_decisions(encoders[p]) for p in ("int8", "fp32"))
    flips = [i for i, (a, b) in enumerate(zip(int8, fp32, strict=True)) if a != b]
    print(f"\n{len(int8)} decisions, {len(flips)} differ between int8 and fp32")
    assert int8[0] == fp32[0]  # every episode filed the same way
    assert len(flips) <= 0.02 * len(int8)
    # A flip is a lesson shown or not: never one problem's fix at one precision and another's at the other.
    assert all("-" in (int8[i], fp32[i]) for i in flips)


def test_the_same_symptom_episodes_are_recognised_at_int8_and_fp32(
    encoders: dict[str, Encoder], tmp_path: Path
) -> None:
    (tmp_path / "int8").mkdir()
    (tmp_path / "fp32").mkdir()
    int8 = symptom_decisions(encoders["int8"], tmp_path / "int8")
    fp32 = symptom_decisions(encoders["fp32"], tmp_path / "fp32")
    flips = [i for i, (a, b) in enumerate(zip(int8, fp32, strict=True)) if a != b]
    assert int8[0] == fp32[0]
    assert len(flips) <= 1
    assert all("-" in (int8[i], fp32[i]) for i in flips)
