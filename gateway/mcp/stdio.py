"""``mnemex mcp``: the mnemex tools over stdio, for Claude Code, Cursor and OpenCode.

    mnemex mcp                   (what client configs run: ``run(start_stack=...)``)
    python -m gateway.mcp.stdio  (the same server, without the power to start the stack)

- stdout carries nothing but the MCP protocol: logging goes to stderr and
  nothing imported here prints.
- The MCP handshake is answered at once. Meanwhile a background task checks
  the three services (gRPC health at MNEMEX_*_ADDR) and, if they are down,
  starts the stack with the ``start_stack`` callable the caller injected
  (``mnemex mcp`` passes the supervisor's ``ensure_running``: the gateway
  imports nothing from the application shell); a tool call waits for that (at
  most ``STACK_WAIT_SECONDS``) and otherwise returns an error that tells the
  assistant to carry on without memory.
  Set MNEMEX_AUTOSTART=0 to never start it from here.
- The project scope is MNEMEX_PROJECT_DIR when it names a directory (the
  Cursor entry sets it to ``${workspaceFolder}``), else the process's working
  directory (Claude Code and OpenCode start MCP servers in the project),
  unless a tool call passes ``cwd``.
- Session state lives in the memory service: the tools pass an empty
  session id, which means the scope's most recently active session, i.e. the
  one the hooks (over HTTP) are feeding.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping

from gateway.gateway_composition import Gateway
from gateway.gateway_errors import BackendUnavailable
from gateway.mcp.mcp_server import build_server
from gateway.rpc import Rpc
from kernel import offline
from kernel.config import Settings

log = logging.getLogger("mnemex.mcp.stdio")

SERVICES = ("embedding", "memory", "kg")
STACK_WAIT_SECONDS = 45.0
START_TIMEOUT_SECONDS = 60.0
RETRY_AFTER_SECONDS = 15.0

# Blocking: start the stack detached and wait up to ``timeout`` seconds for it; True once it is up.
# Runs in a worker thread. The application shell provides it (mnemex.cli: the supervisor's ensure_running).
StackStarter = Callable[[Settings, float], bool]


class StackGate:
    """Answers (``await gate()``) once the services answer; starts them (with ``start_stack``) if they do not."""

    def __init__(
        self,
        settings: Settings,
        rpc: Rpc,
        start_stack: StackStarter | None = None,
    ) -> None:
        self.settings = settings
        self.start_stack = start_stack
        self.rpc = rpc
        self._ready = False
        self._task: asyncio.Task[bool] | None = None
        self._failed_at = 0.0

    async def _healthy(self) -> bool:
        health = await self.rpc.health(timeout=0.5)
        return all(name in health and health[name].status == "SERVING" for name in SERVICES)

    async def _bring_up(self) -> bool:
        self._ready = await self._healthy()
        if not self._ready and self.start_stack is not None:
            self._ready = await self._start_and_wait(self.start_stack)
        return self._ready

    async def _start_and_wait(self, start_stack: StackStarter) -> bool:
        log.info("mnemex services are not answering; starting the stack")
        await asyncio.to_thread(start_stack, self.settings, START_TIMEOUT_SECONDS)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if await self._healthy():
                return True
            await asyncio.sleep(0.3)
        return False

    def start(self) -> None:
        if not self._ready and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._bring_up())

    async def __call__(self) -> None:
        if self._ready:
            return
        if self._failed_at and time.monotonic() - self._failed_at < RETRY_AFTER_SECONDS:
            raise BackendUnavailable("memory", "the mnemex stack is not running and could not be started")
        self.start()
        assert self._task is not None
        try:
            ready = await asyncio.wait_for(asyncio.shield(self._task), STACK_WAIT_SECONDS)
        except TimeoutError:
            raise BackendUnavailable("memory", "the mnemex stack is still starting") from None
        except Exception as exc:
            log.warning("starting the stack failed: %s", exc)
            ready = False
        if not ready:
            self._failed_at = time.monotonic()
            raise BackendUnavailable("memory", "the mnemex stack is not running and could not be started")


def project_dir(environ: Mapping[str, str], cwd: str) -> str:
    """MNEMEX_PROJECT_DIR when it names a directory (Cursor fills it from ${workspaceFolder}), else ``cwd``."""
    explicit = environ.get("MNEMEX_PROJECT_DIR", "")
    if explicit and "${" not in explicit and os.path.isdir(explicit):
        return explicit
    return cwd


async def serve(settings: Settings, default_cwd: str, start_stack: StackStarter | None = None) -> None:
    """Serve MCP over stdio; ``start_stack`` (None: never) brings the services up when they are down."""
    rpc = Rpc.connect(settings)
    autostart = os.environ.get("MNEMEX_AUTOSTART", "1") != "0"
    gate = StackGate(settings, rpc, start_stack if autostart else None)
    server = build_server(Gateway.build(settings, rpc), default_cwd=default_cwd, ready=gate)
    gate.start()
    try:
        await server.run_stdio_async()
    finally:
        await rpc.close()


def _exit_now(signum: int, frame: object) -> None:
    """Stop at once: a stdio server keeps no state, and its stdin reader thread would hold a clean shutdown
    until the client closed the pipe (Claude Code sends SIGINT, waits 100 ms, then SIGTERM)."""
    os._exit(0)


def run(start_stack: StackStarter | None = None) -> None:
    """Entry point of ``mnemex mcp`` (which injects ``start_stack``) and of ``python -m gateway.mcp.stdio``."""
    for stop_signal in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop_signal, _exit_now)
    offline.apply()
    logging.basicConfig(
        level=os.environ.get("MNEMEX_LOG_LEVEL", "WARNING").upper(),
        stream=sys.stderr,
        format="%(asctime)s mnemex-mcp %(levelname)s %(message)s",
    )
    settings = Settings.from_env()
    asyncio.run(serve(settings, project_dir(os.environ, os.getcwd()), start_stack))


if __name__ == "__main__":
    run()
