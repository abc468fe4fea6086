"""What ``mnemex init`` writes, read back the way the clients read it.

- ``init`` then ``uninit`` across all three clients leaves a user's earlier
  configuration byte-identical.
- The MCP entry ``init`` wrote, started the way the official MCP SDK starts a
  server by default (a minimal environment: HOME, PATH, SHELL, TERM), reaches
  the stack ``init`` was configured for, and starts no second stack.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from kernel.json_values import JSONObject
from tests.integration.mcp.clients import ok
from tests.support.e2e_user import User, mnemex_cli, snapshot

pytestmark = pytest.mark.slow

EARLIER = {
    ".claude/settings.json": {
        "model": "opus",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
        "permissions": {"allow": ["Bash(git status)"]},
    },
    ".claude.json": {"numStartups": 7, "mcpServers": {"github": {"command": "gh-mcp", "env": {"TOKEN": "s3cret"}}}},
    ".cursor/mcp.json": {"mcpServers": {"docs": {"url": "http://127.0.0.1:9/mcp"}}},
    ".cursor/hooks.json": {"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}},
    ".config/opencode/opencode.json": {"$schema": "https://opencode.ai/config.json", "theme": "dark"},
}


def write_earlier_configs(home: Path) -> None:
    for relative, content in EARLIER.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        # a user's own formatting: two-space indent, key order as written, no trailing newline
        path.write_text(json.dumps(content, indent=2))
    (home / ".claude.json").chmod(0o600)


def test_init_then_uninit_leaves_every_clients_earlier_config_byte_identical(user: User, tmp_path: Path) -> None:
    write_earlier_configs(user.home)
    before = snapshot(user.home)
    env = {**user.shell_env, "MNEMEX_HOME": str(tmp_path / "mnemex-home")}
    done = mnemex_cli(["init", "--client", "claude,cursor,opencode"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    installed = snapshot(user.home)
    for relative in EARLIER:
        assert installed[relative] != before[relative], f"init did not touch {relative}"
    done = mnemex_cli(["uninit", "--client", "claude,cursor,opencode"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    after = snapshot(user.home)
    assert after == before, sorted(set(after) ^ set(before)) or [k for k in after if after[k] != before[k]]
    assert (user.home / ".claude.json").stat().st_mode & 0o777 == 0o600


def mcp_entry(home: Path, client: str) -> tuple[list[str], dict[str, str]]:
    """The client's mnemex MCP entry as (command line, extra environment)."""
    if client == "claude":
        entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["mnemex"]
        return [entry["command"], *entry.get("args", [])], dict(entry.get("env") or {})
    entry = json.loads((home / ".config/opencode/opencode.json").read_text())["mcp"]["mnemex"]
    return list(entry["command"]), dict(entry.get("environment") or {})


async def search_through(command: list[str], env: dict[str, str], cwd: Path, query: str) -> JSONObject:
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(cwd))
    async with Client(params, read_timeout_seconds=60) as client:
        return ok(await client.call_tool("search_memory", {"query": query}))


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("client", ["claude", "opencode"])
def test_the_mcp_entry_reaches_the_configured_stack_from_the_sdks_minimal_environment(user: User, client: str) -> None:
    user.init(client)
    fact = "The billing job runs at 02:00 UTC from the cron host"
    fact_id = user.add_fact(fact)
    command, extra_env = mcp_entry(user.home, client)
    assert not any(k.startswith("MNEMEX_") and k != "MNEMEX_CONNECTION_FILE" for k in extra_env), extra_env
    # The SDK's default environment, with the user's HOME: no MNEMEX_* setting at all.
    env = {"HOME": str(user.home), **extra_env}
    result = asyncio.run(asyncio.wait_for(search_through(command, env, user.project, "billing job"), 120))
    assert fact_id in json.dumps(result), result
    # no second stack: nothing listens on the default gateway port, and the default home under HOME stays empty
    assert not port_open(27300)
    default_home = user.home / ".local" / "share" / "mnemex"
    assert not default_home.exists(), sorted(str(p) for p in default_home.rglob("*"))
