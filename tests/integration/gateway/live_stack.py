"""The real stack in-process: embedding, memory and kg gRPC servers plus the
gateway served by uvicorn over real HTTP, all on 127.0.0.1 ephemeral ports.

Shared by the gateway and hook integration tests (and the benchmarks):
``start_live_stack(loop_thread, embedding_addr, home)`` returns a
``LiveStack`` whose ``close()`` stops everything it started.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
from pydantic import BaseModel

from kernel.config import Settings
from kernel.json_values import JSONObject, parse_object
from tests.support.loop_thread import LoopThread

Stop = Callable[[], Coroutine[object, None, None]]
Reply = TypeVar("Reply", bound=BaseModel)


@dataclass
class LiveStack:
    settings: Settings
    url: str
    home: Path
    memory_addr: str
    kg_addr: str
    embedding_addr: str
    client: httpx.Client
    _stoppers: list[Stop]
    _loop_thread: LoopThread

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def post(self, path: str, body: Mapping[str, object], expect: int = 200) -> JSONObject:
        """The reply's JSON object; fails the test on another status or a reply that is not an object."""
        return _object_of(self.client.post(path, json=body), path, expect)

    def post_as(self, path: str, body: Mapping[str, object], model: type[Reply], expect: int = 200) -> Reply:
        """The reply validated into the route's reply model: a reply of another shape fails the test."""
        return model.model_validate(self.post(path, body, expect))

    def get(self, path: str, expect: int = 200, **params: str | int) -> JSONObject:
        return _object_of(self.client.get(path, params=params), path, expect)

    def get_as(self, path: str, model: type[Reply], expect: int = 200, **params: str | int) -> Reply:
        return model.model_validate(self.get(path, expect, **params))

    def hook_env(self) -> dict[str, str]:
        return {"MNEMEX_GATEWAY_URL": self.url, "MNEMEX_HOOK_AUTOSTART": "0"}

    def close(self) -> None:
        self.client.close()
        for stop in reversed(self._stoppers):
            try:
                self._loop_thread.run(stop(), timeout=30)
            except Exception:
                pass


def _object_of(reply: httpx.Response, path: str, expect: int) -> JSONObject:
    assert reply.status_code == expect, f"{path}: {reply.status_code} {reply.text}"
    try:
        return parse_object(reply.content)
    except ValueError as error:
        raise AssertionError(f"{path}: the reply is not a JSON object: {reply.text[:200]}") from error


def gateway_settings(home: Path, embedding_addr: str, memory_addr: str, kg_addr: str, user: str = "tester") -> Settings:
    return Settings.from_env(
        {
            "MNEMEX_HOME": str(home),
            "MNEMEX_USER": user,
            "MNEMEX_EMBEDDING_ADDR": embedding_addr,
            "MNEMEX_MEMORY_ADDR": memory_addr,
            "MNEMEX_KG_ADDR": kg_addr,
            "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
        }
    )


async def _serve_gateway(settings: Settings) -> tuple[Stop, str]:
    import uvicorn

    from gateway.app import create_app
    from gateway.prompt_context import Deadlines
    from gateway.serving import server_config

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # The gateway's own server configuration; a generous get-context budget: CI machines are small and shared.
    config = server_config(create_app(settings, deadlines=Deadlines.within(10.0)), "127.0.0.1", port, lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.01)
    assert server.started, "gateway did not start"

    async def stop() -> None:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        sock.close()

    return stop, f"http://127.0.0.1:{port}"


def start_live_stack(loop_thread: LoopThread, embedding_addr: str, home: Path) -> LiveStack:
    from services.kg.kg_servicer import create_server as create_kg
    from services.kg.settings import KgSettings
    from services.memory.composition import create_server as create_memory
    from services.memory.settings import MemorySettings

    home.mkdir(parents=True, exist_ok=True)
    stoppers: list[Stop] = []
    memory_settings = MemorySettings(
        address="127.0.0.1:0",
        home=home,
        default_user="tester",
        embedding_addr=embedding_addr,
        maintenance_interval_s=0,
    )
    memory_server = loop_thread.run(create_memory(memory_settings))
    memory_port = memory_server.port

    async def stop_memory() -> None:
        await memory_server.stop(0)

    stoppers.append(stop_memory)
    kg = loop_thread.run(create_kg(KgSettings(address="127.0.0.1:0", home=home)))

    async def stop_kg() -> None:
        await kg.stop(0)

    stoppers.append(stop_kg)
    memory_addr, kg_addr = f"127.0.0.1:{memory_port}", f"127.0.0.1:{kg.port}"
    settings = gateway_settings(home, embedding_addr, memory_addr, kg_addr)
    stop_gateway, url = loop_thread.run(_serve_gateway(settings))
    stoppers.append(stop_gateway)
    client = httpx.Client(base_url=url, timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if client.get("/api/health").status_code == 200:
            break
        time.sleep(0.05)
    return LiveStack(settings, url, home, memory_addr, kg_addr, embedding_addr, client, stoppers, loop_thread)
