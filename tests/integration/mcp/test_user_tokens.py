"""Per-user tokens through the MCP endpoint: the real MCP client over HTTP acts as its token's user.

The gateway's middleware resolves the token to a user for the rest of the request
(``gateway.user_tokens.authenticated_user``); the tools see it too. A second gateway
with ``MNEMEX_USER_TOKENS`` serves the session stack's memory and kg services here.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gateway.reply_models import StoredFactOut
from gateway.user_tokens import add_token
from kernel.config import Settings
from kernel.json_values import JSONObject
from tests.integration.mcp.clients import ok, text_of
from tests.support.loop_thread import LoopThread
from tests.support.mcp_stack import McpStack, run_async, serve_gateway


@pytest.fixture(scope="module")
def team_gateway(
    mcp_stack: McpStack, loop_thread: LoopThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("team-gateway")
    tokens_file = home / "user_tokens"
    tokens = {user: add_token(tokens_file, user) for user in ("alice", "bob")}
    env = {**mcp_stack.env, "MNEMEX_HOME": str(home), "MNEMEX_USER_TOKENS": str(tokens_file)}
    env["MNEMEX_TOKEN"] = "operator-token-for-the-team-gateway"
    server, task, port = loop_thread.run(serve_gateway(Settings.from_env(env)))
    try:
        yield {"url": f"http://127.0.0.1:{port}", **tokens}
    finally:
        server.should_exit = True
        loop_thread.run(asyncio.wait_for(task, 10))


def rest(url: str, path: str, body: dict[str, object], token: str) -> bytes:
    """The raw reply of a POST with ``token``."""
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: bytes = response.read()
        return answer


async def search_as(gateway: dict[str, str], token: str, project: Path, query: str) -> tuple[bool, JSONObject]:
    headers = {"Authorization": f"Bearer {token}", "X-Mnemex-Cwd": str(project)}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{gateway['url']}/mcp", http_client=http), read_timeout_seconds=60) as client,
    ):
        result = await client.call_tool("search_memory", {"query": query, "collections": ["memory_bank"]})
        return bool(result.is_error), ok(result) if not result.is_error else {"text": text_of(result)}


def test_an_mcp_client_reaches_only_its_token_users_memories(team_gateway: dict[str, str], project: Path) -> None:
    fact = "Alice signs release builds with the hardware key in the blue drawer."
    added = rest(
        team_gateway["url"], "/api/memory-bank/add", {"content": fact, "cwd": str(project)}, team_gateway["alice"]
    )
    assert StoredFactOut.model_validate_json(added).memory.content == fact
    failed, as_alice = run_async(
        lambda: search_as(team_gateway, team_gateway["alice"], project, "how are releases signed?")
    )
    assert not failed and fact in json.dumps(as_alice)
    failed, as_bob = run_async(
        lambda: search_as(team_gateway, team_gateway["bob"], project, "how are releases signed?")
    )
    assert not failed and fact not in json.dumps(as_bob)


def test_an_unknown_token_reaches_no_tool(team_gateway: dict[str, str], project: Path) -> None:
    async def attempt() -> tuple[bool, JSONObject]:
        return await search_as(team_gateway, "not-a-token", project, "anything")

    with pytest.raises(Exception) as failed:  # the SDK reports it inside nested task-group errors
        run_async(attempt)
    assert "Server returned an error response" in repr(failed.value)
    request = urllib.request.Request(
        f"{team_gateway['url']}/mcp",
        data=b"{}",
        headers={"Content-Type": "application/json", "Authorization": "Bearer not-a-token"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401
