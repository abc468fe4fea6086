"""The stdio server starts the stack only through the callable the application shell injects.

The gateway imports nothing from ``mnemex`` (tests/unit/test_architecture.py);
``mnemex mcp`` hands ``gateway.mcp.stdio.run`` the supervisor's
``ensure_running``. Backends point at a closed loopback port, so health is
real and says DOWN.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gateway.gateway_errors import BackendUnavailable
from gateway.mcp.stdio import StackGate, StackStarter
from gateway.rpc import Rpc
from kernel.config import Settings


def settings_with_services_down(home: Path) -> Settings:
    down = {f"MNEMEX_{name}_ADDR": "127.0.0.1:9" for name in ("EMBEDDING", "MEMORY", "KG")}
    return Settings.from_env({"MNEMEX_HOME": str(home), "MNEMEX_USER": "tester", **down})


async def ask(settings: Settings, start_stack: StackStarter | None) -> str:
    """What a tool call gets from a gate whose services are down."""
    rpc = Rpc.connect(settings)
    gate = StackGate(settings, rpc, start_stack)
    try:
        await gate()
    except BackendUnavailable as exc:
        return str(exc)
    finally:
        await rpc.close()
    return "ready"


def test_a_gate_without_a_starter_never_tries_to_start_the_stack(tmp_path: Path) -> None:
    message = asyncio.run(ask(settings_with_services_down(tmp_path), None))
    assert "could not be started" in message


@pytest.mark.slow
def test_the_injected_starter_is_called_with_the_settings_and_the_start_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gateway.mcp.stdio.START_TIMEOUT_SECONDS", 0.5)  # the gate polls health this long after
    calls: list[tuple[Settings, float]] = []

    def start_stack(settings: Settings, timeout: float) -> bool:
        calls.append((settings, timeout))
        return False

    settings = settings_with_services_down(tmp_path)
    message = asyncio.run(ask(settings, start_stack))
    assert calls == [(settings, 0.5)]
    assert "could not be started" in message
