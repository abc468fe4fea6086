"""The HTTP edge with every backend down: limits, auth, errors, fail-soft hooks.

Real FastAPI app, real gRPC channels pointed at closed loopback ports.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.input_validation import MAX_BOOK_BYTES
from tests.support.dead_backends import dead_settings


@pytest.fixture
def client(isolated_home: Path) -> Iterator[TestClient]:
    with TestClient(create_app(dead_settings(isolated_home)), base_url="http://127.0.0.1") as test_client:
        yield test_client


def test_backend_errors_map_to_503_with_a_hint(client: TestClient) -> None:
    reply = client.post("/api/record-outcome", json={"outcome": "worked"})
    assert reply.status_code == 503
    assert "mnemex up" in reply.json()["error"]


def test_health_reports_each_backend_down(client: TestClient) -> None:
    reply = client.get("/api/health")
    assert reply.status_code == 503
    services = reply.json()["services"]
    assert set(services) == {"embedding", "memory", "kg"}
    assert all(s["status"] == "DOWN" for s in services.values())


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/search", {"query": "q" * 2001}, "query"),
        ("/api/search", {"query": "x", "days_back": 0}, "days_back"),
        ("/api/search", {"query": "x", "days_back": 3651}, "days_back"),
        ("/api/search", {"query": "x", "limit": 101}, "limit"),
        ("/api/search", {"query": "x", "sort_by": "newest"}, "sort_by"),
        ("/api/search", {"id": "i" * 201}, "id"),
        ("/api/search", {"query": "x", "collections": ["notes"]}, "collections"),
        ("/api/record-outcome", {"outcome": "great"}, "outcome"),
        ("/api/record-outcome", {"outcome": "worked", "related": ["r" * 201]}, None),
        ("/api/memory-bank/add", {"content": ""}, "content"),
        ("/api/memory-bank/add", {"content": "x", "importance": 2}, "importance"),
        ("/api/memory-bank/archive", {"id": ""}, "id"),
        ("/api/hooks/get-context", {"prompt": "x", "limit": 0}, "limit"),
    ],
)
def test_bad_input_is_422_with_a_message(
    client: TestClient, path: str, body: dict[str, object], field: str | None
) -> None:
    reply = client.post(path, json=body)
    assert reply.status_code == 422, reply.text
    message = reply.json()["error"]
    assert message
    if field:
        assert field in message


def test_search_without_query_days_or_id_says_what_to_pass(client: TestClient) -> None:
    reply = client.post("/api/search", json={"limit": 5})
    assert reply.status_code == 422
    assert "days_back" in reply.json()["error"] and "id" in reply.json()["error"]


def test_ingest_over_10_mb_is_413_before_any_work(client: TestClient) -> None:
    big = b"a" * (MAX_BOOK_BYTES + 10)
    multipart = client.post(
        "/api/ingest", files={"file": ("big.txt", big)}, data={"title": "Big"}, headers={"X-Mnemex-Client": "test"}
    )
    assert multipart.status_code == 413
    as_json = client.post(
        "/api/ingest", json={"title": "Big", "filename": "big.txt", "data_base64": base64.b64encode(big).decode()}
    )
    assert as_json.status_code == 413
    declared = client.post(
        "/api/ingest",
        content=b"x",
        headers={"content-length": str(50 * 1024 * 1024), "content-type": "application/json"},
    )
    assert declared.status_code == 413


def test_streamed_body_over_the_limit_is_413(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b"x" * (512 * 1024)

    reply = client.post("/api/ingest", content=chunks(), headers={"content-type": "application/json"})
    assert reply.status_code == 413


def test_hook_bodies_are_bounded(client: TestClient) -> None:
    reply = client.post(
        "/api/hooks/post-tool-use",
        content=b"{" + b" " * (3 * 1024 * 1024) + b"}",
        headers={"content-type": "application/json"},
    )
    assert reply.status_code == 413


def test_post_tool_use_answers_at_once_even_when_memory_is_down(client: TestClient) -> None:
    reply = client.post(
        "/api/hooks/post-tool-use",
        json={
            "session_id": "s",
            "cwd": "/repo",
            "tool_name": "Edit",
            "tool_input": {"file_path": "/repo/gateway/app.py"},
        },
    )
    assert reply.status_code == 200
    assert reply.json() == {"observation": "Edited gateway/app.py", "queued": True}
    quiet = client.post("/api/hooks/post-tool-use", json={"tool_name": "Read", "tool_input": {"file_path": "/x"}})
    assert quiet.json() == {"observation": None, "queued": False}


def test_pre_compact_reminds_to_record_takeaways(client: TestClient) -> None:
    reply = client.post("/api/hooks/pre-compact", json={"session_id": "s", "trigger": "auto"})
    assert "record_response" in reply.json()["context"]


def test_openapi_is_served_and_cors_is_off(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "/api/hooks/get-context" in spec["paths"]
    preflight = client.options(
        "/api/search", headers={"origin": "http://evil.example", "access-control-request-method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    simple = client.get("/openapi.json", headers={"origin": "http://evil.example"})
    assert "access-control-allow-origin" not in simple.headers


def test_token_is_required_everywhere_but_health(isolated_home: Path) -> None:
    with TestClient(
        create_app(dead_settings(isolated_home, token="s3cret-token")), base_url="http://127.0.0.1"
    ) as client:
        assert client.post("/api/search", json={"query": "x"}).status_code == 401
        assert client.get("/openapi.json").status_code == 401
        assert (
            client.post("/api/search", json={"query": "x"}, headers={"authorization": "Bearer wrong"}).status_code
            == 401
        )
        health = client.get("/api/health")  # no token: health is open, and every backend is down
        assert health.status_code == 503
        assert set(health.json()["services"]) == {"embedding", "memory", "kg"}
        ok = client.post("/api/search", json={"limit": 1}, headers={"authorization": "Bearer s3cret-token"})
        assert ok.status_code == 422  # past auth, stopped by validation
