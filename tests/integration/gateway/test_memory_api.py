"""REST memory API against the real services: search paths, memory_bank, books, kg, stats."""

from __future__ import annotations

import base64
from pathlib import Path

from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.reply_models import (
    BooksOut,
    ContextOut,
    GraphOut,
    IngestOut,
    MemoryChangeOut,
    MemoryOut,
    RemovedBookOut,
    SearchOut,
    StatsOut,
    StoredFactOut,
)
from tests.integration.gateway.live_stack import LiveStack, gateway_settings
from tests.support.dead_backends import closed_port
from tests.support.json_read import json_str


def project(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return str(path)


def test_search_by_query_days_and_id(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    added = live.post_as(
        "/api/memory-bank/add",
        {"content": "Staging database snapshots are taken nightly at 02:00 UTC", "cwd": cwd, "tags": ["ops"]},
        StoredFactOut,
    )
    fact_id = added.memory.id
    query = {"query": "when are staging snapshots taken?", "cwd": cwd, "limit": 3}
    by_query = live.post_as("/api/search", query, SearchOut)
    assert by_query.memories[0].id == fact_id
    assert by_query.memories[0].embedding_similarity is not None
    by_days = live.post_as(
        "/api/search", {"days_back": 1, "cwd": cwd, "collections": ["memory_bank"], "sort_by": "recency"}, SearchOut
    )
    assert fact_id in [m.id for m in by_days.memories]
    by_id = live.post_as("/api/search", {"id": fact_id, "cwd": cwd}, SearchOut)
    assert by_id.memories[0].content.startswith("Staging database snapshots")
    assert by_id.memories[0].tags == ["ops"]
    missing = live.post("/api/search", {"id": "history_" + "0" * 32, "cwd": cwd}, expect=404)
    assert "history_" in json_str(missing, "error")


def test_memory_bank_update_and_archive(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    fact = live.post_as(
        "/api/memory-bank/add", {"content": "The user's editor is Vim", "cwd": cwd}, StoredFactOut
    ).memory
    updated = live.post_as(
        "/api/memory-bank/update",
        {"id": fact.id, "content": "The user's editor is Helix", "importance": 0.9, "cwd": cwd},
        MemoryChangeOut,
    )
    assert updated.memory.content == "The user's editor is Helix" and updated.memory.importance == 0.9
    archive = {"id": fact.id, "reason": "changed editors", "cwd": cwd}
    archived = live.post_as("/api/memory-bank/archive", archive, MemoryChangeOut)
    assert archived.memory.archived is True
    again = live.post_as(
        "/api/search",
        {"query": "which editor does the user use?", "cwd": cwd, "collections": ["memory_bank"]},
        SearchOut,
    )
    assert fact.id not in [m.id for m in again.memories]
    shown = live.get_as(f"/api/memories/{fact.id}", MemoryOut, cwd=cwd)  # show still finds it, marked archived
    assert shown.id == fact.id and shown.archived is True and shown.content == "The user's editor is Helix"
    unknown = live.get("/api/memories/memory_bank_" + "f" * 32, expect=404, cwd=cwd)
    assert "no memory with id" in json_str(unknown, "error")
    assert json_str(live.get("/api/memories/not an id", expect=422, cwd=cwd), "error")  # the reason, not a 404
    assert json_str(
        live.post("/api/memory-bank/update", {"id": "memory_bank_" + "f" * 32, "content": "x", "cwd": cwd}, expect=404),
        "error",
    )
    nothing = live.post("/api/memory-bank/update", {"id": fact.id, "cwd": cwd}, expect=422)
    assert "nothing to update" in json_str(nothing, "error")


def test_books_ingest_list_search_remove(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    text = "# Runbook\n\n" + "\n\n".join(
        f"Section {i}. When the queue worker {i} stalls, restart it with systemctl restart worker@{i}."
        for i in range(30)
    )
    ingested = live.post_as(
        "/api/ingest", {"title": "Ops Runbook", "filename": "runbook.md", "text": text, "cwd": cwd}, IngestOut
    )
    assert ingested.chunks >= 1 and ingested.ids
    multipart = live.client.post(
        "/api/ingest",
        files={"file": ("notes.txt", b"The cache warmer runs every 5 minutes.")},
        data={"title": "Cache Notes", "cwd": cwd},
        headers={"X-Mnemex-Client": "test"},
    )
    assert multipart.status_code == 200, multipart.text
    encoded = live.post_as(
        "/api/ingest",
        {
            "title": "Encoded",
            "filename": "e.txt",
            "cwd": cwd,
            "data_base64": base64.b64encode(b"Base64 books work too.").decode(),
        },
        IngestOut,
    )
    assert encoded.chunks == 1
    titles = {b.title for b in live.get_as("/api/books", BooksOut, cwd=cwd).books}
    assert {"Ops Runbook", "Cache Notes", "Encoded"} <= titles
    query = {"query": "queue worker stalls restart", "collections": ["books"], "cwd": cwd}
    found = live.post_as("/api/search", query, SearchOut)
    assert found.memories and found.memories[0].collection == "books"
    removed = live.post_as("/api/books/remove", {"title": "Ops Runbook", "cwd": cwd}, RemovedBookOut)
    assert removed.removed_chunks == ingested.chunks and sorted(removed.removed_ids) == sorted(ingested.ids)
    assert "Ops Runbook" not in {b.title for b in live.get_as("/api/books", BooksOut, cwd=cwd).books}
    gone = live.post("/api/books/remove", {"title": "Ops Runbook", "cwd": cwd}, expect=404)
    assert "mnemex books" in json_str(gone, "error")


def test_stats_kg_and_health(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    live.post("/api/memory-bank/add", {"content": "The payments API uses FastAPI and Postgres", "cwd": cwd})
    stats = live.get_as("/api/stats", StatsOut, cwd=cwd)
    assert stats.user == "tester" and stats.project
    assert stats.memory.counts is not None and stats.kg.counts is not None
    live.get_as("/api/kg", GraphOut, cwd=cwd, limit=50)  # nodes, edges and routing, each of its type
    health = live.get("/api/health")
    assert health == {"status": "ok", "services": {n: {"status": "SERVING"} for n in ("embedding", "memory", "kg")}}


def test_get_context_without_kg_still_searches(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    fact = live.post_as(
        "/api/memory-bank/add",
        {"content": "Grafana dashboards for the checkout flow live in ops/grafana/checkout.json", "cwd": cwd},
        StoredFactOut,
    ).memory
    settings = gateway_settings(live.home, live.embedding_addr, live.memory_addr, f"127.0.0.1:{closed_port()}")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        replied = client.post(
            "/api/hooks/get-context",
            json={"session_id": "no-kg", "prompt": "where are the checkout grafana dashboards?", "cwd": cwd},
        )
    reply = ContextOut.model_validate_json(replied.content)
    assert "kg" in reply.degraded
    assert fact.id in [m.id for m in reply.memories]
    assert f"[id:{fact.id}]" in reply.context
