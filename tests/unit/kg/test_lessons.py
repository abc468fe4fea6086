"""Problem -> solution and failure lessons, and the action statistics the prompt path reads."""

from __future__ import annotations

from services.kg.actions import ActionGraph
from services.kg.extraction import extract
from services.kg.keys import Outcome
from services.kg.problems import ProblemGraph, is_specific, signature_for

NIGHTLY = "The nightly test job failed again with error {c} in the test stage."
RED = "CI test stage is red: error {c}. How do I fix it?"
SEEING = "Seeing error {c} when the test suite runs in CI again, what fixed it last time?"


def record(graph: ProblemGraph, text: str, doc: str, outcome: Outcome) -> None:
    graph.record(signature_for(extract(text).concepts), [doc], outcome, text, 0.0)


def lessons(graph: ProblemGraph, text: str) -> tuple[list[str], list[str]]:
    solutions, failures = graph.lessons(extract(text).concepts, 5, 5)
    return [s["doc_id"] for s in solutions], [f["doc_id"] for f in failures]


def test_a_paraphrase_of_a_solved_problem_gets_its_solution_and_failures() -> None:
    graph = ProblemGraph()
    record(graph, NIGHTLY.format(c="E1042"), "fix-a", Outcome.FAILED)
    record(graph, NIGHTLY.format(c="E1042"), "fix-b", Outcome.WORKED)
    record(graph, NIGHTLY.format(c="E1042"), "fix-b", Outcome.WORKED)
    solutions, failures = graph.lessons(extract(RED.format(c="E1042")).concepts, 5, 5)
    assert [(s["doc_id"], s["worked"], s["failed"]) for s in solutions] == [("fix-b", 2, 0)]
    assert [(f["doc_id"], f["worked"], f["failed"]) for f in failures] == [("fix-a", 0, 1)]


def test_another_error_code_never_matches_on_generic_words() -> None:
    graph = ProblemGraph()
    record(graph, NIGHTLY.format(c="E1042"), "fix-a", Outcome.WORKED)
    record(graph, RED.format(c="E2217"), "fix-b", Outcome.FAILED)
    assert lessons(graph, SEEING.format(c="E2217")) == ([], ["fix-b"])
    assert lessons(graph, SEEING.format(c="E1042")) == (["fix-a"], [])
    assert lessons(graph, SEEING.format(c="E9999")) == ([], [])


def test_a_doc_that_worked_is_never_listed_as_a_failure_and_limits_hold() -> None:
    graph = ProblemGraph()
    text = NIGHTLY.format(c="E1042")
    record(graph, text, "mixed", Outcome.FAILED)
    record(graph, text, "mixed", Outcome.WORKED)
    for i in range(4):
        record(graph, text, f"bad-{i}", Outcome.FAILED)
    solutions, failures = graph.lessons(extract(text).concepts, 1, 2)
    assert [s["doc_id"] for s in solutions] == ["mixed"]
    assert len(failures) == 2 and "mixed" not in [f["doc_id"] for f in failures]
    assert graph.lessons([], 5, 5) == ([], [])


def test_specific_words_and_problem_count() -> None:
    assert is_specific("e1042") and is_specific("sqlite3.operationalerror") and is_specific("src/app.py")
    assert not is_specific("test") and not is_specific("stage")
    graph = ProblemGraph()
    record(graph, NIGHTLY.format(c="E1042"), "fix-a", Outcome.WORKED)
    record(graph, RED.format(c="E1042"), "fix-a", Outcome.WORKED)
    assert graph.problem_count == 2
    graph.remove_docs({"fix-a"})
    assert graph.problem_count == 0 and lessons(graph, NIGHTLY.format(c="E1042")) == ([], [])


def test_action_statistics_most_evidence_first() -> None:
    actions = ActionGraph()
    for outcome in (Outcome.WORKED,) * 9 + (Outcome.FAILED,):
        actions.record("coding", "pytest -x", "", outcome, "", 1.0)
    actions.record("coding", "make lint", "", Outcome.WORKED, "", 2.0)
    actions.record("coding", "npm test", "", Outcome.UNKNOWN, "", 3.0)  # nothing graded: left out
    actions.record("general", "score_response", "patterns", Outcome.WORKED, "doc", 4.0)
    top = actions.top(10)
    assert [(r["action"], r["worked"], r["failed"]) for r in top[:2]] == [("pytest -x", 9, 1), ("score_response", 1, 0)]
    assert "npm test" not in {r["action"] for r in top}
    assert top[0]["collection"] == "*" and top[0]["success_rate"] == 0.9
    assert [r["action"] for r in actions.top(10, "general")] == ["score_response"]
    assert len(actions.top(1)) == 1


def test_a_word_shared_by_very_many_problems_proposes_none_but_exact_and_specific_matches_hold() -> None:
    from services.kg import problems

    graph = ProblemGraph()
    names = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(problems.MAX_WORD_PROBLEMS + 5)]
    for name in names:  # every signature shares "staging" and "cluster", none has a specific word
        graph.record(signature_for(["staging", "cluster", name]), [f"doc-{name}"], Outcome.WORKED, name, 0.0)
    record(graph, NIGHTLY.format(c="E1042"), "fix-a", Outcome.WORKED)
    assert lessons(graph, RED.format(c="E1042"))[0] == ["fix-a"]  # found through its code
    solutions, _ = graph.lessons(["staging", "cluster", names[7]], 5, 5)
    assert solutions[0]["doc_id"] == f"doc-{names[7]}"  # the exact signature still matches
    assert graph.lessons(["staging", "cluster"], 5, 5) == ([], [])  # the common words alone propose nothing
