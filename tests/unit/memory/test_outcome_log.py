"""The outcome log beside the session store: what scoring did, read back per turn and per memory; bounded."""

from __future__ import annotations

from pathlib import Path

from kernel.outcome_entry import OutcomeEntry
from services.memory.domain.naming import Scope
from services.memory.storage.outcome_log import OUTCOME_LOG_DAYS, OutcomeLog
from services.memory.storage.state_db import StateDb
from services.memory.storage.turns import TurnStore

SCOPE = Scope("u", "p")
DAY = 24 * 3600.0


def row(memory_id: str, outcome: str, before: float, after: float) -> OutcomeEntry:
    return OutcomeEntry(0.0, memory_id, outcome, before, after, "working", "working", "none", "")


def test_turns_carry_their_outcomes_and_memories_their_turns(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    db = StateDb(path)  # one handle on state.db, shared by its stores
    state, log_of = TurnStore(db), OutcomeLog(db)
    state.record_injection(SCOPE, "s", ["working_111111111111111", "patterns_222222222222222"], "fix the build", 100.0)
    state.complete_turn(SCOPE, "s", "working_333333333333333", "fix the build", "done", 101.0)
    turn = state.turns(SCOPE, session_id="s")[0]
    assert (turn.prompt, turn.outcome, turn.outcomes) == ("fix the build", "", [])
    log_of.record(
        SCOPE,
        "s",
        turn.id,
        "worked",
        [row("working_111111111111111", "worked", 0.5, 0.7), row("patterns_222222222222222", "failed", 0.8, 0.6)],
        102.0,
    )
    turn = state.turns(SCOPE, session_id="s")[0]
    assert turn.outcome == "worked"
    assert [(o.memory_id, o.outcome, o.turn_id) for o in turn.outcomes] == [
        ("working_111111111111111", "worked", turn.id),
        ("patterns_222222222222222", "failed", turn.id),
    ]
    # the same uid after a promotion (another prefix) still finds its turns and its log
    assert [t.id for t in state.turns(SCOPE, memory_id="history_111111111111111")] == [turn.id]
    assert state.turns(SCOPE, memory_id="history_11111111111111") == []  # a prefix of a uid is not the uid
    log = log_of.of_memory(SCOPE, "history_111111111111111", 10)
    assert [(e.outcome, e.score_before, e.score_after) for e in log] == [("worked", 0.5, 0.7)]
    assert log_of.of_memory(Scope("other", "p"), "working_111111111111111", 10) == []
    sessions = state.sessions(SCOPE, 10)
    assert [(s.session_id, s.turns) for s in sessions] == [("s", 1)]


def test_old_outcomes_and_orphaned_turn_outcomes_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    db = StateDb(path)  # one handle on state.db, shared by its stores
    state, log_of = TurnStore(db), OutcomeLog(db)
    state.record_injection(SCOPE, "s", ["working_111111111111111"], "q", 0.0)
    turn = state.turns(SCOPE, session_id="s")[0]
    now = OUTCOME_LOG_DAYS * DAY + 10 * DAY
    log_of.record(SCOPE, "s", turn.id, "worked", [row("working_111111111111111", "worked", 0.5, 0.6)], 5 * DAY)
    state.prune(older_than=DAY)  # the turn goes, and what became of it with it
    log_of.record(SCOPE, "s", 0, "", [row("working_111111111111111", "partial", 0.6, 0.65)], now)
    log = log_of.of_memory(SCOPE, "working_111111111111111", 10)
    assert [e.outcome for e in log] == ["partial"]  # the year-old one went on this write
    assert log_of.prune(0.0) == 0  # nothing left to drop
