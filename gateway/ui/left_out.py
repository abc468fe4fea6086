"""The text of the search results a session's turns left out, so the session page can show them."""

from __future__ import annotations

from gateway.ui.data import ViewerData
from gateway.ui.page_shapes import MemoryJson, TurnRow

MAX_LOOKUPS = 80  # a session page looks up at most this many left-out lines (the rest show their reason only)


async def left_out_memories(data: ViewerData, project: str, turns: list[TurnRow]) -> dict[str, MemoryJson]:
    """``{id: memory}`` for the lines left out of ``turns`` that are still stored."""
    ids = list(dict.fromkeys(str(c.get("id")) for t in turns for c in t.get("left_out", [])))[:MAX_LOOKUPS]
    return await data.memories.lookup(data.caller(project), ids)
