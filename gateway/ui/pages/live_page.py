"""Live activity: a server-sent events stream of each prompt (what was injected), stored answer and score.

``GET /ui/live/events?project=P`` (``&session=S`` for one session, ``&all=1`` for
every project of the user) streams ``gateway.activity_feed`` events as
``event: activity`` with the event's JSON as data. The viewer's sign-in
applies, and a stream carries only its own user's events. A comment every
``HEARTBEAT_S`` keeps proxies and the browser from timing it out; a stream ends
after ``STREAM_S`` (the browser's ``EventSource`` reconnects by itself, after
``retry``), so no connection is held for ever, and every stream ends at once
when the gateway stops (``ActivityFeed.close``). Past ``ActivityFeed.max_subscribers``
streams a new one is refused with 503.

The reply starts at once, so the stream holds none of ``gateway.work_slots``'s
slots (they are given back when a reply starts).
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse, Response, StreamingResponse

from gateway import input_validation
from gateway.activity_feed import ActivityFeed, FeedFull, Subscription
from gateway.ui.data import ViewerData
from gateway.ui.page_render import UiRoute
from gateway.ui.viewer_deps import gateway_of, viewer

router = APIRouter(route_class=UiRoute)

HEARTBEAT_S = 15.0
STREAM_S = 300.0
RETRY_MS = 2_000


@router.get("/ui/live/events", include_in_schema=False)
async def events(
    request: Request,
    project: str = Query("", max_length=64),
    session: str = Query("", max_length=input_validation.MAX_ID_CHARS),
    all_projects: bool = Query(False, alias="all"),
    data: ViewerData = Depends(viewer),
) -> Response:
    caller = data.caller(project)
    feed = gateway_of(request).activity
    try:
        subscription = feed.subscribe(caller.user, "" if all_projects else caller.project, session.strip())
    except FeedFull as exc:
        return PlainTextResponse(str(exc), status_code=503, headers={"retry-after": "30"})
    return StreamingResponse(
        stream(feed, subscription),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


async def stream(
    feed: ActivityFeed, subscription: Subscription, heartbeat_s: float = HEARTBEAT_S, lasts_s: float = STREAM_S
) -> AsyncGenerator[bytes]:
    """The stream's bytes: ``retry``, then each event, a heartbeat comment when idle; unsubscribes when done."""
    ends = time.monotonic() + lasts_s
    try:
        yield f"retry: {RETRY_MS}\n: live activity\n\n".encode()
        while (left := ends - time.monotonic()) > 0:
            event = await subscription.next(min(heartbeat_s, left))
            if subscription.closed:
                return
            if event is None:
                yield b": heartbeat\n\n"
                continue
            yield f"id: {event.seq}\nevent: activity\ndata: {event.to_json()}\n\n".encode()
    finally:
        feed.unsubscribe(subscription)
