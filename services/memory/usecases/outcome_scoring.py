"""Applying outcomes: per-memory counters, then the lifecycle, atomically per memory.

``score`` decides *which* memories an outcome applies to (the seed's
``related`` table) and ``_apply`` does one memory's read-modify-write under
its uid lock, followed by any promotion, demotion or deletion.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from kernel.blocking_io import BlockingIO
from kernel.outcome_entry import OutcomeEntry
from services.memory.domain import timefmt
from services.memory.domain.lifecycle import Action, LifecycleConfig, Transition, after_outcome
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import SCORED_COLLECTIONS, Scope, check_id, split_id
from services.memory.domain.outcomes import Outcome
from services.memory.domain.scoring import apply_outcome
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.outcome_log import OutcomeLog
from services.memory.storage.turns import Turn, TurnStore
from services.memory.usecases.lifecycle_moves import LifecycleMoves
from services.memory.usecases.turn_recording import check_session_id
from services.memory.usecases.turn_write_queue import TurnWrites

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
    prompt: str = ""  # the scored turn's prompt, for teaching the kg
    session_id: str = ""  # the scored turn's session, for the kg's episode

    @property
    def collections(self) -> list[str]:
        return list(dict.fromkeys(s.collection_before for s in self.scored))


class OutcomeScoring:
    def __init__(
        self,
        store: MemoryStore,
        turn_store: TurnStore,
        io: BlockingIO,
        locks: KeyedLocks,
        moves: LifecycleMoves,
        turn_writes: TurnWrites,
        *,
        lifecycle: LifecycleConfig,
        clock: Callable[[], datetime],
        outcome_log: OutcomeLog | None = None,
    ) -> None:
        self._outcome_log = outcome_log  # what the viewer reads of each score; None: not kept
        self._store = store
        self._turn_store = turn_store
        self._io = io
        self._locks = locks
        self._moves = moves
        self._turn_writes = turn_writes
        self._lifecycle = lifecycle
        self._clock = clock

    async def _apply(self, scope: Scope, memory_id: str, outcome: Outcome) -> ScoredMemory | None:
        """One outcome on one memory; None when the id is not in this scope."""
        _, uid = split_id(memory_id)
        async with self._locks.hold(uid):
            record = await self._store.locate(scope, memory_id)
            if record is None:
                return None
            now = self._clock()
            before = record.counters
            age = timefmt.age_days(record.created, now)
            counters = apply_outcome(before, outcome, age, moves_score=record.collection in SCORED_COLLECTIONS)
            after = replace(record, counters=counters, last_used_at=now)
            transition = (
                after_outcome(record.collection, counters, self._lifecycle)
                if not record.archived
                else Transition(Action.NONE)
            )
            collection_after, new_id = await self._moves.apply(scope, record, after, transition)
            return ScoredMemory(
                id=record.id,
                collection_before=record.collection,
                collection_after=collection_after,
                score_before=before.score,
                score_after=counters.score,
                outcome=outcome,
                transition=transition.action.value,
                new_id=new_id,
            )

    async def score(
        self,
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
        session_id = check_session_id(session_id)
        await self._turn_writes.settle(scope, session_id)
        if outcome is None and not memory_scores:
            raise InvalidRequest(
                "nothing to score: pass outcome (worked, partial, unknown or failed) and/or memory_scores"
            )
        given = [*(related or ()), *memory_scores]
        if len(given) > MAX_SCORED_IDS:
            raise InvalidRequest(f"{len(given)} ids given; score at most {MAX_SCORED_IDS} at once")
        for memory_id in given:
            check_id(memory_id)
        target = await self._io.run(self._turn_store.scoring_target, scope, session_id)
        plan: dict[str, Outcome] = {}
        summary = ScoreSummary()
        if target is not None:
            summary.prompt = target.prompt
            summary.session_id = target.session_id
        if outcome is not None:
            if target is not None and target.exchange_id:
                summary.exchange_id = target.exchange_id
                plan[target.exchange_id] = outcome
            ids = (target.injected_ids if target is not None else []) if related is None else list(related)
            for memory_id in ids:
                plan.setdefault(memory_id.strip(), outcome)
        for memory_id, value in memory_scores.items():
            plan[memory_id.strip()] = value
        results = await asyncio.gather(*(self._apply(scope, i, o) for i, o in plan.items()))
        for memory_id, result in zip(plan, results, strict=True):
            if result is None:
                summary.not_found.append(memory_id)
            else:
                summary.scored.append(result)
        if target is not None:
            await self._io.run(self._turn_store.mark_scored, target.id, self._clock().timestamp())
        await self._log(scope, session_id, target, outcome, summary)
        return summary

    async def _log(
        self, scope: Scope, session_id: str, target: Turn | None, outcome: Outcome | None, summary: ScoreSummary
    ) -> None:
        if self._outcome_log is None or not (summary.scored or target is not None):
            return
        now = self._clock().timestamp()
        session = target.session_id if target is not None else session_id
        rows = [
            OutcomeEntry(
                now,
                s.id,
                s.outcome.value,
                s.score_before,
                s.score_after,
                s.collection_before,
                s.collection_after,
                s.transition,
                s.new_id,
                session,
                target.id if target is not None else 0,
            )
            for s in summary.scored
        ]
        turn_outcome = outcome.value if outcome is not None and target is not None else ""
        await self._io.run(
            self._outcome_log.record, scope, session, target.id if target is not None else 0, turn_outcome, rows, now
        )
