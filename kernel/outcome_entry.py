"""What one score did to one memory: the outcome log's row, on both sides of the wire.

Pure module. The memory service writes and reads these rows (``services.memory.storage.outcome_log``)
and sends them as ``OutcomeEntry`` messages; the viewer turns each message back into this record, so the
memory page's timeline and the session page's "this turn it worked" read one definition.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OutcomeEntry:
    at: float  # seconds since the epoch
    memory_id: str
    outcome: str  # worked, partial, unknown or failed
    score_before: float
    score_after: float
    collection_before: str
    collection_after: str
    transition: str  # promote, demote, delete or none
    new_id: str  # the id after a move to another collection
    session_id: str = ""
    turn_id: int = 0  # the turn scored (0: none)
