"""MCP Inspector CLI (npm @modelcontextprotocol/inspector) lists and calls the tools of `mnemex mcp`.

A real third-party MCP client, over stdio and over HTTP. Skips with the
reason when node/npm or the package cannot be installed. The same checks run
by hand with ``scripts/mcp_inspector_check.sh``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.reply_models import StoredFactOut
from kernel.json_values import JSONObject, bool_at, object_at, objects_at, parse_object, str_at
from mnemex.client_setup.client_entries import TOOL_NAMES
from tests.integration.mcp.node_tools import INSPECTOR, ensure_packages
from tests.support.mcp_stack import McpStack

pytestmark = pytest.mark.slow

PACKAGE = "@modelcontextprotocol/inspector"
TOOL_ERROR_EXIT = 5  # the Inspector CLI's exit status for an isError result


@pytest.fixture(scope="module")
def inspector() -> Path:
    return ensure_packages(INSPECTOR, f"{PACKAGE}/package.json")


def inspect(tools: Path, home: Path, *args: str, timeout: float = 120, expect_rc: int = 0) -> JSONObject:
    home.mkdir(exist_ok=True)
    proc = subprocess.run(
        ["npx", "--no-install", PACKAGE, "--cli", *args],
        cwd=tools,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "NO_COLOR": "1",
            "npm_config_update_notifier": "false",
        },
    )
    assert proc.returncode == expect_rc, (
        f"exit {proc.returncode}\nstdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}"
    )
    return parse_object(proc.stdout)


def stdio_target(stack: McpStack, project: Path) -> list[str]:
    env = [f"{k}={v}" for k, v in stack.env.items() if k.startswith("MNEMEX_")]
    flags = [item for pair in env for item in ("-e", pair)]
    return [*flags, "--cwd", str(project), "--", sys.executable, "-m", "mnemex.cli", "mcp"]


def test_inspector_lists_and_calls_tools_over_stdio(
    inspector: Path, mcp_stack: McpStack, project: Path, tmp_path: Path
) -> None:
    target = stdio_target(mcp_stack, project)
    listed = inspect(inspector, tmp_path / "home", "--method", "tools/list", *target)
    assert {str_at(tool, "name") for tool in objects_at(listed, "tools")} == set(TOOL_NAMES)
    added = inspect(
        inspector,
        tmp_path / "home",
        "--method",
        "tools/call",
        "--tool-name",
        "add_to_memory_bank",
        "--tool-arg",
        "content=The user runs the inspector check before every release",
        *target,
    )
    assert not bool_at(added, "isError"), added
    memory = StoredFactOut.model_validate(object_at(added, "structuredContent")).memory
    said = str_at(next(objects_at(added, "content")), "text")
    assert memory.collection == "memory_bank" and f"[id:{memory.id}]" in said


def test_inspector_over_http_reports_tool_errors(
    inspector: Path, mcp_stack: McpStack, project: Path, tmp_path: Path
) -> None:
    url = [mcp_stack.mcp_url, "--header", f"X-Mnemex-Cwd: {project}"]
    # --strict exits 6 when a tool schema has an error-severity portability problem
    listed = inspect(inspector, tmp_path / "home", "--method", "tools/list", "--strict", *url)
    assert {str_at(tool, "name") for tool in objects_at(listed, "tools")} == set(TOOL_NAMES)
    failed = inspect(
        inspector,
        tmp_path / "home",
        "--method",
        "tools/call",
        "--tool-name",
        "search_memory",
        *url,
        expect_rc=TOOL_ERROR_EXIT,
    )
    assert bool_at(failed, "isError") is True
    assert "query" in json.dumps(failed)
