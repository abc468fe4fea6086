"""Protobuf conversions for the viewer's RPCs (Browse, ListSessions, ListTurns, OutcomeLog); translation only."""

from __future__ import annotations

from datetime import UTC, datetime

from kernel.context_choice import RankParts
from kernel.outcome_entry import OutcomeEntry
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain import timefmt
from services.memory.storage.turns import SessionRow, Turn

FIRST_PROMPT_CHARS = 300  # a session's title: the list shows a line of it


def _iso(ts: float) -> str:
    return timefmt.to_iso(datetime.fromtimestamp(ts, UTC))


def rank_parts(parts: RankParts | None) -> pb.RankParts | None:
    """What made an injected memory's rank, for PrepareContext's reply (None: not known)."""
    if parts is None:
        return None
    return pb.RankParts(
        dense=parts.dense,
        lexical=parts.lexical,
        session_context=parts.session_context,
        relevance=parts.relevance,
        kg_weight=parts.kg_weight,
        kg_linked=parts.kg_linked,
        learned=parts.learned,
        final=parts.final,
    )


def outcome_entry(row: OutcomeEntry) -> pb.OutcomeEntry:
    return pb.OutcomeEntry(
        at=_iso(row.at),
        memory_id=row.memory_id,
        outcome=row.outcome,
        score_before=row.score_before,
        score_after=row.score_after,
        collection_before=row.collection_before,
        collection_after=row.collection_after,
        transition=row.transition,
        new_id=row.new_id,
        session_id=row.session_id,
        turn_id=row.turn_id,
    )


def turn(item: Turn) -> pb.TurnRecord:
    return pb.TurnRecord(
        id=item.id,
        session_id=item.session_id,
        prompt=item.prompt,
        injected_ids=item.injected_ids,
        completed=item.completed,
        scored=item.scored,
        exchange_id=item.exchange_id,
        started_at=_iso(item.started_at),
        outcome=item.outcome,
        outcomes=[outcome_entry(o) for o in item.outcomes],
        choices_json=item.choices,
        client=item.client,
    )


def session(item: SessionRow) -> pb.SessionSummary:
    return pb.SessionSummary(
        session_id=item.session_id,
        # milliseconds: the viewer lands on the project with the newest session, and two
        # projects active within one second would tie at whole seconds
        last_activity=datetime.fromtimestamp(item.last_activity, UTC).isoformat(timespec="milliseconds"),
        turns=item.turns,
        first_prompt=item.first_prompt[:FIRST_PROMPT_CHARS],
        clients=item.clients,
    )
