"""Live activity: what each prompt got, what was stored and how it was scored, pushed to the viewer as it happens.

The hook service publishes an ``Activity`` after get-context, stop and scoring;
the viewer's feed stream (``gateway.ui.pages.live_page``) subscribes. Publishing
never waits and never fails the hook: it appends to each matching subscriber's
bounded queue (a slow subscriber loses its oldest events, never memory) and
wakes it. At most ``MAX_SUBSCRIBERS`` streams at once, so a publish is O(1).
A subscriber sees only its own user's events (a per-user token never sees
another user's prompts), of one project, or of all the user's projects.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from gateway.replies.score_replies import ScoredMemory
from kernel.json_values import bool_at, float_at, int_at, object_at, objects_at, str_at, strs_at

log = logging.getLogger("mnemex.gateway.activity")

MAX_SUBSCRIBERS = 16
QUEUE_SIZE = 64
TEXT_CHARS = 300  # what a feed line shows of a prompt, an answer or a memory


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    text = " ".join(text[: limit * 4].split())  # only the start is shown: a long text costs no more
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class ActivityItem:
    """One memory an event is about: injected (with its relevance), stored, or scored (with its transition)."""

    id: str
    text: str = ""
    collection: str = ""
    relevance: float | None = None
    outcome: str = ""
    transition: str = ""
    score_before: float | None = None
    score_after: float | None = None


@dataclass(frozen=True)
class Activity:
    """``kind``: ``prompt`` (get-context: what was injected), ``stored`` (stop: the exchange kept) or
    ``scored`` (an outcome and what it did to each memory)."""

    kind: str
    user: str
    project: str
    session_id: str
    text: str = ""
    items: tuple[ActivityItem, ...] = ()
    outcome: str = ""
    tokens: int = 0
    duration_ms: float = 0.0
    degraded: tuple[str, ...] = ()
    at: float = field(default_factory=time.time)
    seq: int = 0

    def to_json(self) -> str:
        """The event as the browser gets it (no user: the stream is already that user's)."""
        body = asdict(self)
        del body["user"]
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


class Subscription:
    """One stream's queue: the newest ``QUEUE_SIZE`` events; ``dropped`` counts the ones it lost."""

    def __init__(self, user: str, project: str, session_id: str) -> None:
        self.user = user
        self.project = project
        self.session_id = session_id
        self.dropped = 0
        self.closed = False  # the gateway is stopping: the stream ends at once
        self._queue: deque[Activity] = deque(maxlen=QUEUE_SIZE)
        self._ready = asyncio.Event()
        self._loop = asyncio.get_running_loop()

    def wants(self, event: Activity) -> bool:
        return (
            event.user == self.user
            and (not self.project or event.project == self.project)
            and (not self.session_id or event.session_id == self.session_id)
        )

    def offer(self, event: Activity) -> None:
        """Called by ``ActivityFeed.publish`` in any thread; never blocks."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._put(event)
        else:
            self._loop.call_soon_threadsafe(self._put, event)

    def close(self) -> None:
        """Called by ``ActivityFeed.close`` in any thread: ``next`` returns None from now on."""
        self._loop.call_soon_threadsafe(self._close)

    def _close(self) -> None:
        self.closed = True
        self._ready.set()

    def _put(self, event: Activity) -> None:
        if len(self._queue) == self._queue.maxlen:
            self.dropped += 1  # the deque drops the oldest
        self._queue.append(event)
        self._ready.set()

    async def next(self, timeout: float) -> Activity | None:
        """The oldest waiting event, or None after ``timeout`` seconds without one (time for a heartbeat)."""
        if not self._queue and not self.closed:
            self._ready.clear()
            try:
                await asyncio.wait_for(self._ready.wait(), timeout)
            except TimeoutError:
                return None
        return self._queue.popleft() if self._queue and not self.closed else None


class FeedFull(Exception):
    """Every feed stream is taken."""


class ActivityFeed:
    def __init__(self, max_subscribers: int = MAX_SUBSCRIBERS) -> None:
        self.max_subscribers = max_subscribers
        self._subscribers: tuple[Subscription, ...] = ()
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._closed = False

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def subscribe(self, user: str, project: str = "", session_id: str = "") -> Subscription:
        """A new stream's queue, or ``FeedFull`` past ``max_subscribers``. Call ``unsubscribe`` when it ends."""
        subscription = Subscription(user, project, session_id)
        with self._lock:
            if self._closed:
                raise FeedFull("the gateway is stopping")
            if len(self._subscribers) >= self.max_subscribers:
                raise FeedFull(f"{self.max_subscribers} live feeds are open already; close one and reload")
            self._subscribers = (*self._subscribers, subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscribers = tuple(s for s in self._subscribers if s is not subscription)

    def close(self) -> None:
        """End every stream now (the gateway is stopping: its streams would hold the shutdown back)."""
        with self._lock:
            self._closed = True
            subscribers, self._subscribers = self._subscribers, ()
        for subscription in subscribers:
            try:
                subscription.close()
            except RuntimeError:  # its loop is closed already
                pass

    def publish(self, event: Activity | Callable[[], Activity]) -> None:
        """Hand ``event`` (or what ``event()`` builds, only when someone watches) to every subscriber that
        wants it; never raises, never waits."""
        subscribers = self._subscribers  # a tuple replaced whole: no lock on the hot path
        if not subscribers:
            return
        try:
            built = event if isinstance(event, Activity) else event()
            numbered = _with_seq(built, next(self._seq))
            for subscription in subscribers:
                if subscription.wants(numbered):
                    subscription.offer(numbered)
        except Exception:  # a closed loop, say: the feed is never worth a failed hook
            log.debug("activity not published", exc_info=True)


def _with_seq(event: Activity, seq: int) -> Activity:
    return replace(event, seq=seq)


def items_of(
    memories: Sequence[Mapping[str, object]], relevance: Mapping[str, float] | None = None
) -> tuple[ActivityItem, ...]:
    """Feed items from memories' JSON (``memory_replies.Memory.to_json``): id, clipped text, collection, and
    the relevance its context choice gave it (``relevance``, by id), else its rank score."""
    found = []
    for memory in memories:
        memory_id = str(memory.get("id", ""))
        score = (relevance or {}).get(memory_id, memory.get("final_rank_score"))
        found.append(
            ActivityItem(
                id=memory_id,
                text=clip(str(memory.get("content", "")), 160),
                collection=str(memory.get("collection", "")),
                relevance=round(float(score), 3) if isinstance(score, int | float) else None,
            )
        )
    return tuple(found)


def prompt_event(user: str, project: str, session_id: str, prompt: str, reply: Mapping[str, object]) -> Activity:
    """get-context's reply (``prompt_context.build``) as an event: the prompt, what was injected, at what cost."""
    relevance = {str_at(c, "id"): float_at(c, "relevance") for c in objects_at(reply, "choices") if bool_at(c, "kept")}
    return Activity(
        kind="prompt",
        user=user,
        project=project,
        session_id=session_id,
        text=clip(prompt),
        items=items_of(list(objects_at(reply, "memories")), relevance),
        tokens=int_at(object_at(reply, "tokens"), "context"),
        duration_ms=float_at(object_at(reply, "timings_ms"), "total"),
        degraded=tuple(strs_at(reply, "degraded")),
    )


def stored_event(user: str, project: str, session_id: str, answer: str, exchange_id: str) -> Activity:
    """stop: the exchange kept in working memory."""
    items = (ActivityItem(id=exchange_id, collection="working"),) if exchange_id else ()
    return Activity(kind="stored", user=user, project=project, session_id=session_id, text=clip(answer), items=items)


def scored_event(user: str, project: str, session_id: str, outcome: str, scored: Sequence[ScoredMemory]) -> Activity:
    """An outcome: the turn's, and what it did to each memory (score and collection before and after)."""
    items = tuple(
        ActivityItem(
            id=s.id,
            collection=s.collection_after,
            outcome=s.outcome,
            transition=s.transition,
            score_before=s.score_before,
            score_after=s.score_after,
        )
        for s in scored
    )
    return Activity(kind="scored", user=user, project=project, session_id=session_id, outcome=outcome, items=items)
