"""/mcp on the gateway app: lifespan handling, stateless JSON replies, Host checks, token auth."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from gateway.app import create_app
from kernel.config import Settings

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def settings(tmp_path: Path, **extra: str) -> Settings:
    env = {"MNEMEX_HOME": str(tmp_path), "MNEMEX_USER": "tester", "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0", **extra}
    return Settings.from_env(env)


def test_mcp_survives_two_lifespans_of_the_same_app(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    for _ in range(2):  # the SDK's session manager runs once; mount makes a fresh one per lifespan
        with TestClient(app, base_url="http://127.0.0.1") as client:
            assert client.post("/mcp", json=INITIALIZE, headers=HEADERS).status_code == 200
            reply = client.post("/mcp", json=LIST, headers=HEADERS)
            assert reply.status_code == 200
            assert len(reply.json()["result"]["tools"]) == 13


def test_outside_a_lifespan_the_endpoint_answers_503(tmp_path: Path) -> None:
    client = TestClient(create_app(settings(tmp_path)), base_url="http://127.0.0.1")  # no `with`: no lifespan
    reply = client.post("/mcp", json=LIST, headers=HEADERS)
    assert reply.status_code == 503 and "not running" in reply.json()["error"]


def test_foreign_host_header_is_refused_on_a_loopback_gateway(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path)), base_url="http://evil.example") as client:
        assert client.post("/mcp", json=INITIALIZE, headers=HEADERS).status_code in (403, 421)


def test_token_is_required_on_mcp_when_configured(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, MNEMEX_TOKEN="s3cret-token-for-tests"))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.post("/mcp", json=INITIALIZE, headers=HEADERS).status_code == 401
        authed = {**HEADERS, "Authorization": "Bearer s3cret-token-for-tests"}
        assert client.post("/mcp", json=INITIALIZE, headers=authed).status_code == 200
