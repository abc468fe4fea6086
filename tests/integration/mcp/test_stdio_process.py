"""`mnemex mcp` as a process: stdout carries only the protocol, and it starts the stack when needed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gateway.reply_models import StoredFactOut
from kernel.config import Settings
from kernel.json_values import object_at, parse_object
from tests.integration.mcp.clients import connect, reply
from tests.support.mcp_stack import ROOT, McpStack, run_async

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def test_mnemex_mcp_writes_nothing_but_json_rpc_to_stdout(mcp_stack: McpStack, project: Path) -> None:
    messages: list[dict[str, object]] = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search_memory", "arguments": {"days_back": 1}},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mnemex.cli", "mcp"],
        cwd=project,
        env=mcp_stack.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        replies = []
        for message in messages:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
            if "id" in message:
                replies.append(json.loads(proc.stdout.readline()))  # each line must be one JSON-RPC message
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert [r["id"] for r in replies] == [1, 2, 3] and all(r["jsonrpc"] == "2.0" for r in replies)
    assert replies[0]["result"]["serverInfo"]["name"] == "mnemex"
    assert len(replies[1]["result"]["tools"]) == 13
    assert replies[2]["result"]["isError"] is False
    assert rest.strip() == b"", f"stray output on stdout: {rest[:200]!r}"


@pytest.mark.slow
def test_mcp_starts_the_stack_when_it_is_not_running(tmp_path: Path, project: Path) -> None:
    from mnemex.supervisor import down
    from tests.support.stack import free_port

    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "MNEMEX_HOME": str(tmp_path / "home"),
        "MNEMEX_USER": "tester",
        "MNEMEX_GATEWAY_ADDR": f"127.0.0.1:{free_port()}",
        "MNEMEX_EMBEDDING_ADDR": f"127.0.0.1:{free_port()}",
        "MNEMEX_MEMORY_ADDR": f"127.0.0.1:{free_port()}",
        "MNEMEX_KG_ADDR": f"127.0.0.1:{free_port()}",
    }
    stack = McpStack(home=tmp_path / "home", env=env, settings=Settings.from_env(env), gateway_url="")
    started = time.monotonic()
    try:

        async def go() -> StoredFactOut:
            async with connect(stack, "stdio", project) as client:
                listed = await client.list_tools()
                assert time.monotonic() - started < 30, "the handshake does not wait for the stack"
                assert len(listed.tools) == 13
                added = await client.call_tool("add_to_memory_bank", {"content": "Autostarted stacks work"})
                return reply(added, StoredFactOut)

        added = run_async(go, timeout=240)
        assert added.memory.collection == "memory_bank"
        state = parse_object((tmp_path / "home" / "run" / "state.json").read_text())
        assert set(object_at(state, "services")) >= {"embedding", "memory", "kg", "gateway"}
    finally:
        down(stack.settings)


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_mnemex_mcp_stops_on_a_signal_while_its_client_keeps_stdin_open(
    mcp_stack: McpStack, project: Path, stop_signal: signal.Signals
) -> None:
    """Claude Code ends a server with SIGINT, and sends SIGTERM only 100 ms later."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mnemex.cli", "mcp"],
        cwd=project,
        env=mcp_stack.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving, stdin still open
        proc.send_signal(stop_signal)
        assert proc.wait(2) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
