"""What a score and a tool run teach the kg (gateway/teaching.py), on in-memory backends."""

from __future__ import annotations

import asyncio
import json

from gateway import teaching
from gateway.replies.reply_json import JsonObject
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from tests.unit.gateway.backend_fakes import SCOPE, Fakes, by_outcome, memory

WORKED, FAILED = common_pb.OUTCOME_WORKED, common_pb.OUTCOME_FAILED
PROBLEM = "orders tests fail with database locked"
CONCEPTS = ["database", "fail", "locked", "orders", "tests", "with"]  # the fake kg's: its words, sorted


def exchange(exchange_id: str, prompt: str, answer: str, session: str = "s1") -> mem_pb.Memory:
    return memory(
        exchange_id,
        f"User: {prompt}\nAssistant: {answer}",
        metadata_json=json.dumps({"kind": "exchange", "prompt": prompt, "session_id": session}),
    )


def scored(exchange_id: str) -> mem_pb.ScoreResponse:
    return mem_pb.ScoreResponse(
        exchange_id=exchange_id,
        scored=[
            mem_pb.ScoredMemory(id="patterns_fix1", collection_before="patterns", outcome=WORKED),
            mem_pb.ScoredMemory(id="history_bad1", collection_before="history", outcome=FAILED),
            mem_pb.ScoredMemory(id=exchange_id, collection_before="history"),  # the turn itself: its outcome
        ],
    )


def teach(fakes: Fakes, reply: mem_pb.ScoreResponse, outcome: common_pb.Outcome = WORKED) -> JsonObject:
    return asyncio.run(teaching.teach(fakes.backends, SCOPE, reply, outcome)).to_json()


def test_a_score_records_the_turn_and_teaches_each_outcome_group() -> None:
    fakes = Fakes()
    fakes.memory.memories = [exchange("history_ex1", PROBLEM, "I switched SQLite to WAL mode")]
    result = teach(fakes, scored("history_ex1"))

    (turn,) = fakes.kg.turns
    assert (turn.session_id, turn.prompt, turn.answer, turn.outcome) == (
        "s1",
        PROBLEM,
        "I switched SQLite to WAL mode",
        WORKED,
    )
    assert turn.doc_id == "patterns_fix1"  # the fix is credited to the memory that worked, not the exchange
    assert turn.prompt_vector  # the statement vector the kg judges the problem by
    assert fakes.kg.extracted == [PROBLEM]
    # One RecordOutcome per outcome: the exchange itself is the scored turn, never "what solved it".
    assert by_outcome(fakes.kg.outcomes) == {WORKED: ["patterns_fix1"], FAILED: ["history_bad1"]}
    assert {int(o.outcome): list(o.collections) for o in fakes.kg.outcomes} == {
        WORKED: ["history", "patterns"],
        FAILED: ["history"],
    }
    assert all(o.problem == PROBLEM and list(o.concepts) == CONCEPTS for o in fakes.kg.outcomes)
    assert [(a.doc_id, a.action, a.context_type, a.outcome) for a in fakes.kg.actions] == [
        ("patterns_fix1", "score_response", "debugging", WORKED),
        ("history_bad1", "score_response", "debugging", FAILED),
        ("history_ex1", "score_response", "debugging", WORKED),
    ]
    assert result == {
        "taught": True,
        "concepts": CONCEPTS,
        "context_type": "debugging",
        "outcome_groups": 2,
        "episode": {"problem": PROBLEM, "status": "opened"},
    }


def test_a_later_turn_teaches_on_the_episodes_problem_not_the_complaint() -> None:
    fakes = Fakes()
    fakes.memory.memories = [
        exchange("history_ex1", PROBLEM, "Raised the busy timeout"),
        exchange("history_ex2", "still broken, same traceback", "Switched to WAL mode"),
    ]
    teach(fakes, scored("history_ex1"), FAILED)
    result = teach(fakes, scored("history_ex2"))
    assert [t.prompt for t in fakes.kg.turns] == [PROBLEM, "still broken, same traceback"]
    assert fakes.kg.extracted == [PROBLEM, PROBLEM]
    assert result["episode"] == {"problem": PROBLEM, "status": "continued"}
    assert {o.problem for o in fakes.kg.outcomes} == {PROBLEM}


def test_the_scored_turns_own_prompt_and_session_win_over_the_stored_exchange() -> None:
    fakes = Fakes()
    fakes.memory.memories = [exchange("history_old", "an older near-duplicate", "answer", session="s0")]
    reply = scored("history_old")
    reply.prompt, reply.session_id = PROBLEM, "s9"
    teach(fakes, reply)
    assert [(t.prompt, t.session_id) for t in fakes.kg.turns] == [(PROBLEM, "s9")]


