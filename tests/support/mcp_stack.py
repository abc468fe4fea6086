"""A real mnemex stack for MCP clients, all on 127.0.0.1 ephemeral ports.

embedding (the session's real model server), memory (real Chroma) and kg run
in-process on the test loop thread; the gateway app (with MCP mounted at
/mcp) is served by uvicorn on the same loop. MCP clients talk to it over
real HTTP, or spawn ``python -m mnemex.cli mcp`` (what ``mnemex init`` writes
into the clients' configs) pointed at the same services through MNEMEX_*
variables.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.request
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kernel.config import Settings
from kernel.json_values import JSONObject, parse_object
from tests.support.loop_thread import LoopThread

if TYPE_CHECKING:
    import uvicorn
    from mcp import StdioServerParameters

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class McpStack:
    home: Path
    env: dict[str, str]
    settings: Settings
    gateway_url: str

    @property
    def mcp_url(self) -> str:
        return f"{self.gateway_url}/mcp"

    def post(self, path: str, body: Mapping[str, object], timeout: float = 30.0) -> JSONObject:
        request = urllib.request.Request(
            self.gateway_url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return parse_object(reply.read())

    def stdio_params(self, cwd: Path, **extra_env: str) -> StdioServerParameters:
        from mcp import StdioServerParameters

        return StdioServerParameters(
            command=sys.executable, args=["-m", "mnemex.cli", "mcp"], env={**self.env, **extra_env}, cwd=str(cwd)
        )


async def serve_gateway(settings: Settings) -> tuple[uvicorn.Server, asyncio.Task[None], int]:
    import uvicorn

    from gateway.app import create_app
    from gateway.prompt_context import Deadlines

    # The hot path's 1.5 s budget is right for users but not for a CI box running many suites at once;
    # these tests check behaviour, not latency (bench/ does that).
    app = create_app(settings, deadlines=Deadlines.within(15.0))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, task, port


@contextmanager
def running_mcp_stack(embedding_addr: str, loop_thread: LoopThread, home: Path) -> Iterator[McpStack]:
    """memory and kg in ``home``, and the gateway, on ``loop_thread``; stopped on exit."""
    from services.kg.kg_servicer import create_server as create_kg
    from services.kg.settings import KgSettings
    from services.memory.composition import create_server as create_memory
    from services.memory.settings import MemorySettings

    memory_settings = MemorySettings(
        address="127.0.0.1:0", home=home, default_user="tester", embedding_addr=embedding_addr, maintenance_interval_s=0
    )
    memory_server = loop_thread.run(create_memory(memory_settings))
    memory_port = memory_server.port
    kg = loop_thread.run(create_kg(KgSettings(address="127.0.0.1:0", home=home)))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")},
        "MNEMEX_HOME": str(home),
        "MNEMEX_USER": "tester",
        "MNEMEX_EMBEDDING_ADDR": embedding_addr,
        "MNEMEX_MEMORY_ADDR": f"127.0.0.1:{memory_port}",
        "MNEMEX_KG_ADDR": f"127.0.0.1:{kg.port}",
        "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
        "MNEMEX_AUTOSTART": "0",
        "PYTHONPATH": str(ROOT),
    }
    settings = Settings.from_env(env)
    gateway, task, port = loop_thread.run(serve_gateway(settings))
    env["MNEMEX_GATEWAY_ADDR"] = f"127.0.0.1:{port}"
    try:
        yield McpStack(home=home, env=env, settings=Settings.from_env(env), gateway_url=f"http://127.0.0.1:{port}")
    finally:
        gateway.should_exit = True
        loop_thread.run(asyncio.wait_for(task, 10))
        loop_thread.run(memory_server.stop(0))
        loop_thread.run(kg.stop(0))


def run_async(make: Callable[[], Awaitable[T]], timeout: float = 120.0) -> T:
    """Run an MCP client coroutine on a fresh loop in the test's thread."""
    return asyncio.run(asyncio.wait_for(make(), timeout))
