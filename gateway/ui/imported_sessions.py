"""Sessions imported by ``mnemex backfill``: their exchanges are history memories, not turns.

Backfill (``gateway.capabilities.backfill_service``) stores each past exchange
in the history collection with its ``session_id`` and an ``imported_at`` time,
and opens no turn, so the turn log's session list never names them. The
sessions page lists them from the project's newest imported exchanges (with an
"imported" badge), and a session page with no turns shows its exchanges.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gateway.caller import Caller
from gateway.capabilities.browse_service import BrowseService
from gateway.ui import ui_display
from gateway.ui.page_shapes import SessionRow
from kernel.json_values import JSONObject, as_object, parse_value
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

SCANNED = 100  # the newest imported exchanges the list is built from (one Browse page)
EXCHANGES_SHOWN = 100  # the memory service's Browse page limit


@dataclass(frozen=True)
class ImportedExchange:
    id: str
    created_at: str
    prompt: str
    answer: str


def _metadata(memory: mem_pb.Memory) -> JSONObject:
    try:
        return as_object(parse_value(memory.metadata_json or "{}"))
    except ValueError:
        return {}


def split_exchange(content: str) -> tuple[str, str]:
    """``"User: ...\\nAssistant: ..."`` (how an exchange is stored) -> (prompt, answer)."""
    prompt, _, answer = content.partition("\nAssistant: ")
    if not answer and content.startswith("Assistant: "):
        return "", content.removeprefix("Assistant: ")
    return prompt.removeprefix("User: "), answer


async def imported_sessions(browse: BrowseService, caller: Caller) -> list[SessionRow]:
    """Rows for the sessions list (the shape of ``ViewerSessions.latest`` plus ``imported``), newest first."""
    reply = await browse.browse(
        caller,
        collections=["history"],
        tag="",
        sort="recency",
        limit=SCANNED,
        offset=0,
        archived="active",
        kind="exchange",
    )
    by_session: dict[str, list[tuple[datetime, str, str]]] = {}
    for memory in reply.memories:
        metadata = _metadata(memory)
        session_id = str(metadata.get("session_id") or "")
        stamp = ui_display.parse_time(memory.created_at)
        if session_id and metadata.get("imported_at") and stamp is not None:
            by_session.setdefault(session_id, []).append((stamp, memory.created_at, memory.content))
    for exchanges in by_session.values():
        exchanges.sort(key=lambda e: e[0])
    rows: list[SessionRow] = []
    for session_id, exchanges in sorted(by_session.items(), key=lambda item: item[1][-1][0], reverse=True):
        rows.append(
            SessionRow(
                session_id=session_id,
                last_activity=exchanges[-1][1],
                turns=len(exchanges),
                title=split_exchange(exchanges[0][2])[0],
                clients=[],
                imported=True,
            )
        )
    return rows


async def imported_exchanges(browse: BrowseService, caller: Caller, session_id: str) -> list[ImportedExchange]:
    """An imported session's newest exchanges, oldest first (empty when the session has none): one Browse of
    the history collection filtered on the session."""
    reply = await browse.browse(
        caller,
        collections=["history"],
        tag="",
        sort="recency",
        limit=EXCHANGES_SHOWN,
        offset=0,
        archived="active",
        kind="",
        session_id=session_id,
    )
    exchanges = []
    for memory in reply.memories:
        if not _metadata(memory).get("imported_at"):
            continue
        prompt, answer = split_exchange(memory.content)
        exchanges.append(ImportedExchange(memory.id, memory.created_at, prompt, answer))
    return sorted(exchanges, key=lambda e: e.created_at)
