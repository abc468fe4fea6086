"""What the viewer's pages read: one TypedDict per page shape (the templates read them as dicts).

A memory is its JSON (``memory_replies.Memory.to_json``, a search hit's too); ``ViewerData`` (``ui/data.py``)
answers each page in one of these.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from gateway.replies.reply_json import JsonObject
from gateway.ui import graph_view
from gateway.ui.project_scope import ScopeRow
from kernel.json_values import JSONObject
from kernel.outcome_entry import OutcomeEntry

MemoryJson = JsonObject  # a memory as the pages read it: ``memory_replies.Memory.to_json`` (a search hit's too)


class MemoryPage(TypedDict):
    memories: list[MemoryJson]
    total: int
    relevant: int | None  # how many passed a search's relevance floor; None: no search
    capped: bool  # the search's ranking stopped at its pool: more may match
    tags: list[str]
    sort: str


class OverviewStats(TypedDict):
    counts: dict[str, int]
    score_histogram: dict[str, int]
    events: dict[str, int]
    events_by_day: JsonObject  # {day: {event kind: count}}


class Overview(TypedDict):
    project: str
    stats: OverviewStats
    projects: list[ScopeRow]


class InjectedLine(TypedDict):
    """One memory a turn injected, with its rank, what it is now, the outcome it got and why it was chosen."""

    rank: int
    id: str
    memory: MemoryJson | None  # None: no longer stored
    outcome: OutcomeEntry | None
    choice: JSONObject | None  # PrepareContext's choice for it


class TurnRow(TypedDict):
    id: int
    session_id: str
    prompt: str
    injected: list[str]
    completed: bool
    scored: bool
    exchange_id: str
    started_at: str
    outcome: str
    outcomes: list[OutcomeEntry]
    choices: list[JSONObject]  # PrepareContext's choices: kept or left out, and why
    client: str
    # set by ``ViewerSessions.session``
    answer: NotRequired[str | None]
    memories: NotRequired[list[InjectedLine]]
    left_out: NotRequired[list[JSONObject]]
    tokens: NotRequired[int]


class MemoryView(TypedDict):
    memory: MemoryJson
    outcomes: list[OutcomeEntry]
    turns: list[TurnRow]
    written_by: str


class SessionRow(TypedDict):
    session_id: str
    last_activity: str
    turns: int
    title: str
    clients: list[str]
    imported: NotRequired[bool]  # imported by ``mnemex backfill`` (``imported_sessions``)


class SessionView(TypedDict):
    session_id: str
    turns: list[TurnRow]


class GraphView(TypedDict):
    elements: graph_view.Elements
    routing: list[graph_view.RoutingRow]
    problems: list[graph_view.Problem]
