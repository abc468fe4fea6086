"""POST /api/ingest?progress=ndjson and GET /api/versions against the real stack over HTTP."""

from __future__ import annotations

import base64
import itertools
import os
from pathlib import Path

from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.input_validation import MAX_BOOK_BYTES
from gateway.reply_models import BooksOut, VersionsOut
from kernel import __version__
from kernel.json_values import JSONObject, bool_at, int_at, list_at, parse_object, parse_value, str_at
from services.memory.usecases.book_ingest import EMBED_BATCH
from tests.integration.gateway.live_stack import LiveStack, gateway_settings
from tests.support.dead_backends import closed_port
from tests.support.json_read import json_str

RUNBOOK = "\n\n".join(
    f"Section {i}. " + " ".join(f"When queue worker {i}-{j} stalls, drain it and restart the pool." for j in range(16))
    for i in range(45)
)


def project(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return str(path)


def ingest_lines(live: LiveStack, body: dict[str, object]) -> tuple[int, str, list[JSONObject]]:
    """(status, content type, decoded lines) of one streaming ingest, read line by line as it arrives."""
    with live.client.stream("POST", "/api/ingest", params={"progress": "ndjson"}, json=body, timeout=300) as reply:
        lines = [parse_object(line) for line in reply.iter_lines() if line.strip()]
        return reply.status_code, reply.headers.get("content-type", ""), lines


def test_streamed_ingest_reports_chunks_then_the_result(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    body: dict[str, object] = {"title": "Queue Runbook", "filename": "runbook.md", "text": RUNBOOK, "cwd": cwd}
    status, content_type, lines = ingest_lines(live, body)
    assert status == 200 and content_type.startswith("application/x-ndjson")
    *progress, result = lines
    assert json_str(result, "type") == "result" and json_str(result, "title") == "Queue Runbook"
    assert result["skipped_unchanged"] is False
    total = int_at(result, "chunks")
    assert total > EMBED_BATCH and len(list_at(result, "ids")) == total
    assert {str_at(p, "type") for p in progress} == {"progress"}
    assert {int_at(p, "chunks_total", -1) for p in progress} == {total}
    done = [int_at(p, "chunks_done", -1) for p in progress]
    assert done[0] == 0 and done[-1] == total
    assert all(a < b for a, b in itertools.pairwise(done)), done  # strictly increasing
    assert len(done) == 1 + -(-total // EMBED_BATCH)  # the start, then one line per stored batch
    books = {b.title: b.chunks for b in live.get_as("/api/books", BooksOut, cwd=cwd).books}
    assert books == {"Queue Runbook": total}

    _, _, again = ingest_lines(live, body)  # unchanged: nothing to embed, only the result
    assert [json_str(line, "type") for line in again] == ["result"] and bool_at(again[0], "skipped_unchanged")


def test_streamed_ingest_refuses_before_any_work(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    too_big = base64.b64encode(b"a" * (MAX_BOOK_BYTES + 1)).decode()
    reply = live.client.post(
        "/api/ingest",
        params={"progress": "ndjson"},
        json={"title": "Huge", "filename": "huge.txt", "data_base64": too_big, "cwd": cwd},
    )
    assert reply.status_code == 413 and "10 MB" in json_str(parse_value(reply.content), "error")
    unsupported = live.client.post(
        "/api/ingest",
        params={"progress": "ndjson"},
        json={
            "title": "Setup",
            "filename": "setup.exe",
            "data_base64": base64.b64encode(b"MZ\x90").decode(),
            "cwd": cwd,
        },
    )
    assert unsupported.status_code == 422 and ".txt" in json_str(parse_value(unsupported.content), "error")
    unknown_mode = live.client.post(
        "/api/ingest", params={"progress": "bars"}, json={"title": "T", "filename": "t.txt", "text": "x", "cwd": cwd}
    )
    assert unknown_mode.status_code == 422
    assert live.get_as("/api/books", BooksOut, cwd=cwd).books == []


def test_streamed_ingest_with_memory_down_is_503(live: LiveStack, tmp_path: Path) -> None:
    settings = gateway_settings(live.home, live.embedding_addr, f"127.0.0.1:{closed_port()}", live.kg_addr)
    body = {"title": "T", "filename": "t.txt", "text": "The pager rota lives in ops/rota.md.", "cwd": project(tmp_path)}
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        reply = client.post("/api/ingest", params={"progress": "ndjson"}, json=body)
    assert reply.status_code == 503 and "memory service unavailable" in json_str(parse_value(reply.content), "error")


def test_versions_report_every_service(live: LiveStack) -> None:
    report = live.get_as("/api/versions", VersionsOut)
    for versions in (report.gateway, report.embedding, report.memory, report.kg):
        assert versions["version"] == __version__, report
    assert (report.memory["service"], report.kg["service"]) == ("memory", "kg")
    embedding = report.embedding
    precision = os.environ.get("MNEMEX_EMBEDDING_PRECISION", "int8")  # the suite's (tests/conftest.py)
    assert (embedding["model_id"], embedding["backend"], embedding["precision"]) == (
        "all-MiniLM-L6-v2",
        "onnx",
        precision,
    )


def test_versions_name_a_backend_that_is_down(live: LiveStack) -> None:
    settings = gateway_settings(live.home, live.embedding_addr, live.memory_addr, f"127.0.0.1:{closed_port()}")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        report = VersionsOut.model_validate_json(client.get("/api/versions").content)
    assert report.kg == {"error": "UNAVAILABLE"}
    assert report.memory["version"] == __version__ and report.embedding["version"] == __version__
