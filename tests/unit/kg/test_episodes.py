"""Episodes: the kg learns a problem from the turn that states it to the turn that fixes it.

Real store and journal (SQLite under tmp_path) and real all-MiniLM-L6-v2 vectors.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kernel.json_values import object_at, objects_at, str_at
from services.embedding.model import Encoder
from services.kg.journal import Journal
from services.kg.keys import Outcome
from services.kg.store import KgStore, ScopeKey, episodes_scope

SHOP = ScopeKey("tester", "shop-1a2b")
BLOG = ScopeKey("tester", "blog-9f8e")
PROBLEM = "pytest fails with ModuleNotFoundError: No module named 'billing' when I run the tests from the repo root"
COMPLAINT = "still broken, same traceback"
RECURRENCE = "running the test suite from the top folder I get ModuleNotFoundError, it can't import the ledger package"
NEAR_MISS = "how do I run only the slow pytest tests from the repo root with a marker"
TRACEBACK = (
    'Traceback (most recent call last):\n  File "/home/dev/shop/tests/conftest.py", line 3, in <module>\n'
    "    import billing.tax\nModuleNotFoundError: No module named 'billing'"
)
FIX = 'Added pythonpath = ["src"] to [tool.pytest.ini_options] in pyproject.toml.'


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> KgStore:
    return KgStore(Journal(tmp_path / "kg.sqlite3"), clock=Clock())


def vec(encoder: Encoder, text: str) -> bytes:
    return np.asarray(encoder.encode([text])[0], dtype="<f4").tobytes()


def turn(
    store: KgStore, encoder: Encoder, scope: ScopeKey, session: str, prompt: str, outcome: Outcome, answer: str
) -> str:
    reply = store.record_turn(
        scope, session_id=session, prompt=prompt, vector=vec(encoder, prompt), outcome=outcome, answer=answer, doc_id=""
    )
    return str(reply["problem"])


def solve_the_hard_way(store: KgStore, encoder: Encoder, scope: ScopeKey = SHOP, session: str = "s1") -> list[str]:
    """Two wrong fixes fail with tool errors, the third works; returns the problem each score taught on."""
    taught = []
    store.record_tool_error(scope, session_id=session, command="pip install billing", output=TRACEBACK)
    taught.append(turn(store, encoder, scope, session, PROBLEM, Outcome.FAILED, "Installed billing with pip."))
    store.record_tool_error(scope, session_id=session, command="export PYTHONPATH=. && pytest", output=TRACEBACK)
    taught.append(turn(store, encoder, scope, session, COMPLAINT, Outcome.FAILED, "Set PYTHONPATH to the root."))
    taught.append(turn(store, encoder, scope, session, "nope, same error", Outcome.WORKED, FIX))
    return taught


def test_a_multi_turn_fix_is_taught_on_the_problem_statement_not_the_complaint(
    store: KgStore, encoder: Encoder
) -> None:
    taught = solve_the_hard_way(store, encoder)
    assert taught == [PROBLEM, PROBLEM, PROBLEM]
    (problem,) = store.graphs(episodes_scope("tester")).episodes.problems.values()
    assert problem.text == PROBLEM and problem.project == SHOP.project
    assert [f.text for f in problem.fixes] == [FIX]
    assert {a.tried for a in problem.failures} == {"pip install billing", "export PYTHONPATH=. && pytest"}
    assert all("ModuleNotFoundError: No module named 'billing'" in a.error for a in problem.failures)
    assert problem.signatures == ["modulenotfounderror: no module named <name>"]


def test_a_paraphrased_recurrence_gets_the_fix_and_the_failed_attempts(store: KgStore, encoder: Encoder) -> None:
    solve_the_hard_way(store, encoder)
    found = store.episode_lessons(SHOP, session_id="s2", vector=vec(encoder, RECURRENCE), prompt=RECURRENCE, limit=6)
    assert [x.kind for x in found] == ["solution", "failure", "failure"]
    assert found[0].text == FIX and found[0].worked == 1
    assert any(x.text.startswith("pip install billing -> ModuleNotFoundError") for x in found)
    assert all(x.project == SHOP.project for x in found)


def test_a_near_miss_gets_no_lessons(store: KgStore, encoder: Encoder) -> None:
    solve_the_hard_way(store, encoder)
    assert store.episode_lessons(SHOP, session_id="s2", vector=vec(encoder, NEAR_MISS), prompt=NEAR_MISS, limit=6) == []


def test_the_sessions_own_tool_error_recognises_the_problem_without_words(store: KgStore, encoder: Encoder) -> None:
    solve_the_hard_way(store, encoder)
    other = TRACEBACK.replace("billing", "ledger").replace("/home/dev/shop", "/srv/app")
    store.record_tool_error(SHOP, session_id="s3", command="pytest -q", output=other)
    found = store.episode_lessons(SHOP, session_id="s3", vector=b"", prompt="", limit=6)
    assert found and found[0].text == FIX


def test_failed_attempts_outlive_the_exchanges_and_a_restart(store: KgStore, encoder: Encoder, tmp_path: Path) -> None:
    store.record_tool_error(SHOP, session_id="s1", command="pip install billing", output=TRACEBACK)
    turn(store, encoder, SHOP, "s1", PROBLEM, Outcome.FAILED, "Installed billing with pip.")
    turn(
        store,
        encoder,
        SHOP,
        "s1",
        "I give up on this, let's look at the broken CSS grid on the landing page",
        Outcome.FAILED,
        "",
    )
    # The first problem was abandoned without a fix: its failed attempt is still a lesson.
    store.remove_docs(SHOP, ["working_ex1", "working_ex2"])  # the lifecycle deleting the exchanges
    store.journal.close()
    reopened = KgStore(Journal(tmp_path / "kg.sqlite3"), clock=Clock())
    found = reopened.episode_lessons(SHOP, session_id="s9", vector=vec(encoder, RECURRENCE), prompt=RECURRENCE, limit=6)
    assert [(x.kind, x.text.split(" -> ")[0]) for x in found] == [("failure", "pip install billing")]


def test_another_projects_lesson_only_when_this_project_knows_none(store: KgStore, encoder: Encoder) -> None:
    """A project that solved the problem its own way is told only its own fix (the other project's
    used to follow it, and a cross-project trap's first attempt went wrong); a project that never
    met the problem is told the other project's, labelled with that project."""
    solve_the_hard_way(store, encoder, SHOP, "s1")
    fresh = store.episode_lessons(BLOG, session_id="b0", vector=vec(encoder, PROBLEM), prompt=PROBLEM, limit=6)
    assert [(x.text, x.project) for x in fresh if x.kind == "solution"] == [(FIX, SHOP.project)]
    local_fix = "Installed the package in editable mode with pip install -e ."
    store.record_tool_error(BLOG, session_id="b1", command="pytest", output=TRACEBACK.replace("billing", "posts"))
    turn(store, encoder, BLOG, "b1", RECURRENCE, Outcome.WORKED, local_fix)
    found = store.episode_lessons(BLOG, session_id="b2", vector=vec(encoder, PROBLEM), prompt=PROBLEM, limit=6)
    solutions = [x for x in found if x.kind == "solution"]
    assert [(x.text, x.project) for x in solutions] == [(local_fix, BLOG.project)]


def test_secrets_in_tool_output_never_reach_the_journal(store: KgStore, encoder: Encoder) -> None:
    token = "ghp_" + "a1B2" * 9
    store.record_tool_error(
        SHOP, session_id="s1", command=f"curl -H 'Authorization: token {token}' api", output=f"401 {token}"
    )
    turn(store, encoder, SHOP, "s1", PROBLEM, Outcome.FAILED, "Retried the request.")
    assert token not in str(store.graphs(episodes_scope("tester")).to_json())


def test_a_task_answered_at_once_is_not_a_known_problem(store: KgStore, encoder: Encoder) -> None:
    """Chatter scored ``worked`` (a task or question done in one turn) used to become a known
    problem whose "fix" was the answer, and near tasks merged into one such problem."""
    for session, task in (("t1", "Add a loading skeleton to the price tag."), ("t2", "Write a story for the cart.")):
        turn(store, encoder, SHOP, session, task, Outcome.WORKED, "Done.")
    assert store.graphs(episodes_scope(SHOP.user)).episodes.problems == {}
    # A one-turn fix of a stated failure is still learned.
    turn(store, encoder, SHOP, "t3", PROBLEM, Outcome.WORKED, FIX)
    problems = store.graphs(episodes_scope(SHOP.user)).episodes.problems
    assert [p.text for p in problems.values()] == [PROBLEM]


def test_a_projects_known_problems_travel_with_its_export(store: KgStore, encoder: Encoder, tmp_path: Path) -> None:
    """Export used to carry the project scope's own (always empty) episode book: the known problems,
    kept per user, were lost on a move to another machine."""
    solve_the_hard_way(store, encoder)
    solve_the_hard_way(store, encoder, scope=BLOG, session="b1")
    exported = store.export_json(SHOP)
    assert [str_at(p, "project") for p in objects_at(object_at(exported, "episodes"), "problems")] == [SHOP.project]
    other = KgStore(Journal(tmp_path / "other.sqlite3"), clock=Clock())
    moved = ScopeKey("someone", "shop-moved")
    other.import_json(moved, json.loads(json.dumps(exported)))
    found = other.episode_lessons(moved, session_id="s9", vector=vec(encoder, RECURRENCE), prompt=RECURRENCE, limit=6)
    assert [x.kind for x in found] == ["solution", "failure", "failure"]
    assert found[0].text == FIX and all(x.project == moved.project for x in found)


def test_the_store_knows_episodes_once_a_problem_is_learned_in_any_project(store: KgStore, encoder: Encoder) -> None:
    # With none known, Recall says so and get-context skips the EpisodeLessons call.
    assert not store.knows_episodes(SHOP)
    assert store.episode_lessons(SHOP, session_id="s2", vector=vec(encoder, PROBLEM), prompt=PROBLEM, limit=6) == []
    solve_the_hard_way(store, encoder)
    assert store.knows_episodes(SHOP) and store.knows_episodes(BLOG)  # episodes are the user's, across projects


def test_a_recurrence_solved_by_the_same_fix_in_other_words_joins_its_problem(store: KgStore, encoder: Encoder) -> None:
    """An assistant never words a fix the same way twice: the recurrence's episode used to open a second
    known problem, and the twin then stood as the runner-up, so neither was ever recalled again."""
    turn(store, encoder, SHOP, "s1", PROBLEM, Outcome.FAILED, "Tried reinstalling the package.")
    turn(store, encoder, SHOP, "s1", "that did it", Outcome.WORKED, FIX)
    for i, other in enumerate(("pick a fight with the CSS grid", "the invoice pdf renders blank pages")):
        turn(store, encoder, SHOP, f"o{i}", other + " and it still fails", Outcome.FAILED, "Tried a thing.")
    retold = "Set pythonpath to src under [tool.pytest.ini_options] in pyproject.toml; the tests import again."
    turn(store, encoder, SHOP, "s2", RECURRENCE, Outcome.FAILED, "Tried reinstalling the package.")
    turn(store, encoder, SHOP, "s2", "fixed now", Outcome.WORKED, retold)
    book = store.graphs(episodes_scope(SHOP.user)).episodes
    solved = [p for p in book.problems.values() if p.fixes]
    assert len(solved) == 1 and [(f.text, f.worked) for f in solved[0].fixes] == [(FIX, 2)]
    found = store.episode_lessons(SHOP, session_id="s3", vector=vec(encoder, RECURRENCE), prompt=RECURRENCE, limit=6)
    assert [x.text for x in found if x.kind == "solution"] == [FIX]
