"""What the client hooks get back: a turn started, an exchange stored, a session's seed, the reminder
before a compaction, a tool observation stored."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.memory_replies import Memory, memories_json
from gateway.replies.reply_json import JsonObject


@dataclass(frozen=True, slots=True)
class TurnStarted:
    recorded: bool  # False for an empty prompt

    def to_json(self) -> JsonObject:
        return {"recorded": self.recorded}


@dataclass(frozen=True, slots=True)
class ExchangeStored:
    exchange_id: str
    already_recorded: bool  # the turn_key was seen before: nothing stored

    def to_json(self) -> JsonObject:
        return {"exchange_id": self.exchange_id, "already_recorded": self.already_recorded}


@dataclass(frozen=True, slots=True)
class SessionSeed:
    context: str
    memories: tuple[Memory, ...]  # top facts, then recent, then proven memories

    def to_json(self) -> JsonObject:
        return {"context": self.context, "memories": memories_json(self.memories)}


@dataclass(frozen=True, slots=True)
class CompactReminder:
    context: str  # for a client that passes it to the model
    user_message: str  # for a client that shows it to the user only

    def to_json(self) -> JsonObject:
        return {"context": self.context, "user_message": self.user_message}


@dataclass(frozen=True, slots=True)
class ObservationStored:
    stored: bool
    id: str = ""
    deduplicated: bool = False

    def to_json(self) -> JsonObject:
        if not self.stored:
            return {"stored": False}
        return {"stored": True, "id": self.id, "deduplicated": self.deduplicated}
