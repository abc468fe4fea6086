"""list_tools over stdio and over HTTP equals the committed snapshot.

Regenerate after an intended change with ``MNEMEX_UPDATE_SNAPSHOTS=1``, then
review the diff of ``snapshots/list_tools.json`` like any other code change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kernel.json_values import JSONObject, str_at
from tests.integration.mcp.clients import TRANSPORTS, connect
from tests.support.mcp_stack import McpStack, run_async

SNAPSHOT = Path(__file__).parent / "snapshots" / "list_tools.json"


def listing(stack: McpStack, transport: str, project: Path) -> list[JSONObject]:
    """Each tool as JSON, as the client received it."""

    async def go() -> list[JSONObject]:
        async with connect(stack, transport, project) as client:
            tools = (await client.list_tools()).tools
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]

    return run_async(go)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_list_tools_matches_snapshot(mcp_stack: McpStack, project: Path, transport: str) -> None:
    tools = listing(mcp_stack, transport, project)
    if os.environ.get("MNEMEX_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(tools, indent=2, ensure_ascii=False) + "\n")
    expected = json.loads(SNAPSHOT.read_text())
    assert [t["name"] for t in tools] == [t["name"] for t in expected]
    for got, want in zip(tools, expected, strict=True):
        assert got == want, f"{got['name']} changed; rerun with MNEMEX_UPDATE_SNAPSHOTS=1 if intended"


CLIENT_DESCRIPTION_CAP = 4096  # Claude Code cuts a tool description after this many characters


def test_every_tool_description_fits_the_clients_cap(mcp_stack: McpStack, project: Path) -> None:
    """Claude Code 2.1 logs 'description truncated from N to 4096 chars' and drops the rest."""
    tools = listing(mcp_stack, "stdio", project)
    lengths = {str_at(t, "name"): len(str_at(t, "description")) for t in tools}
    assert max(lengths.values()) <= CLIENT_DESCRIPTION_CAP, lengths
