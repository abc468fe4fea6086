"""Outcome arithmetic: score deltas, counters and the Wilson lower bound.

Plain module. ``apply_outcome`` is a pure function from the counters a
memory carries to its next counters; the service does the read-modify-write
under a per-memory lock.

- ``score`` moves by ``delta * age_weight`` and is clamped to [0, 1], where
  ``age_weight = 1 / (1 + age_days / 30)``: a fresh memory learns at full
  strength, a month-old one at half.
- ``uses`` grows by one per outcome, ``success_count`` by the outcome's
  success credit (``outcomes.SUCCESS_CREDIT``).
- Collections whose score is not outcome-driven (memory_bank, books) keep
  their score but still count uses and successes, so Wilson can rank them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from services.memory.domain.outcomes import HISTORY_MARK, SCORE_DELTA, SUCCESS_CREDIT, Outcome

WILSON_Z = 1.96
AGE_HALF_WEIGHT_DAYS = 30.0
HISTORY_KEEP = 10  # outcome marks stored per memory; the last 3 are displayed


@dataclass(frozen=True)
class Counters:
    """What a memory carries about its outcomes."""

    score: float = 0.5
    uses: int = 0
    success_count: float = 0.0
    last_outcome: str = ""
    history: str = ""  # newest last, e.g. "YY~N"


def clamp01(value: float) -> float:
    return 0.0 if value < 0.0 else min(value, 1.0)


def age_weight(age_days: float) -> float:
    return 1.0 / (1.0 + max(0.0, age_days) / AGE_HALF_WEIGHT_DAYS)


def wilson_lower_bound(successes: float, uses: int, z: float = WILSON_Z) -> float:
    """Lower bound of the Wilson score interval; 0.5 for a memory never used."""
    if uses <= 0:
        return 0.5
    n = float(uses)
    p = clamp01(successes / n)
    z2 = z * z
    centre = p + z2 / (2 * n)
    margin = z * math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)
    return clamp01((centre - margin) / (1 + z2 / n))


def apply_outcome(counters: Counters, outcome: Outcome, age_days: float, *, moves_score: bool = True) -> Counters:
    """Counters after one ``outcome`` on a memory that is ``age_days`` old."""
    score = counters.score
    if moves_score:
        score = clamp01(score + SCORE_DELTA[outcome] * age_weight(age_days))
    history = (counters.history + HISTORY_MARK[outcome])[-HISTORY_KEEP:]
    return replace(
        counters,
        score=round(score, 6),
        uses=counters.uses + 1,
        success_count=round(counters.success_count + SUCCESS_CREDIT[outcome], 6),
        last_outcome=outcome.value,
        history=history,
    )


def format_history(history: str, last: int = 3) -> str:
    """The last ``last`` outcome marks as ``[YY~]``; empty when never scored."""
    return f"[{history[-last:]}]" if history else ""
