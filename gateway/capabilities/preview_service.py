"""What the next prompt in a project would get, without recording anything: the viewer's preview.

The same pipeline as get-context (``prompt_context.build``: embedding, kg recall, the memory
service's PrepareContext, the same formatting and budget), with ``preview`` set so the memory
service records no turn and no injection, and nothing is scored. It asks as a new session of
the project would (``PREVIEW_SESSION``, a session id no client sends): no scoring prompt is
owed and no turn of a session is left out, so its KNOWN CONTEXT block is the one a new
session's next prompt gets.
"""

from __future__ import annotations

from gateway import input_validation, prompt_context, rpc_backends
from gateway.caller import Caller
from gateway.context_reply import ContextReply
from gateway.rpc import Rpc
from kernel.config import Settings

PREVIEW_SESSION = "mnemex-viewer-preview"


class PreviewService:
    def __init__(self, rpc: Rpc, settings: Settings, deadlines: prompt_context.Deadlines) -> None:
        self.rpc = rpc
        self.backends = rpc_backends.over(rpc)  # the backends get-context calls (gateway/backends.py)
        self.settings = settings
        self.deadlines = deadlines

    async def preview(self, caller: Caller, *, prompt: str, limit: int = 5) -> ContextReply:
        """get-context's reply for ``prompt`` in ``caller``'s project (a new session), with nothing recorded."""
        input_validation.in_range(limit, "limit", input_validation.LIMIT_RANGE)
        prompt = input_validation.text(prompt, "prompt", input_validation.MAX_PROMPT_CHARS)
        pipeline = prompt_context.build(
            self.backends,
            caller.scope,
            session_id=PREVIEW_SESSION,
            prompt=prompt,
            limit=limit,
            deadlines=self.deadlines,
            use_kg=self.settings.kg_context,
            client="",
            preview=True,
        )
        return await prompt_context.within_deadline(pipeline, self.deadlines.total)
