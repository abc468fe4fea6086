"""Restart policy for crashed services: exponential backoff with a reset.

A service that crashes is restarted after ``initial`` seconds, then twice
that on each further consecutive crash, capped at ``maximum``. Once a
restarted service has stayed healthy for ``reset_after`` seconds its crash
streak is forgotten, so a crash a day later restarts quickly again.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RestartPolicy:
    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0
    reset_after: float = 60.0

    def delay(self, consecutive_crashes: int) -> float:
        """Seconds to wait before restart number ``consecutive_crashes`` (1-based)."""
        if consecutive_crashes <= 0:
            return 0.0
        return float(min(self.maximum, self.initial * self.factor ** (consecutive_crashes - 1)))

    def streak_after_crash(self, streak: int, healthy_for: float | None) -> int:
        """The new crash streak when a service exits after ``healthy_for`` seconds of health."""
        if healthy_for is not None and healthy_for >= self.reset_after:
            return 1
        return streak + 1
