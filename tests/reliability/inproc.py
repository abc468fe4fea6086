"""A real mnemex stack inside the test process, for the non-destructive checks.

memory (real Chroma under ``home``) and kg run as gRPC servers on the test
loop thread, beside the session's real embedding server; one gateway per
user is served by uvicorn over real HTTP on 127.0.0.1. Two gateways with
different MNEMEX_USER over the same backends stand for two users sharing a
memory service. ``stop()`` shuts everything down gracefully so the raw files
under ``home`` can be scanned afterwards.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import httpx
from pydantic import BaseModel

from kernel.config import Settings
from kernel.json_values import JSONObject, parse_object
from tests.support.loop_thread import LoopThread

Reply = TypeVar("Reply", bound=BaseModel)
Stopper = Callable[[], Coroutine[object, None, None]]  # stops one server gracefully


@dataclass
class Gateway:
    url: str
    user: str
    client: httpx.Client

    def post(self, path: str, body: object = None, *, headers: Mapping[str, str] | None = None) -> httpx.Response:
        return self.client.post(path, json=body, headers=headers)

    def get(self, path: str, **params: str | int) -> httpx.Response:
        return self.client.get(path, params=params)

    def ok(self, path: str, body: object = None) -> JSONObject:
        """The reply's JSON object, after checking the status is 200."""
        reply = self.post(path, body)
        assert reply.status_code == 200, f"{path}: {reply.status_code} {reply.text[:500]}"
        return parse_object(reply.content)

    def reply(self, path: str, body: object, shape: type[Reply]) -> Reply:
        """The reply of a 200, read as the route's reply model (a wrong shape fails validation)."""
        return shape.model_validate(self.ok(path, body))

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


@dataclass
class InprocStack:
    home: Path
    embedding_addr: str
    memory_addr: str
    kg_addr: str
    gateways: dict[str, Gateway]
    loop_thread: LoopThread
    _stoppers: list[Stopper] = field(default_factory=list)
    stopped: bool = False

    @property
    def gateway(self) -> Gateway:
        return self.gateways["tester"]

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        for gateway in self.gateways.values():
            gateway.client.close()
        for stop in reversed(self._stoppers):
            try:
                self.loop_thread.run(stop(), timeout=30)
            except Exception as exc:
                print(f"inproc stack: stopping failed: {exc!r}")


def settings_for(home: Path, user: str, embedding: str, memory: str, kg: str, token: str = "") -> Settings:
    env = {
        "MNEMEX_HOME": str(home),
        "MNEMEX_USER": user,
        "MNEMEX_EMBEDDING_ADDR": embedding,
        "MNEMEX_MEMORY_ADDR": memory,
        "MNEMEX_KG_ADDR": kg,
        "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
    }
    if token:
        env["MNEMEX_TOKEN"] = token
    return Settings.from_env(env)


async def serve_gateway(
    settings: Settings, budget_s: float = 10.0, backend_timeout_s: float = 30.0
) -> tuple[Stopper, str]:
    """uvicorn on a pre-bound loopback socket; returns (async stop, base URL).

    Deadlines are generous (``budget_s`` for get-context, ``backend_timeout_s``
    per backend call): CI machines are small and shared, and these tests check
    behaviour, not speed.
    """
    import uvicorn

    from gateway.app import create_app
    from gateway.prompt_context import Deadlines
    from gateway.rpc import Rpc

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    backends = Rpc.connect(settings, timeout=backend_timeout_s)
    app = create_app(settings, backends, deadlines=Deadlines.within(budget_s))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    for _ in range(1000):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    if task.done():
        task.result()
    assert server.started, "gateway did not start"

    async def stop() -> None:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        sock.close()
        await backends.close()

    return stop, f"http://127.0.0.1:{port}"


def start(
    loop_thread: LoopThread, embedding_addr: str, home: Path, users: tuple[str, ...] = ("tester",)
) -> InprocStack:
    from services.kg.kg_servicer import create_server as create_kg
    from services.kg.settings import KgSettings
    from services.memory.composition import create_server as create_memory
    from services.memory.settings import MemorySettings

    home.mkdir(parents=True, exist_ok=True)
    memory_settings = MemorySettings(
        address="127.0.0.1:0", home=home, default_user="tester", embedding_addr=embedding_addr, maintenance_interval_s=0
    )
    memory_server = loop_thread.run(create_memory(memory_settings))
    memory_port = memory_server.port

    async def stop_memory() -> None:
        await memory_server.stop(2)

    kg = loop_thread.run(create_kg(KgSettings(address="127.0.0.1:0", home=home)))

    async def stop_kg() -> None:
        await kg.stop(2)

    stack = InprocStack(
        home,
        embedding_addr,
        f"127.0.0.1:{memory_port}",
        f"127.0.0.1:{kg.port}",
        {},
        loop_thread,
        [stop_memory, stop_kg],
    )
    for user in users:
        settings = settings_for(home, user, embedding_addr, stack.memory_addr, stack.kg_addr)
        stop_gateway, url = loop_thread.run(serve_gateway(settings))
        stack._stoppers.append(stop_gateway)
        stack.gateways[user] = Gateway(url, user, httpx.Client(base_url=url, timeout=60))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if stack.gateway.get("/api/health").status_code == 200:
            break
        time.sleep(0.05)
    return stack