def test_a_gone_exchange_still_teaches_from_the_scores_prompt_without_an_episode() -> None:
    fakes = Fakes()
    reply = scored("history_gone")
    reply.prompt = PROBLEM
    result = teach(fakes, reply)
    assert fakes.kg.turns == []  # no session known: no episode turn
    assert result["taught"] and result["episode"] is None and fakes.kg.extracted == [PROBLEM]


def test_a_kg_that_fails_is_reported_not_raised() -> None:
    fakes = Fakes()
    fakes.memory.memories = [exchange("history_ex1", PROBLEM, "answer")]
    fakes.kg.down.add("record_outcome")
    result = teach(fakes, scored("history_ex1"))
    assert result == {
        "taught": False,
        "concepts": CONCEPTS,
        "error": "UNAVAILABLE",
    }


def test_without_the_embedding_service_the_turn_goes_without_a_vector() -> None:
    fakes = Fakes()
    fakes.memory.memories = [exchange("history_ex1", PROBLEM, "answer")]
    fakes.embedding.down.add("embed")
    assert teach(fakes, scored("history_ex1"))["taught"]
    assert fakes.kg.turns[0].prompt_vector == b""


def test_exchange_parts_read_the_prompt_answer_and_session() -> None:
    fakes = Fakes()
    fakes.memory.memories = [
        exchange("history_ex1", PROBLEM, "WAL mode"),
        memory("history_plain", "User: why is it slow\nAssistant: the index is missing"),
    ]
    parts = asyncio.run(teaching.exchange_parts(fakes.memory, SCOPE, "history_ex1"))
    assert parts == teaching.ScoredExchange(PROBLEM, "WAL mode", "s1")
    plain = asyncio.run(teaching.exchange_parts(fakes.memory, SCOPE, "history_plain"))
    assert plain == teaching.ScoredExchange("why is it slow", "the index is missing", "")
    fakes.memory.down.add("get")
    assert asyncio.run(teaching.exchange_parts(fakes.memory, SCOPE, "history_ex1")) == teaching.ScoredExchange()


PYTEST_FAILED = {
    "exit_code": 1,
    "stdout": "tests/test_orders.py:12: in test_pay\nE   sqlite3.OperationalError: database is locked\n1 failed in 0.3s",
}
COMMAND = "cd app && uv run pytest -x -q tests/test_orders.py"


def teach_tool(
    fakes: Fakes, tool: str, tool_input: dict[str, object], response: object, session: str = "s1"
) -> JsonObject:
    return asyncio.run(teaching.teach_tool_use(fakes.backends, SCOPE, tool, tool_input, response, session)).to_json()


def test_a_failed_command_files_its_error_and_counts_against_the_action() -> None:
    fakes = Fakes()
    result = teach_tool(fakes, "Bash", {"command": COMMAND}, PYTEST_FAILED)
    (error,) = fakes.kg.tool_errors
    assert (error.session_id, error.command) == ("s1", COMMAND)
    assert "database is locked" in error.output
    assert fakes.embedding.texts == ["sqlite3.OperationalError: database is locked"]  # the telling line, embedded
    assert error.error_vector
    (action,) = fakes.kg.actions
    assert (action.action, action.context_type, action.outcome) == ("pytest -x -q", "coding", FAILED)
    assert result == {
        "taught": True,
        "error_signature": "sig:cd",
        "action": "pytest -x -q",
        "success_rate": 0.0,
        "total": 1,
    }


def test_a_passing_run_feeds_the_action_only() -> None:
    fakes = Fakes()
    teach_tool(fakes, "Bash", {"command": COMMAND}, PYTEST_FAILED)
    result = teach_tool(fakes, "Bash", {"command": COMMAND}, {"exit_code": 0, "stdout": "12 passed in 1.2s"})
    assert len(fakes.kg.tool_errors) == 1
    assert (result["success_rate"], result["total"]) == (0.5, 2)


def test_a_failed_tool_other_than_a_shell_files_the_error_but_no_action() -> None:
    fakes = Fakes()
    result = teach_tool(fakes, "Read", {"file_path": "/srv/app/missing.py"}, {"failed": True, "error": "No such file"})
    assert [e.command for e in fakes.kg.tool_errors] == ["Read /srv/app/missing.py"]
    assert fakes.kg.actions == [] and result == {"taught": False, "error_signature": "sig:Read"}


def test_outside_a_session_a_failure_files_no_error_and_a_kg_down_is_reported() -> None:
    fakes = Fakes()
    teach_tool(fakes, "Bash", {"command": COMMAND}, PYTEST_FAILED, session="")
    assert fakes.kg.tool_errors == [] and len(fakes.kg.actions) == 1
    fakes.kg.down.add("record_action")
    result = teach_tool(fakes, "Bash", {"command": COMMAND}, PYTEST_FAILED, session="")
    assert result == {"taught": False, "error": "UNAVAILABLE"}
