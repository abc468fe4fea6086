"""``ActivityFeed``: user- and project-scoped, bounded, and never a cost or a failure for the hook that publishes."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from gateway.activity_feed import QUEUE_SIZE, Activity, ActivityFeed, FeedFull, prompt_event, scored_event
from gateway.replies.score_replies import ScoredMemory
from gateway.ui.pages.live_page import stream


def _event(user: str = "alice", project: str = "p", session_id: str = "s", text: str = "hi") -> Activity:
    return Activity(kind="prompt", user=user, project=project, session_id=session_id, text=text)


def test_a_subscriber_sees_only_its_users_events_of_its_project_and_session() -> None:
    async def scenario() -> list[str]:
        feed = ActivityFeed()
        mine = feed.subscribe("alice", "p", "")
        for event in (
            _event(text="1"),
            _event(user="bob", text="other user"),
            _event(project="q", text="other project"),
            _event(session_id="t", text="2"),
        ):
            feed.publish(event)
        seen = []
        while (got := await mine.next(0.01)) is not None:
            seen.append(got.text)
        one = feed.subscribe("alice", "p", "t")
        feed.publish(_event(text="3"))
        feed.publish(_event(session_id="t", text="4"))
        seen.append("|")
        while (got := await one.next(0.01)) is not None:
            seen.append(got.text)
        return seen

    assert asyncio.run(scenario()) == ["1", "2", "|", "4"]


def test_a_slow_subscriber_keeps_the_newest_events_and_the_feed_caps_streams() -> None:
    async def scenario() -> tuple[list[str], int, int]:
        feed = ActivityFeed(max_subscribers=2)
        slow = feed.subscribe("alice")
        feed.subscribe("alice")
        with pytest.raises(FeedFull):
            feed.subscribe("alice")
        for n in range(QUEUE_SIZE + 10):
            feed.publish(_event(text=str(n)))
        texts = []
        while (event := await slow.next(0.01)) is not None:
            texts.append(event.text)
        feed.unsubscribe(slow)
        feed.subscribe("alice")  # room again
        return texts, slow.dropped, feed.subscribers

    texts, dropped, subscribers = asyncio.run(scenario())
    assert texts == [str(n) for n in range(10, QUEUE_SIZE + 10)]
    assert dropped == 10
    assert subscribers == 2


def test_publishing_builds_nothing_without_subscribers_and_never_raises() -> None:
    built: list[int] = []

    def build() -> Activity:
        built.append(1)
        raise RuntimeError("a broken event")

    async def scenario() -> None:
        feed = ActivityFeed()
        feed.publish(build)
        assert built == []
        feed.subscribe("alice")
        feed.publish(build)  # logged, not raised
        assert built == [1]

    asyncio.run(scenario())


def test_events_from_hook_replies_and_the_stream_bytes() -> None:
    reply = {
        "memories": [{"id": "m1", "content": "x" * 500, "collection": "patterns", "final_rank_score": 0.8}],
        "choices": [{"id": "m1", "kept": True, "relevance": 0.61234}],
        "tokens": {"context": 120},
        "timings_ms": {"total": 42.5},
        "degraded": [],
    }
    event = prompt_event("alice", "p", "s", "<script>x</script>", reply)
    assert event.items[0].relevance == 0.612 and len(event.items[0].text) == 160 and event.tokens == 120
    moved = ScoredMemory("m1", "working", "history", 0.5, 0.7, "worked", "promoted", "")
    scored = scored_event("alice", "p", "s", "worked", [moved])
    assert scored.items[0].score_before == 0.5

    async def scenario() -> list[bytes]:
        feed = ActivityFeed()
        subscription = feed.subscribe("alice")
        chunks = stream(feed, subscription, heartbeat_s=0.01, lasts_s=0.2)
        out = [await anext(chunks), await anext(chunks)]
        feed.publish(event)
        out.append(await anext(chunks))
        await chunks.aclose()
        assert feed.subscribers == 0
        return out

    start, heartbeat, data = asyncio.run(scenario())
    assert start.startswith(b"retry: ") and heartbeat == b": heartbeat\n\n"
    lines = data.decode().splitlines()
    assert lines[0] == "id: 1" and lines[1] == "event: activity"
    body = json.loads(lines[2].removeprefix("data: "))
    assert body["kind"] == "prompt" and "user" not in body and body["text"] == "<script>x</script>"


def test_closing_the_feed_ends_every_stream_at_once() -> None:
    async def scenario() -> tuple[list[bytes], float]:
        feed = ActivityFeed()
        subscription = feed.subscribe("alice")
        chunks = stream(feed, subscription, heartbeat_s=30, lasts_s=300)
        first = await anext(chunks)
        started = time.perf_counter()
        asyncio.get_running_loop().call_later(0.05, feed.close)
        rest = [chunk async for chunk in chunks]
        with pytest.raises(FeedFull):
            feed.subscribe("alice")
        return [first, *rest], time.perf_counter() - started

    chunks, took = asyncio.run(scenario())
    assert len(chunks) == 1 and took < 1.0
