"""The sessions pages' reads: a project's latest sessions, and one session's turns with each injected
memory's rank, what it is now, the outcome it got and why it was chosen."""

from __future__ import annotations

from gateway import input_validation
from gateway.capabilities.browse_service import BrowseService
from gateway.gateway_errors import NotFound
from gateway.ui.page_shapes import InjectedLine, SessionRow, SessionView
from gateway.ui.project_scope import PageCallers
from gateway.ui.turn_rows import answer_of, injected_tokens, turn_row
from gateway.ui.viewer_memories import ViewerMemories
from kernel.json_values import str_at

TURNS_SHOWN = 100


class ViewerSessions:
    """The sessions pages' data, read through ``BrowseService``; memories looked up through ``ViewerMemories``."""

    def __init__(self, pages: PageCallers, browse: BrowseService, memories: ViewerMemories) -> None:
        self.pages = pages
        self.browser = browse
        self.memories = memories

    async def latest(self, project: str) -> list[SessionRow]:
        reply = await self.browser.sessions(self.pages.caller(project), limit=100)
        return [
            SessionRow(
                session_id=s.session_id,
                last_activity=s.last_activity,
                turns=s.turns,
                title=s.first_prompt,
                clients=list(s.clients),
            )
            for s in reply.sessions
        ]

    async def session(self, project: str, session_id: str) -> SessionView:
        """The session's turns; each injected memory with its rank, what it is now and the outcome it got."""
        caller = self.pages.caller(project)
        session_id = input_validation.text(session_id, "session", input_validation.MAX_ID_CHARS, required=True)
        reply = await self.browser.turns(caller, session_id=session_id, limit=TURNS_SHOWN)
        if not reply.turns:
            raise NotFound(f"no turns recorded for session {session_id!r} in this project")
        turns = [turn_row(t) for t in reply.turns]
        exchanges = [t["exchange_id"] for t in turns if t["exchange_id"]]
        known = await self.memories.lookup(caller, [*(i for t in turns for i in t["injected"]), *exchanges])
        for turn in turns:
            exchange = known.get(turn["exchange_id"]) if turn["exchange_id"] else None
            turn["answer"] = answer_of(str_at(exchange, "content"), turn["prompt"]) if exchange else None
            outcomes = {o.memory_id: o for o in turn["outcomes"]}
            chosen = {str(c.get("id")): c for c in turn["choices"]}
            lines = [
                InjectedLine(rank=rank, id=i, memory=known.get(i), outcome=outcomes.get(i), choice=chosen.get(i))
                for rank, i in enumerate(turn["injected"], start=1)
            ]
            turn["memories"] = lines
            turn["left_out"] = [c for c in turn["choices"] if not c.get("kept")]
            turn["tokens"] = injected_tokens([line["memory"] for line in lines if line["memory"]])
        return SessionView(session_id=session_id, turns=turns)
