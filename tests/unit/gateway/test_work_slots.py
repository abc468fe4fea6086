"""``WorkSlots``: requests other than the hooks share a few work slots; hooks never wait for one."""

from __future__ import annotations

import asyncio

import httpx
from starlette.types import Message, Receive, Scope, Send

from gateway.work_slots import WorkSlots


class Busy:
    """An inner app whose non-hook requests work until released, counting how many work at once."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.working = 0
        self.most = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        if not scope["path"].startswith("/api/hooks/"):
            self.working += 1
            self.most = max(self.most, self.working)
            await self.release.wait()
            self.working -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def test_other_requests_wait_for_a_slot_and_hooks_do_not() -> None:
    async def scenario() -> tuple[int, int, list[int]]:
        inner = Busy()
        transport = httpx.ASGITransport(app=WorkSlots(inner, slots=2))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            others = [asyncio.ensure_future(client.post("/mcp", json={"n": n})) for n in range(6)]
            await asyncio.sleep(0.2)
            working_while_full = inner.working
            hook = await asyncio.wait_for(client.post("/api/hooks/get-context", json={}), 2.0)
            inner.release.set()
            statuses = [reply.status_code for reply in await asyncio.gather(*others)]
        return working_while_full, hook.status_code, [inner.most, *statuses]

    working, hook_status, (most, *statuses) = asyncio.run(scenario())
    assert working == 2  # six sent, two at work, four waiting for a slot
    assert most == 2
    assert hook_status == 200  # answered while every slot was taken
    assert statuses == [200] * 6  # the waiting ones were served, none refused


def test_a_request_whose_body_never_ends_holds_no_slot() -> None:
    async def scenario() -> int:
        inner = Busy()
        inner.release.set()
        slots = WorkSlots(inner, slots=1)
        never = asyncio.Event()

        async def endless_body() -> Message:
            await never.wait()
            return {"type": "http.disconnect"}

        async def ignore(message: Message) -> None:
            return None

        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"content-length", b"10")]}
        stuck = asyncio.ensure_future(slots(scope, endless_body, ignore))
        await asyncio.sleep(0.1)
        transport = httpx.ASGITransport(app=slots)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            reply = await asyncio.wait_for(client.post("/mcp", json={}), 2.0)
        stuck.cancel()
        return reply.status_code

    assert asyncio.run(scenario()) == 200


def test_a_stream_that_reads_after_its_reply_started_holds_no_slot() -> None:
    """The viewer's live feed: its reply starts at once, then it reads on (for the disconnect) for minutes."""

    async def scenario() -> int:
        busy = Busy()
        busy.release.set()
        closed = asyncio.Event()
        messages: list[Message] = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> Message:
            if messages:
                return messages.pop()
            await closed.wait()
            return {"type": "http.disconnect"}

        async def app(scope: Scope, receive_: Receive, send: Send) -> None:
            if scope["path"] != "/ui/live/events":
                await busy(scope, receive_, send)
                return
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await receive_()  # the request message read only now: it must not take a slot back
            await receive_()

        async def ignore(message: Message) -> None:
            return None

        slots = WorkSlots(app, slots=1)
        scope = {"type": "http", "method": "GET", "path": "/ui/live/events", "headers": []}
        streaming = asyncio.ensure_future(slots(scope, receive, ignore))
        await asyncio.sleep(0.1)
        transport = httpx.ASGITransport(app=slots)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            reply = await asyncio.wait_for(client.get("/ui/memories"), 2.0)
        closed.set()
        await streaming
        return reply.status_code

    assert asyncio.run(scenario()) == 200
