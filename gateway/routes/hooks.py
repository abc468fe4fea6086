"""Endpoints the client hooks call. They fail soft: get-context never errors for a backend."""

from __future__ import annotations

import functools
from typing import Any

from fastapi import APIRouter, BackgroundTasks, Depends
from fastapi.responses import JSONResponse

from gateway.deps import get_operations
from gateway.operations import Operations
from gateway.routes.json_route import HookJSONRoute
from gateway.schemas import (
    GetContextBody,
    PostToolUseBody,
    PreCompactBody,
    SessionStartBody,
    StopBody,
    TurnStartBody,
)

router = APIRouter(prefix="/api/hooks", tags=["hooks"], route_class=HookJSONRoute)


@router.post("/get-context", response_class=JSONResponse)
async def get_context(body: GetContextBody, ops: Operations = Depends(get_operations)) -> JSONResponse:
    """KNOWN CONTEXT for a prompt, plus the lean scoring prompt after a completed, unscored turn."""
    # The reply is plain JSON data already: rendering it directly skips FastAPI's generic
    # encoder, which cost about half a millisecond of every prompt.
    return JSONResponse(
        await ops.get_context(session_id=body.session_id, prompt=body.prompt, cwd=body.cwd, limit=body.limit)
    )


@router.post("/turn-start")
async def turn_start(body: TurnStartBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """A prompt that gets no context (Cursor's beforeSubmitPrompt): open the turn with it."""
    return await ops.begin_turn(cwd=body.cwd, session_id=body.session_id, prompt=body.prompt)


@router.post("/stop")
async def stop(body: StopBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """The assistant finished: store the exchange (once per ``turn_key``) and mark the turn completed."""
    return await ops.stop(
        cwd=body.cwd,
        session_id=body.session_id,
        assistant_text=body.assistant_text,
        user_text=body.user_text,
        turn_key=body.turn_key,
    )


@router.post("/session-start")
async def session_start(body: SessionStartBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """A bounded startup seed: top user facts, recent and proven project memories."""
    return await ops.session_start(cwd=body.cwd, session_id=body.session_id, source=body.source)


@router.post("/pre-compact")
async def pre_compact(body: PreCompactBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """A short reminder to record key takeaways before the context is compacted."""
    return await ops.pre_compact(cwd=body.cwd, session_id=body.session_id, trigger=body.trigger)


@router.post("/post-tool-use")
async def post_tool_use(
    body: PostToolUseBody, background: BackgroundTasks, ops: Operations = Depends(get_operations)
) -> dict[str, Any]:
    """Answers at once; the deterministic observation is stored after the response is sent."""
    observation = ops.observation(
        cwd=body.cwd, tool_name=body.tool_name, tool_input=body.tool_input, tool_response=body.tool_response
    )
    background.add_task(
        functools.partial(
            ops.learn_tool_use,
            cwd=body.cwd,
            tool_name=body.tool_name,
            tool_input=body.tool_input,
            tool_response=body.tool_response,
        )
    )
    if observation is None:
        return {"observation": None, "queued": False}
    background.add_task(
        functools.partial(ops.record_observation, cwd=body.cwd, session_id=body.session_id, observation=observation)
    )
    return {"observation": observation.text, "queued": True}
