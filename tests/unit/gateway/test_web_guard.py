"""The Host and Origin rules of gateway/web_guard.py, and MNEMEX_ALLOWED_HOSTS, on the real app."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.web_guard import HostRule, host_name
from kernel.config import ConfigError, Settings

CLOSED = "127.0.0.1:9"


def _settings(home: Path, **extra: str) -> Settings:
    env = {
        "MNEMEX_HOME": str(home),
        "MNEMEX_USER": "tester",
        "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
        "MNEMEX_EMBEDDING_ADDR": CLOSED,
        "MNEMEX_MEMORY_ADDR": CLOSED,
        "MNEMEX_KG_ADDR": CLOSED,
    }
    return Settings.from_env({**env, **extra})


@pytest.mark.parametrize(
    ("authority", "name"),
    [
        ("127.0.0.1:27300", "127.0.0.1"),
        ("[::1]:80", "::1"),
        ("LocalHost.", "localhost"),
        ("::1", "::1"),
        ("a.b", "a.b"),
    ],
)
def test_host_name_drops_port_brackets_and_case(authority: str, name: str) -> None:
    assert host_name(authority) == name


def test_a_loopback_bind_answers_to_loopback_names_only() -> None:
    rule = HostRule("127.0.0.1")
    assert all(rule.allows(n) for n in ("127.0.0.1", "localhost", "::1", "127.0.0.2"))
    assert not any(rule.allows(n) for n in ("rebind.evil.example", "10.0.0.5", "localhost.evil.example", ""))


def test_a_named_or_wildcard_bind_adds_its_own_address() -> None:
    named = HostRule("10.0.0.5", ["mnemex.internal"])
    assert named.allows("10.0.0.5") and named.allows("mnemex.internal") and not named.allows("10.0.0.6")
    wildcard = HostRule("0.0.0.0")
    assert wildcard.allows("10.0.0.6") and wildcard.allows("fe80::1")  # an IP address cannot be rebound
    assert not wildcard.allows("rebind.evil.example")


def test_configured_names_are_answered_and_others_refused(tmp_path: Path) -> None:
    app = create_app(_settings(tmp_path, MNEMEX_ALLOWED_HOSTS="mnemex.internal, Memory.Example.org"))
    with TestClient(app, base_url="http://mnemex.internal:8080") as client:
        assert client.get("/openapi.json").status_code == 200
        assert client.get("/openapi.json", headers={"Host": "memory.example.org"}).status_code == 200
        refused = client.get("/openapi.json", headers={"Host": "rebind.evil.example"})
        assert refused.status_code == 403 and "MNEMEX_ALLOWED_HOSTS" in refused.json()["error"]
        # A page served under a configured name (behind a proxy that rewrites Host) is the gateway's own origin.
        own = client.post("/api/search", json={"query": "x"}, headers={"Origin": "https://memory.example.org"})
        assert own.status_code != 403
        # MCP's own host check (the SDK's) answers the configured name too.
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        mcp = client.post("/mcp", json=initialize, headers={"Accept": "application/json, text/event-stream"})
        assert mcp.status_code == 200, mcp.text


def test_allowed_hosts_must_be_names(tmp_path: Path) -> None:
    for bad in ("http://mnemex.internal", "mnemex.internal:8080", "a b", "*.example.org"):
        with pytest.raises(ConfigError, match="MNEMEX_ALLOWED_HOSTS"):
            _settings(tmp_path, MNEMEX_ALLOWED_HOSTS=bad)
    assert _settings(tmp_path).allowed_hosts == ()
