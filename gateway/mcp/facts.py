"""The numbers the tool descriptions quote, from the memory service that runs.

The descriptions teach the assistant how the lifecycle and scoring work, so
every threshold and formula they mention is formatted from the rules the
memory service reports over ``GetRules`` (``gateway.rules``); none is typed
into the text.

When the rules are fetched (``FactsCache``):
- at the first ``list_tools``, with a short deadline (``FETCH_TIMEOUT``),
  then kept for the life of the MCP server;
- while the memory service cannot answer (not started yet, down, an older
  build without ``GetRules``) the descriptions quote ``DEFAULT_RULES`` (what a
  memory service with default settings reports), a warning says so, and a
  ``list_tools`` at least ``RETRY_AFTER`` seconds later asks again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from gateway.rules import DEFAULT_RULES, Rules

log = logging.getLogger("mnemex.mcp.facts")

FETCH_TIMEOUT = 1.0
RETRY_AFTER = 30.0


def num(value: float) -> str:
    """0.7 -> "0.7", 0.55 -> "0.55", 5.0 -> "5", 24.0 -> "24"."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def signed(value: float) -> str:
    return ("+" if value >= 0 else "-") + f"{abs(value):.2f}"


@dataclass(frozen=True)
class Facts:
    rules: Rules

    @property
    def working_to_history(self) -> str:
        c = self.rules.lifecycle
        return f"score >= {num(c.promote_working_min_score)} with >= {c.promote_working_min_uses} scored uses"

    @property
    def history_to_patterns(self) -> str:
        c = self.rules.lifecycle
        return (
            f"score >= {num(c.promote_history_min_score)}, >= {c.promote_history_min_uses} uses "
            f"and >= {num(c.promote_history_min_successes)} successes"
        )

    @property
    def demote_below(self) -> str:
        return num(self.rules.lifecycle.demote_patterns_below)

    @property
    def delete_below(self) -> str:
        return num(self.rules.lifecycle.delete_below)

    @property
    def working_hours(self) -> str:
        return num(self.rules.lifecycle.working_ttl_hours)

    @property
    def history_days(self) -> str:
        return num(self.rules.lifecycle.history_ttl_days)

    @property
    def deltas(self) -> str:
        outcomes = self.rules.outcomes
        return ", ".join(f"{word} {signed(outcomes[word].score_delta)}" for word in ("worked", "partial", "failed"))

    @property
    def age_weight(self) -> str:
        return f"1/(1 + age_days/{num(self.rules.age_half_weight_days)})"

    @property
    def unknown_effect(self) -> str:
        unknown = self.rules.outcomes["unknown"]
        delta = unknown.score_delta
        moves = "leaves the score alone" if delta == 0 else f"moves the score by {signed(delta)}"
        credit = unknown.success_credit
        earns = "earns no success" if credit == 0 else f"earns {num(credit)} of a success"
        return f"unknown {moves} and {earns} but counts as a use; only worked outcomes promote"

    @property
    def successes_credit(self) -> str:
        return ", ".join(f"{word} {num(rule.success_credit)}" for word, rule in self.rules.outcomes.items())

    @property
    def history_marks(self) -> str:
        return ", ".join(f"{rule.history_mark} {word}" for word, rule in self.rules.outcomes.items())

    @property
    def fixed_quality_wilson(self) -> str:
        share = round(self.rules.fixed_quality_wilson_share * 100)
        return f"{share}% Wilson once it has {self.rules.fixed_quality_wilson_after_uses}+ uses"

    @property
    def initial(self) -> dict[str, str]:
        """Starting score of a takeaway by initial_score ("none" when left out)."""
        scores = {word: num(rule.initial_score) for word, rule in self.rules.outcomes.items()}
        return {"none": num(self.rules.default_initial_score), **scores}

    @property
    def failures_to_delete_top(self) -> int:
        return self.rules.failures_to_delete_from_top

    @property
    def failures_to_demote_top(self) -> int:
        return self.rules.failures_to_demote_from_top


DEFAULT_FACTS = Facts(DEFAULT_RULES)


class FactsCache:
    """The memory service's rules, fetched once; ``DEFAULT_FACTS`` until it answers (see the module doc)."""

    def __init__(
        self,
        fetch: Callable[[], Awaitable[Rules]],
        *,
        timeout: float = FETCH_TIMEOUT,
        retry_after: float = RETRY_AFTER,
    ) -> None:
        self._fetch = fetch
        self._timeout = timeout
        self._retry_after = retry_after
        self._facts: Facts | None = None
        self._failed_at: float | None = None

    async def get(self) -> Facts:
        """No lock: two first calls at once may both ask, which is harmless (and a lock would bind to one loop)."""
        if self._facts is not None:
            return self._facts
        if self._failed_at is not None and time.monotonic() - self._failed_at < self._retry_after:
            return DEFAULT_FACTS
        try:
            rules = await asyncio.wait_for(self._fetch(), self._timeout)
        except Exception as exc:  # any failure: describe the defaults, never fail list_tools
            self._failed_at = time.monotonic()
            log.warning(
                "tool descriptions quote the default memory rules: the memory service did not report its "
                "own (%s); asking again in %.0f s",
                str(exc) or type(exc).__name__,
                self._retry_after,
            )
            return DEFAULT_FACTS
        self._facts = Facts(rules)
        return self._facts
