"""Applying outcomes: per-memory counters, then the lifecycle, atomically per memory.

``score`` decides *which* memories an outcome applies to (the seed's
``related`` table) and ``apply_outcome`` does one memory's read-modify-write
under its uid lock, followed by any promotion, demotion or deletion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from services.memory import timefmt
from services.memory.errors import InvalidRequest
from services.memory.lifecycle import Action, Transition, after_outcome
from services.memory.naming import SCORED_COLLECTIONS, Scope, check_id, split_id
from services.memory.normalize import as_bool, counters_of, created_at_of
from services.memory.outcomes import Outcome
from services.memory.runtime import Runtime
from services.memory.scoring import Counters
from services.memory.scoring import apply_outcome as next_counters
from services.memory.session_state import LifecycleEvent
from services.memory.store import StoredMemory

MAX_SCORED_IDS = 200


@dataclass(frozen=True)
class ScoredMemory:
    id: str
    collection_before: str
    collection_after: str
    score_before: float
    score_after: float
    outcome: Outcome
    transition: str = ""
    new_id: str = ""


@dataclass
class ScoreSummary:
    scored: list[ScoredMemory] = field(default_factory=list)
    exchange_id: str = ""
    not_found: list[str] = field(default_factory=list)

    @property
    def collections(self) -> list[str]:
        return list(dict.fromkeys(s.collection_before for s in self.scored))


def counter_fields(counters: Counters) -> dict[str, object]:
    return {
        "score": counters.score,
        "uses": counters.uses,
        "success_count": counters.success_count,
        "last_outcome": counters.last_outcome,
        "outcome_history": counters.history,
    }


async def apply_transition(
    rt: Runtime, scope: Scope, memory: StoredMemory, transition: Transition, changes: dict[str, object]
) -> tuple[str, str]:
    """Carry out ``transition`` (caller holds the uid lock). Returns (collection_after, new_id)."""
    now = timefmt.to_iso(rt.now())
    if transition.action is Action.NONE:
        await rt.update(scope, memory, changes)
        return memory.collection, ""
    if transition.action in (Action.DELETE, Action.EXPIRE):
        await rt.delete(scope, memory)
        event = LifecycleEvent(transition.action.value, memory.id, memory.collection)
        await rt.io(rt.state.add_events, scope, [event], rt.now().timestamp())
        return "", ""
    assert transition.target is not None
    stamp = "promoted_at" if transition.action is Action.PROMOTE else "demoted_at"
    moved = await rt.move(scope, memory, transition.target, {**changes, stamp: now, "moved_at": now})
    event = LifecycleEvent(transition.action.value, memory.id, memory.collection, transition.target)
    await rt.io(rt.state.add_events, scope, [event], rt.now().timestamp())
    return moved.collection, moved.id


async def apply_outcome(rt: Runtime, scope: Scope, memory_id: str, outcome: Outcome) -> ScoredMemory | None:
    """One outcome on one memory; None when the id is not in this scope."""
    _, uid = split_id(memory_id)
    async with rt.locks.hold(uid):
        memory = await rt.locate(scope, memory_id)
        if memory is None:
            return None
        now = rt.now()
        before = counters_of(memory.metadata, memory.collection)
        age = timefmt.age_days(created_at_of(memory.metadata), now)
        after = next_counters(before, outcome, age, moves_score=memory.collection in SCORED_COLLECTIONS)
        changes = {**counter_fields(after), "last_used_at": timefmt.to_iso(now)}
        archived = as_bool(memory.metadata.get("archived", False))
        transition = after_outcome(memory.collection, after, rt.settings.lifecycle) if not archived else Transition(Action.NONE)
        collection_after, new_id = await apply_transition(rt, scope, memory, transition, changes)
        return ScoredMemory(
            id=memory.id,
            collection_before=memory.collection,
            collection_after=collection_after,
            score_before=before.score,
            score_after=after.score,
            outcome=outcome,
            transition=transition.action.value,
            new_id=new_id,
        )


async def score(
    rt: Runtime,
    scope: Scope,
    *,
    session_id: str,
    outcome: Outcome | None,
    memory_scores: Mapping[str, Outcome],
    related: Sequence[str] | None,
) -> ScoreSummary:
    """Apply an exchange outcome and per-memory outcomes.

    ``related``: None -> every memory injected in the turn being scored;
    ``[]`` -> none (only the exchange); ids -> exactly those, cache or not.
    ``memory_scores`` wins for its ids. The turn is then marked scored.
    """
    if outcome is None and not memory_scores:
        raise InvalidRequest("nothing to score: pass outcome (worked, partial, unknown or failed) and/or memory_scores")
    if len(session_id) > 200:
        raise InvalidRequest("session_id is longer than 200 characters")
    given = [*(related or ()), *memory_scores]
    if len(given) > MAX_SCORED_IDS:
        raise InvalidRequest(f"{len(given)} ids given; score at most {MAX_SCORED_IDS} at once")
    for memory_id in given:
        check_id(memory_id)
    target = await rt.io(rt.state.scoring_target, scope, session_id)
    plan: dict[str, Outcome] = {}
    summary = ScoreSummary()
    if outcome is not None:
        if target is not None and target.exchange_id:
            summary.exchange_id = target.exchange_id
            plan[target.exchange_id] = outcome
        ids = (target.injected_ids if target is not None else []) if related is None else list(related)
        for memory_id in ids:
            plan.setdefault(memory_id.strip(), outcome)
    for memory_id, value in memory_scores.items():
        plan[memory_id.strip()] = value
    results = await rt.gather(*(apply_outcome(rt, scope, i, o) for i, o in plan.items()))
    for memory_id, result in zip(plan, results, strict=True):
        if result is None:
            summary.not_found.append(memory_id)
        else:
            summary.scored.append(result)
    if target is not None:
        await rt.io(rt.state.mark_scored, target.id, rt.now().timestamp())
    return summary
