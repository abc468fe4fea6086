"""REST memory API against the real services: search paths, memory_bank, books, kg, stats."""

from __future__ import annotations

import base64
from pathlib import Path

from fastapi.testclient import TestClient

from gateway.app import create_app
from tests.integration.gateway.live_stack import LiveStack, gateway_settings
from tests.support.dead_backends import closed_port


def project(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return str(path)


def test_search_by_query_days_and_id(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    added = live.post(
        "/api/memory-bank/add",
        {"content": "Staging database snapshots are taken nightly at 02:00 UTC", "cwd": cwd, "tags": ["ops"]},
    )
    fact_id = added["memory"]["id"]
    by_query = live.post("/api/search", {"query": "when are staging snapshots taken?", "cwd": cwd, "limit": 3})
    assert by_query["memories"][0]["id"] == fact_id
    assert "embedding_similarity" in by_query["memories"][0]
    by_days = live.post(
        "/api/search", {"days_back": 1, "cwd": cwd, "collections": ["memory_bank"], "sort_by": "recency"}
    )
    assert fact_id in [m["id"] for m in by_days["memories"]]
    by_id = live.post("/api/search", {"id": fact_id, "cwd": cwd})
    assert by_id["memories"][0]["content"].startswith("Staging database snapshots")
    assert by_id["memories"][0]["tags"] == ["ops"]
    missing = live.post("/api/search", {"id": "history_" + "0" * 32, "cwd": cwd}, expect=404)
    assert "history_" in missing["error"]


def test_memory_bank_update_and_archive(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    fact = live.post("/api/memory-bank/add", {"content": "The user's editor is Vim", "cwd": cwd})["memory"]
    updated = live.post(
        "/api/memory-bank/update",
        {"id": fact["id"], "content": "The user's editor is Helix", "importance": 0.9, "cwd": cwd},
    )
    assert updated["memory"]["content"] == "The user's editor is Helix" and updated["memory"]["importance"] == 0.9
    archived = live.post("/api/memory-bank/archive", {"id": fact["id"], "reason": "changed editors", "cwd": cwd})
    assert archived["memory"]["archived"] is True
    again = live.post(
        "/api/search", {"query": "which editor does the user use?", "cwd": cwd, "collections": ["memory_bank"]}
    )
    assert fact["id"] not in [m["id"] for m in again["memories"]]
    shown = live.get(f"/api/memories/{fact['id']}", cwd=cwd)  # show still finds it, marked archived
    assert shown["id"] == fact["id"] and shown["archived"] is True and shown["content"] == "The user's editor is Helix"
    assert "no memory with id" in live.get("/api/memories/memory_bank_" + "f" * 32, expect=404, cwd=cwd)["error"]
    assert live.get("/api/memories/not an id", expect=422, cwd=cwd)["error"]  # malformed: the reason, not a 404
    assert live.post(
        "/api/memory-bank/update", {"id": "memory_bank_" + "f" * 32, "content": "x", "cwd": cwd}, expect=404
    )["error"]
    assert (
        "nothing to update" in live.post("/api/memory-bank/update", {"id": fact["id"], "cwd": cwd}, expect=422)["error"]
    )


def test_books_ingest_list_search_remove(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    text = "# Runbook\n\n" + "\n\n".join(
        f"Section {i}. When the queue worker {i} stalls, restart it with systemctl restart worker@{i}."
        for i in range(30)
    )
    ingested = live.post("/api/ingest", {"title": "Ops Runbook", "filename": "runbook.md", "text": text, "cwd": cwd})
    assert ingested["chunks"] >= 1 and ingested["ids"]
    multipart = live.client.post(
        "/api/ingest",
        files={"file": ("notes.txt", b"The cache warmer runs every 5 minutes.")},
        data={"title": "Cache Notes", "cwd": cwd},
        headers={"X-Mnemex-Client": "test"},
    )
    assert multipart.status_code == 200, multipart.text
    encoded = live.post(
        "/api/ingest",
        {
            "title": "Encoded",
            "filename": "e.txt",
            "cwd": cwd,
            "data_base64": base64.b64encode(b"Base64 books work too.").decode(),
        },
    )
    assert encoded["chunks"] == 1
    titles = {b["title"] for b in live.get("/api/books", cwd=cwd)["books"]}
    assert {"Ops Runbook", "Cache Notes", "Encoded"} <= titles
    found = live.post("/api/search", {"query": "queue worker stalls restart", "collections": ["books"], "cwd": cwd})
    assert found["memories"] and found["memories"][0]["collection"] == "books"
    removed = live.post("/api/books/remove", {"title": "Ops Runbook", "cwd": cwd})
    assert removed["removed_chunks"] == ingested["chunks"] and sorted(removed["removed_ids"]) == sorted(ingested["ids"])
    assert "Ops Runbook" not in {b["title"] for b in live.get("/api/books", cwd=cwd)["books"]}
    assert "mnemex books" in live.post("/api/books/remove", {"title": "Ops Runbook", "cwd": cwd}, expect=404)["error"]


def test_stats_kg_and_health(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    live.post("/api/memory-bank/add", {"content": "The payments API uses FastAPI and Postgres", "cwd": cwd})
    stats = live.get("/api/stats", cwd=cwd)
    assert stats["user"] == "tester" and stats["project"]
    assert "counts" in stats["memory"] and "counts" in stats["kg"]
    graph = live.get("/api/kg", cwd=cwd, limit=50)
    assert set(graph) >= {"nodes", "edges", "routing"}
    health = live.get("/api/health")
    assert health == {"status": "ok", "services": {n: {"status": "SERVING"} for n in ("embedding", "memory", "kg")}}


def test_get_context_without_kg_still_searches(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    fact = live.post(
        "/api/memory-bank/add",
        {"content": "Grafana dashboards for the checkout flow live in ops/grafana/checkout.json", "cwd": cwd},
    )
    settings = gateway_settings(live.home, live.embedding_addr, live.memory_addr, f"127.0.0.1:{closed_port()}")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        reply = client.post(
            "/api/hooks/get-context",
            json={"session_id": "no-kg", "prompt": "where are the checkout grafana dashboards?", "cwd": cwd},
        ).json()
    assert "kg" in reply["degraded"]
    assert fact["memory"]["id"] in [m["id"] for m in reply["memories"]]
    assert f"[id:{fact['memory']['id']}]" in reply["context"]
