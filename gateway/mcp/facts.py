"""The numbers the tool descriptions quote, read from the memory service's code.

The descriptions teach the assistant how the lifecycle and scoring work, so
every threshold and formula they mention is formatted from the same
constants the memory service runs on (``services.memory.lifecycle``,
``outcomes``, ``scoring``, ``ranking``); none is typed twice. Those modules
are plain Python (no grpc, no chromadb), so importing them here is cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kernel.config import ConfigError
from services.memory.lifecycle import LifecycleConfig
from services.memory.outcomes import INITIAL_SCORE, SCORE_DELTA, SUCCESS_CREDIT, Outcome
from services.memory.ranking import DEFAULT_WEIGHTS
from services.memory.scoring import AGE_HALF_WEIGHT_DAYS, Counters, apply_outcome
from services.memory.settings import MemorySettings


def num(value: float) -> str:
    """0.7 -> "0.7", 0.55 -> "0.55", 5.0 -> "5", 24.0 -> "24"."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def signed(value: float) -> str:
    return ("+" if value >= 0 else "-") + f"{abs(value):.2f}"


@dataclass(frozen=True)
class Facts:
    lifecycle: LifecycleConfig

    @property
    def working_to_history(self) -> str:
        c = self.lifecycle
        return f"score >= {num(c.promote_working_min_score)} with >= {c.promote_working_min_uses} scored uses"

    @property
    def history_to_patterns(self) -> str:
        c = self.lifecycle
        return (
            f"score >= {num(c.promote_history_min_score)}, >= {c.promote_history_min_uses} uses "
            f"and >= {num(c.promote_history_min_successes)} successes"
        )

    @property
    def demote_below(self) -> str:
        return num(self.lifecycle.demote_patterns_below)

    @property
    def delete_below(self) -> str:
        return num(self.lifecycle.delete_below)

    @property
    def working_hours(self) -> str:
        return num(self.lifecycle.working_ttl_hours)

    @property
    def history_days(self) -> str:
        return num(self.lifecycle.history_ttl_days)

    @property
    def deltas(self) -> str:
        return ", ".join(
            f"{o.value} {signed(SCORE_DELTA[o])}" for o in (Outcome.WORKED, Outcome.PARTIAL, Outcome.FAILED)
        )

    @property
    def age_weight(self) -> str:
        return f"1/(1 + age_days/{num(AGE_HALF_WEIGHT_DAYS)})"

    @property
    def unknown_effect(self) -> str:
        credit = SUCCESS_CREDIT[Outcome.UNKNOWN]
        delta = SCORE_DELTA[Outcome.UNKNOWN]
        moves = "leaves the score alone" if delta == 0 else f"moves the score by {signed(delta)}"
        return f"unknown {moves} but counts as a use worth {num(credit)} of a success"

    @property
    def successes_credit(self) -> str:
        return ", ".join(f"{o.value} {num(SUCCESS_CREDIT[o])}" for o in Outcome)

    @property
    def fixed_quality_wilson(self) -> str:
        w = DEFAULT_WEIGHTS
        share = round(w.fixed_quality_wilson_share * 100)
        return f"{share}% Wilson once it has {w.fixed_quality_wilson_after_uses}+ uses"

    @property
    def initial(self) -> dict[str, str]:
        """Starting score of a takeaway by initial_score ("none" when left out)."""
        return {(o.value if o else "none"): num(v) for o, v in INITIAL_SCORE.items()}

    def failures_from_top(self, below: float) -> int:
        """Full-weight failed scores that take a memory at 1.0 below ``below`` (simulated with the real arithmetic)."""
        counters, count = Counters(score=1.0), 0
        while counters.score >= below and count < 100:
            counters = apply_outcome(counters, Outcome.FAILED, age_days=0.0)
            count += 1
        return count

    @property
    def failures_to_delete_top(self) -> int:
        return self.failures_from_top(self.lifecycle.delete_below)

    @property
    def failures_to_demote_top(self) -> int:
        return self.failures_from_top(self.lifecycle.demote_patterns_below)


def current_facts(environ: Mapping[str, str] | None = None) -> Facts:
    """The lifecycle the memory service runs with in this environment (MNEMEX_LIFECYCLE_* included)."""
    try:
        return Facts(MemorySettings.from_env(environ).lifecycle)
    except ConfigError:
        return Facts(LifecycleConfig())  # the memory service refuses to start with these; describe defaults
