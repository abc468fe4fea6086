"""The promotion lifecycle: which collection a memory belongs in next.

Pure module. Every threshold lives in ``LifecycleConfig``; the service
evaluates ``after_outcome`` on every scored outcome and ``sweep`` (which
adds time-based expiry) from the periodic maintenance task.

::

    working --(score >= 0.7, uses >= 2)--> history --(score >= 0.9, uses >= 3, successes >= 5)--> patterns
               and 1 worked                              and 3 worked
       |                                     |  ^                                                  |
       | score < 0.2: deleted                |  +--------------- score < 0.4: demoted -------------+
       | 24 h unpromoted: expired            | score < 0.2: deleted; 30 days unused: expired

- One step per evaluation: a pattern that collapses is demoted to history
  first and is deleted there only if it keeps failing.
- ``memory_bank`` and ``books`` never change collection and are never deleted
  or expired by the lifecycle; only an explicit archive or removal retires them.
- A promotion needs ``worked`` outcomes among the stored marks (the last
  ``scoring.HISTORY_KEEP``): score and successes alone can be reached by a
  memory that is only ever shown and thanked for in passing.
- A promotion keeps the memory's counters (uses, successes, score), so the
  history -> patterns bar counts the evidence gathered in working as well.
- Expiry clocks: a working memory from its creation (a near-duplicate
  refresh restarts it); a history memory from the latest of its promotion,
  its last outcome and its last refresh. An imported memory (``imported_at``,
  set by backfill) has no time limit until it is first used (the user asked
  for that history), and from then on counts from its import at the
  earliest: its ``created`` is when it originally happened, which dates
  recency, not its time limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.memory.domain.naming import HISTORY, PATTERNS, WORKING
from services.memory.domain.outcomes import HISTORY_MARK, Outcome
from services.memory.domain.record import MemoryRecord
from services.memory.domain.scoring import Counters


@dataclass(frozen=True)
class LifecycleConfig:
    promote_working_min_score: float = 0.7
    promote_working_min_uses: int = 2
    promote_history_min_score: float = 0.9
    promote_history_min_uses: int = 3
    promote_history_min_successes: float = 5.0
    promote_working_min_worked: int = 1  # ``worked`` marks among the stored outcome marks
    promote_history_min_worked: int = 3
    demote_patterns_below: float = 0.4
    delete_below: float = 0.2
    working_ttl_hours: float = 24.0
    history_ttl_days: float = 30.0
    exchange_log_ttl_days: float = 7.0
    # PostToolUse observations below this importance, unscored and older than this, are
    # compacted into one summary per session (domain/observation_rules.py)
    observation_compact_after_hours: float = 2.0
    observation_compact_below: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 <= self.delete_below < self.demote_patterns_below <= 1.0:
            raise ValueError("lifecycle thresholds need 0 <= delete_below < demote_patterns_below <= 1")
        if self.working_ttl_hours <= 0 or self.history_ttl_days <= 0 or self.exchange_log_ttl_days <= 0:
            raise ValueError("lifecycle time limits must be positive")
        if self.observation_compact_after_hours <= 0 or not 0.0 <= self.observation_compact_below <= 1.0:
            raise ValueError("observation_compact_after_hours must be positive, observation_compact_below in [0, 1]")


class Action(StrEnum):
    NONE = ""
    PROMOTE = "promoted"
    DEMOTE = "demoted"
    DELETE = "deleted"
    EXPIRE = "expired"


@dataclass(frozen=True)
class Transition:
    action: Action
    target: str | None = None  # the collection a promotion/demotion moves to
    reason: str = ""


STAY = Transition(Action.NONE)


def worked_marks(counters: Counters) -> int:
    """How many of the stored outcome marks are ``worked``."""
    return counters.history.count(HISTORY_MARK[Outcome.WORKED])


def after_outcome(collection: str, counters: Counters, config: LifecycleConfig) -> Transition:
    """Score-driven transition after an outcome; memory_bank/books always stay."""
    score = counters.score
    worked = worked_marks(counters)
    if collection == WORKING:
        if score < config.delete_below:
            return Transition(Action.DELETE, reason=f"score {score:.2f} < {config.delete_below}")
        if (
            score >= config.promote_working_min_score
            and counters.uses >= config.promote_working_min_uses
            and worked >= config.promote_working_min_worked
        ):
            return Transition(Action.PROMOTE, HISTORY, f"score {score:.2f}, {counters.uses} uses, worked {worked}")
    elif collection == HISTORY:
        if score < config.delete_below:
            return Transition(Action.DELETE, reason=f"score {score:.2f} < {config.delete_below}")
        if (
            score >= config.promote_history_min_score
            and counters.uses >= config.promote_history_min_uses
            and counters.success_count >= config.promote_history_min_successes
            and worked >= config.promote_history_min_worked
        ):
            return Transition(
                Action.PROMOTE,
                PATTERNS,
                f"score {score:.2f}, {counters.uses} uses, {counters.success_count:g} successes, worked {worked}",
            )
    elif collection == PATTERNS and score < config.demote_patterns_below:
        return Transition(Action.DEMOTE, HISTORY, f"score {score:.2f} < {config.demote_patterns_below}")
    return STAY


def expiry_clock(record: MemoryRecord) -> datetime | None:
    """When the memory's time limit started (see the module doc); None when no time is known."""
    if record.imported_at is not None and record.last_used_at is None:
        return None  # imported and never used yet: kept until scored or archived (docs/BACKFILL.md)
    stamps = [record.created, record.refreshed_at, record.imported_at]
    if record.collection != WORKING:
        stamps += [record.promoted_at, record.demoted_at, record.last_used_at]
    known = [s for s in stamps if s is not None]
    return max(known) if known else None


def sweep(
    collection: str,
    counters: Counters,
    *,
    expiry_clock: datetime | None,
    now: datetime,
    config: LifecycleConfig,
) -> Transition:
    """``after_outcome`` plus expiry, for the periodic maintenance pass.

    ``expiry_clock`` is when the memory's time limit started (see module doc).
    """
    transition = after_outcome(collection, counters, config)
    if transition.action is not Action.NONE or expiry_clock is None:
        return transition
    idle_hours = (now - expiry_clock).total_seconds() / 3600.0
    if collection == WORKING and idle_hours > config.working_ttl_hours:
        return Transition(Action.EXPIRE, reason=f"unpromoted for {idle_hours:.0f} h")
    if collection == HISTORY and idle_hours > config.history_ttl_days * 24.0:
        return Transition(Action.EXPIRE, reason=f"unused for {idle_hours / 24:.0f} days")
    return STAY
