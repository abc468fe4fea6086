"""A session's turns as the pages show them: the memory service's turn records and outcome entries
become rows, with the assistant's answer read from the stored exchange and what the injected memories cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gateway import formatting
from gateway.ui.page_shapes import TurnRow
from gateway.ui.ui_display import parse_time
from kernel.json_values import JSONObject, as_list, parse_value
from kernel.outcome_entry import OutcomeEntry
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

DEFAULT_CONTEXT_LIMIT = 5  # get-context's default number of lines (schemas.GetContextBody.limit)
ANSWER_MARK = "Assistant: "


def outcome_row(entry: mem_pb.OutcomeEntry) -> OutcomeEntry:
    moment = parse_time(entry.at)
    return OutcomeEntry(
        at=moment.timestamp() if moment is not None else 0.0,
        memory_id=entry.memory_id,
        outcome=entry.outcome,
        score_before=round(entry.score_before, 4),
        score_after=round(entry.score_after, 4),
        collection_before=entry.collection_before,
        collection_after=entry.collection_after,
        transition=entry.transition,
        new_id=entry.new_id,
        session_id=entry.session_id,
        turn_id=entry.turn_id,
    )


def turn_row(turn: mem_pb.TurnRecord) -> TurnRow:
    return TurnRow(
        id=turn.id,
        session_id=turn.session_id,
        prompt=turn.prompt,
        injected=list(turn.injected_ids),
        completed=turn.completed,
        scored=turn.scored,
        exchange_id=turn.exchange_id,
        started_at=turn.started_at,
        outcome=turn.outcome,
        outcomes=[outcome_row(o) for o in turn.outcomes],
        choices=choices_of(turn.choices_json),
        client=turn.client,
    )


def choices_of(text: str) -> list[JSONObject]:
    """PrepareContext's choices for a turn (kept or left out, and why); [] when none were kept."""
    try:
        value = parse_value(text) if text else []
    except ValueError:
        return []
    return [c for c in as_list(value) if isinstance(c, dict)]


def answer_of(exchange: str, prompt: str) -> str:
    """The assistant's answer in a stored exchange (``User: <prompt>\nAssistant: <answer>``)."""
    asked = f"User: {prompt}\n{ANSWER_MARK}"
    if prompt and exchange.startswith(asked):
        return exchange[len(asked) :]
    if exchange.startswith(ANSWER_MARK):
        return exchange[len(ANSWER_MARK) :]
    _, found, answer = exchange.partition("\n" + ANSWER_MARK)
    return answer if found else ""


def injected_tokens(memories: Sequence[Mapping[str, object]]) -> int:
    """About what a turn's injected memories cost the model: the KNOWN CONTEXT block get-context formats for
    them (default budget, each line cut as injected), in tokens. The block itself is not kept with the turn,
    so this is read from the memories' text now (0: nothing injected)."""
    if not memories:
        return 0
    block = formatting.known_context(
        memories, budget=formatting.block_chars(DEFAULT_CONTEXT_LIMIT), content_limit=formatting.INJECTED_MEMORY_CHARS
    )
    return formatting.token_cost(block)
