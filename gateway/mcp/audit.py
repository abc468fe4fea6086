"""When ``get_context_insights`` appends the self-audit reminder.

The trigger is deterministic, so it can be tested and reasoned about:

- count ``get_context_insights`` calls per project scope;
- once ``EVERY`` calls have passed since the last reminder (the 5th, 10th, ...
  call when memory_bank facts keep showing up) *and* the current answer
  contains at least one memory_bank fact, append the reminder and restart
  the count;
- a call without memory_bank facts never shows it (there is nothing to
  audit) and does not reset the count, so the reminder comes with the next
  answer that does have facts.

The counter lives in the MCP server process (one per ``mnemex mcp`` and one
per gateway replica); it needs no persistence: a restart only delays the next
reminder. Plain module.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

EVERY = 5
MAX_SCOPES = 10_000


class SelfAuditTrigger:
    def __init__(self, every: int = EVERY) -> None:
        if every < 1:
            raise ValueError("every must be >= 1")
        self.every = every
        self._calls: dict[str, int] = {}
        self._lock = threading.Lock()

    def observe(self, scope: str, collections: Iterable[str]) -> bool:
        """Record one call for ``scope`` that showed memories of ``collections``; True when this answer
        should carry the reminder."""
        has_facts = "memory_bank" in collections
        with self._lock:
            if scope not in self._calls and len(self._calls) >= MAX_SCOPES:
                self._calls.clear()
            count = self._calls.get(scope, 0) + 1
            if count >= self.every and has_facts:
                self._calls[scope] = 0
                return True
            self._calls[scope] = count
            return False
