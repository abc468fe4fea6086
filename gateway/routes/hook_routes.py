"""Endpoints the client hooks call. They fail soft: get-context never errors for a backend."""

from __future__ import annotations

import functools

from fastapi import APIRouter, BackgroundTasks, Depends, HTTPException, Request
from fastapi.responses import JSONResponse

from gateway.caller import CallerResolver
from gateway.capabilities.hook_service import HookService
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import (
    ContextOut,
    PostToolUseOut,
    PreCompactOut,
    SessionStartOut,
    StopOut,
    TurnStartOut,
)
from gateway.routes.json_route import HookJSONRoute
from gateway.schemas import (
    GetContextBody,
    PostToolUseBody,
    PreCompactBody,
    SessionStartBody,
    StopBody,
    TurnStartBody,
)
from gateway.service_deps import caller_resolver, get_settings, hook_service
from kernel import optout
from kernel.config import Settings

_optouts = optout.OptOutReader()  # a stat per request instead of reading and parsing the file


async def refuse_opted_out(request: Request, settings: Settings = Depends(get_settings)) -> None:
    """Defence in depth behind the hooks' own check: nothing is stored or injected for an excluded
    project or a paused session (``kernel.optout``), whatever client sent the request."""
    try:
        body = await request.json()
    except ValueError:
        return  # the route's own validation answers a malformed body
    if not isinstance(body, dict):
        return
    cwd, session_id = body.get("cwd"), body.get("session_id")
    record = _optouts.load(settings.home)
    reason = optout.exclusion_reason(cwd if isinstance(cwd, str) else None, record)
    if reason is None and optout.is_paused(session_id if isinstance(session_id, str) else None, record):
        reason = "the session is paused (mnemex resume)"
    if reason is not None:
        raise HTTPException(status_code=403, detail=f"mnemex stores nothing here: {reason}")


router = APIRouter(
    prefix="/api/hooks", tags=["hooks"], route_class=HookJSONRoute, dependencies=[Depends(refuse_opted_out)]
)


@router.post("/get-context", response_class=JSONResponse, response_model=ContextOut)
async def get_context(
    body: GetContextBody,
    hooks: HookService = Depends(hook_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JSONResponse:
    """KNOWN CONTEXT for a prompt, plus the lean scoring prompt after a completed, unscored turn."""
    reply = await hooks.get_context(
        callers.resolve(body.cwd),
        session_id=body.session_id,
        prompt=body.prompt,
        limit=body.limit,
        client=body.client,
    )
    # Its JSON is plain data: rendering it directly skips FastAPI's generic encoder (and the
    # response model's validation), which cost about half a millisecond of every prompt.
    return JSONResponse(reply.to_json())


@router.post("/turn-start", response_model=TurnStartOut)
async def turn_start(
    body: TurnStartBody,
    hooks: HookService = Depends(hook_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """A prompt that gets no context (Cursor's beforeSubmitPrompt): open the turn with it."""
    started = await hooks.begin_turn(
        callers.resolve(body.cwd), session_id=body.session_id, prompt=body.prompt, client=body.client
    )
    return started.to_json()


@router.post("/stop", response_model=StopOut)
async def stop(
    body: StopBody,
    hooks: HookService = Depends(hook_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """The assistant finished: store the exchange (once per ``turn_key``) and mark the turn completed."""
    stored = await hooks.stop(
        callers.resolve(body.cwd),
        session_id=body.session_id,
        assistant_text=body.assistant_text,
        user_text=body.user_text,
        turn_key=body.turn_key,
        client=body.client,
    )
    return stored.to_json()


@router.post("/session-start", response_model=SessionStartOut, response_model_exclude_unset=True)
async def session_start(
    body: SessionStartBody,
    hooks: HookService = Depends(hook_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """A bounded startup seed: top user facts, recent and proven project memories."""
    seed = await hooks.session_start(callers.resolve(body.cwd), session_id=body.session_id, source=body.source)
    return seed.to_json()


@router.post("/pre-compact", response_model=PreCompactOut)
async def pre_compact(
    body: PreCompactBody,
    hooks: HookService = Depends(hook_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """A short reminder to record key takeaways before the context is compacted."""
    reminder = await hooks.pre_compact(callers.resolve(body.cwd), session_id=body.session_id, trigger=body.trigger)
    return reminder.to_json()


@router.post("/post-tool-use", response_model=PostToolUseOut)
async def post_tool_use(
    body: PostToolUseBody,
    background: BackgroundTasks,
    hooks: HookService = Depends(hook_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """Answers at once; the deterministic observation is stored after the response is sent."""
    caller = callers.resolve(body.cwd)
    observation = hooks.observation(
        cwd=body.cwd, tool_name=body.tool_name, tool_input=body.tool_input, tool_response=body.tool_response
    )
    background.add_task(
        functools.partial(
            hooks.learn_tool_use,
            caller,
            session_id=body.session_id,
            tool_name=body.tool_name,
            tool_input=body.tool_input,
            tool_response=body.tool_response,
        )
    )
    if observation is None:
        return {"observation": None, "queued": False}
    background.add_task(
        functools.partial(hooks.record_observation, caller, session_id=body.session_id, observation=observation)
    )
    return {"observation": observation.text, "queued": True}
