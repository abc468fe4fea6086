"""TurnStore, a turn's one home in state.db, and the lifecycle events beside it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services.memory.domain.naming import Scope
from services.memory.storage.lifecycle_events import LifecycleEvent, LifecycleEvents
from services.memory.storage.state_db import StateDb
from services.memory.storage.turns import TurnStore

SCOPE = Scope("u", "p")


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[StateDb]:
    opened = StateDb(tmp_path / "state.db")
    yield opened
    opened.close()


@pytest.fixture()
def state(db: StateDb) -> TurnStore:
    return TurnStore(db)


def test_completed_unscored_turn_requires_scoring(state: TurnStore) -> None:
    state.record_injection(SCOPE, "s", ["a", "b"], "prompt one", 1.0)
    assert state.scoring_state(SCOPE, "s") is None  # still answering
    state.complete_turn(SCOPE, "s", "working_x", "", "answer", 2.0)
    turn = state.scoring_state(SCOPE, "s")
    assert turn is not None and turn.injected_ids == ["a", "b"] and turn.exchange_id == "working_x"
    assert turn.prompt == "prompt one"
    state.mark_scored(turn.id, 3.0)
    assert state.scoring_state(SCOPE, "s") is None


def test_interrupted_turn_needs_no_scoring(state: TurnStore) -> None:
    state.record_injection(SCOPE, "s", ["a"], "first", 1.0)
    state.record_injection(SCOPE, "s", ["b"], "second, interrupting", 2.0)
    assert state.scoring_state(SCOPE, "s") is None
    assert state.scoring_target(SCOPE, "s") is None  # neither the abandoned turn nor the one in progress


def test_a_score_while_answering_never_targets_the_turn_in_progress(state: TurnStore) -> None:
    state.record_injection(SCOPE, "s", ["a"], "one", 1.0)
    state.complete_turn(SCOPE, "s", "working_1", "", "ans", 2.0)
    state.record_injection(SCOPE, "s", ["b"], "two", 3.0)
    first = state.scoring_target(SCOPE, "s")
    assert first is not None and first.injected_ids == ["a"]
    state.mark_scored(first.id, 4.0)
    assert state.scoring_target(SCOPE, "s") is None  # a second score in turn two finds nothing to score


def test_injection_without_prompt_joins_the_open_turn(state: TurnStore) -> None:
    state.record_injection(SCOPE, "s", ["a"], "question", 1.0)
    state.record_injection(SCOPE, "s", ["b", "a"], "", 2.0)  # an MCP search mid-answer
    state.complete_turn(SCOPE, "s", "", "", "answer", 3.0)
    turn = state.scoring_state(SCOPE, "s")
    assert turn is not None and turn.injected_ids == ["a", "b"]


def test_target_is_the_completed_turn_while_the_next_is_open(state: TurnStore) -> None:
    state.record_injection(SCOPE, "s", ["a"], "one", 1.0)
    state.complete_turn(SCOPE, "s", "working_1", "", "ans", 2.0)
    state.record_injection(SCOPE, "s", ["b"], "two", 3.0)
    target = state.scoring_target(SCOPE, "s")
    assert target is not None and target.exchange_id == "working_1" and target.injected_ids == ["a"]


def test_empty_session_means_most_recent_in_scope(state: TurnStore) -> None:
    state.record_injection(SCOPE, "old", ["a"], "x", 1.0)
    state.record_injection(SCOPE, "new", ["b"], "y", 5.0)
    state.record_injection(Scope("u", "other"), "elsewhere", ["c"], "z", 9.0)
    assert state.resolve_session(SCOPE, "") == "new"
    state.complete_turn(SCOPE, "", "", "", "done", 6.0)
    turn = state.scoring_state(SCOPE, "new")
    assert turn is not None and turn.injected_ids == ["b"]


def test_prune_drops_old_logs_only(state: TurnStore) -> None:
    state.record_injection(SCOPE, "old", ["a"], "x", 1.0)
    state.record_injection(SCOPE, "new", ["b"], "y", 100.0)
    assert state.prune(50.0) == 1
    assert state.turn_count() == 1
    assert state.resolve_session(SCOPE, "") == "new"


def test_events_summarised_per_kind_and_day(db: StateDb) -> None:
    events = LifecycleEvents(db)
    day_one = 1_700_000_000.0
    events.add(SCOPE, [LifecycleEvent("promoted", "w_1", "working", "history")], day_one)
    events.add(
        SCOPE,
        [LifecycleEvent("deleted", "w_2", "working"), LifecycleEvent("promoted", "w_3", "working", "history")],
        day_one + 86_400,
    )
    totals, by_day = events.summary(SCOPE)
    assert totals == {"promoted": 2, "deleted": 1}
    assert list(by_day.values()) == [{"promoted": 1}, {"deleted": 1, "promoted": 1}]
    assert events.summary(Scope("u", "elsewhere")) == ({}, {})


def test_state_survives_reopen(tmp_path: Path) -> None:
    first = StateDb(tmp_path / "s.db")
    TurnStore(first).record_injection(SCOPE, "s", ["a"], "x", 1.0)
    TurnStore(first).complete_turn(SCOPE, "s", "working_e", "", "y", 2.0)
    first.close()
    second = StateDb(tmp_path / "s.db")
    turn = TurnStore(second).scoring_state(SCOPE, "s")
    second.close()
    assert turn is not None and turn.exchange_id == "working_e"


def test_a_turn_key_is_claimed_once_per_session(state: TurnStore) -> None:
    assert state.claim_turn_key(SCOPE, "s", "gen-1", 1.0) is True
    assert state.claim_turn_key(SCOPE, "s", "gen-1", 2.0) is False  # the second report of that answer
    assert state.claim_turn_key(SCOPE, "other", "gen-1", 2.0) is True  # keys are per session
    state.release_turn_key(SCOPE, "s", "gen-1")
    assert state.claim_turn_key(SCOPE, "s", "gen-1", 3.0) is True  # a failed store gave it back
    state.prune(older_than=10.0)
    assert state.claim_turn_key(SCOPE, "s", "gen-1", 11.0) is True  # pruned with the turn log
