"""``mnemex mcp``: the mnemex tools over stdio, for Claude Code, Cursor and OpenCode.

    python -m gateway.mcp.stdio        (what ``mnemex mcp`` runs: ``gateway.mcp.stdio.run()``)

- stdout carries nothing but the MCP protocol: logging goes to stderr and
  nothing imported here prints.
- The MCP handshake is answered at once. Meanwhile a background task checks
  the three services (gRPC health at MNEMEX_*_ADDR) and, if they are down,
  starts the stack detached (``mnemex.supervisor.ensure_running``); a tool
  call waits for that (at most ``STACK_WAIT_SECONDS``) and otherwise returns an
  error that tells the assistant to carry on without memory.
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
import sys
import time
from collections.abc import Mapping

from gateway.backends import Backends
from gateway.errors import BackendUnavailable
from gateway.mcp.server import build_server
from gateway.operations import Operations
from kernel import offline
from kernel.config import Settings

log = logging.getLogger("mnemex.mcp.stdio")

SERVICES = ("embedding", "memory", "kg")
STACK_WAIT_SECONDS = 45.0
START_TIMEOUT_SECONDS = 60.0
RETRY_AFTER_SECONDS = 15.0


def _start_stack(settings: Settings) -> bool:
    """Blocking: start the stack detached and wait for it (runs in a worker thread)."""
    from mnemex.supervisor import ensure_running

    return bool(ensure_running(settings, timeout=START_TIMEOUT_SECONDS))


class StackGate:
    """Hands out ``Operations`` once the services answer; starts them if they do not."""

    def __init__(self, settings: Settings, backends: Backends, operations: Operations, autostart: bool = True) -> None:
        self.settings = settings
        self.autostart = autostart
        self.backends = backends
        self.operations = operations
        self._ready = False
        self._task: asyncio.Task[bool] | None = None
        self._failed_at = 0.0

    async def _healthy(self) -> bool:
        health = await self.backends.health(timeout=0.5)
        return all(health.get(name, {}).get("status") == "SERVING" for name in SERVICES)

    async def _bring_up(self) -> bool:
        self._ready = await self._healthy() or (self.autostart and await self._start_and_wait())
        return self._ready

    async def _start_and_wait(self) -> bool:
        log.info("mnemex services are not answering; starting the stack")
        await asyncio.to_thread(_start_stack, self.settings)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if await self._healthy():
                return True
            await asyncio.sleep(0.3)
        return False

    def start(self) -> None:
        if not self._ready and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._bring_up())

    async def __call__(self) -> Operations:
        if self._ready:
            return self.operations
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
        return self.operations


def project_dir(environ: Mapping[str, str], cwd: str) -> str:
    """MNEMEX_PROJECT_DIR when it names a directory (Cursor fills it from ${workspaceFolder}), else ``cwd``."""
    explicit = environ.get("MNEMEX_PROJECT_DIR", "")
    if explicit and "${" not in explicit and os.path.isdir(explicit):
        return explicit
    return cwd


async def serve(settings: Settings, default_cwd: str) -> None:
    backends = Backends.connect(settings)
    operations = Operations(backends, settings)
    gate = StackGate(settings, backends, operations, autostart=os.environ.get("MNEMEX_AUTOSTART", "1") != "0")
    server = build_server(gate, default_cwd=default_cwd)
    gate.start()
    try:
        await server.run_stdio_async()
    finally:
        await backends.close()


def run() -> None:
    """Entry point of ``mnemex mcp``."""
    offline.apply()
    logging.basicConfig(
        level=os.environ.get("MNEMEX_LOG_LEVEL", "WARNING").upper(),
        stream=sys.stderr,
        format="%(asctime)s mnemex-mcp %(levelname)s %(message)s",
    )
    settings = Settings.from_env()
    asyncio.run(serve(settings, project_dir(os.environ, os.getcwd())))


if __name__ == "__main__":
    run()
