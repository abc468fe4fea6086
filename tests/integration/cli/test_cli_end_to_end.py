"""The CLI against the real stack: ingest, books, search, show, stats, remove, export/import."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kernel.json_values import JSONObject
from tests.support.cli_stack import RunningStack, start_stack
from tests.support.json_read import json_at, json_int, json_list, json_number, json_object, json_str
from tests.support.supervisor import cli

pytestmark = pytest.mark.slow

LINE = re.compile(r"^1\. \[books\] \((?:[^)]*, )?book:deploy\) \[id:(books_[0-9a-f]+)\] # Deploy guide")


def minimal_pdf(text: str) -> bytes:
    """A valid one-page PDF whose page shows ``text`` (enough for pypdf's text extraction)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def make_docs(root: Path) -> Path:
    docs = root / "docs"
    (docs / "ops").mkdir(parents=True)
    (docs / "deploy.md").write_text(
        "# Deploy guide\n\nTo deploy the API server run `make deploy` after bumping the "
        "version. To roll back a bad deploy, run `make rollback` with the previous tag.\n"
    )
    (docs / "ops" / "cache.txt").write_text("The cache layer keeps session tokens in Redis with a five minute TTL.\n")
    (docs / "oncall.pdf").write_bytes(minimal_pdf("On call engineers page the database team for replication lag."))
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (docs / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with open(docs / "dump.txt", "wb") as handle:
        handle.truncate(10 * 1024 * 1024 + 1)
    return docs


def test_ingest_list_search_show_stats_remove(stack: RunningStack, tmp_path: Path) -> None:
    project = tmp_path / "shop"
    docs = make_docs(project)

    first = stack.invoke(project, "ingest", str(docs), "--json")
    assert first.exit_code == 1, first.output  # one bad file fails, the rest continue
    files = {Path(f["path"]).name: f for f in json.loads(first.stdout)["files"]}
    assert {name: f["status"] for name, f in files.items()} == {
        "deploy.md": "ingested",
        "cache.txt": "ingested",
        "oncall.pdf": "ingested",
        "broken.pdf": "failed",
        "diagram.png": "skipped",
        "dump.txt": "skipped",
    }
    assert "PDF" in files["broken.pdf"]["detail"] and "too large" in files["dump.txt"]["detail"]
    assert all(files[n]["chunks"] >= 1 for n in ("deploy.md", "cache.txt", "oncall.pdf"))

    again = json.loads(stack.invoke(project, "ingest", str(docs), "--json").stdout)
    assert {Path(f["path"]).name: f["status"] for f in again["files"]}["deploy.md"] == "unchanged"
    assert again["counts"]["ingested"] == 0 and again["counts"]["unchanged"] == 3

    books = {json_str(b, "title"): json_object(b) for b in json_list(stack.invoke_json(project, "books"), "books")}
    assert sorted(books) == ["cache", "deploy", "oncall"] and json_int(books["deploy"], "chunks") >= 1
    assert "deploy" in stack.invoke(project, "books").stdout

    human = stack.invoke(project, "search", "how do I roll back a bad deploy", "--limit", "3")
    assert human.exit_code == 0, human.output
    head, first_line = human.stdout.splitlines()[:2]
    assert head.endswith(" relevant memories") or head == "1 relevant memory", human.stdout
    match = LINE.match(first_line)
    assert match, human.stdout
    found = stack.invoke_json(project, "search", "how do I roll back a bad deploy", "--limit", "3")
    assert json_at(found, "memories", 0, "id") == match.group(1)
    assert json_at(found, "memories", 0, "metadata", "title") == "deploy"
    pdf_hit = stack.invoke_json(project, "search", "who handles replication lag", "--collection", "books")
    assert json_at(pdf_hit, "memories", 0, "metadata", "title") == "oncall"

    recent = stack.invoke_json(project, "search", "--days", "1", "--sort", "recency", "--collection", "books")
    titles = {json_str(m, "metadata", "title") for m in json_list(recent, "memories")}
    assert titles == {"deploy", "cache", "oncall"}  # no query needed

    shown = stack.invoke_json(project, "show", match.group(1))
    assert shown["id"] == match.group(1) and shown["collection"] == "books"
    assert "make rollback" in json_str(shown, "content")
    assert "title" in stack.invoke(project, "show", match.group(1)).stdout
    missing = stack.invoke(project, "show", "books_" + "0" * 32)
    assert missing.exit_code == 1 and "no memory with id" in missing.output

    stats = stack.invoke_json(project, "stats")
    assert json_at(stats, "memory", "counts", "books") == sum(json_int(b, "chunks") for b in books.values())
    assert any(json_object(p, "counts").get("books") for p in json_list(stats, "projects"))
    assert "memories in this project" in stack.invoke(project, "stats").stdout

    removed = stack.invoke_json(project, "remove", "deploy")
    assert removed["removed_chunks"] == json_int(books["deploy"], "chunks")
    assert "deploy" not in {json_str(b, "title") for b in json_list(stack.invoke_json(project, "books"), "books")}
    after = stack.invoke_json(project, "search", "how do I roll back a bad deploy", "--collection", "books")
    assert all(json_object(m, "metadata").get("title") != "deploy" for m in json_list(after, "memories"))
    gone = stack.invoke(project, "remove", "deploy")
    assert gone.exit_code == 1 and "no book titled 'deploy'" in gone.output

    other = tmp_path / "elsewhere"
    other.mkdir()
    assert stack.invoke_json(other, "books")["books"] == []  # projects do not see each other's books


def memory_total(stats: JSONObject) -> int:
    """The memories `mnemex stats --json` counts in this project, all collections together."""
    counts = json_object(stats, "memory", "counts")
    return sum(json_int(counts, name) for name in counts)


def scored_exchange(stack: RunningStack, project: Path) -> str:
    """A real hook turn: get-context, stop (stores the exchange), then a worked outcome on it."""
    cwd = str(project)
    stack.post(
        "/api/hooks/get-context", {"session_id": "s1", "prompt": "How do we rotate the signing keys?", "cwd": cwd}
    )
    stop = stack.post(
        "/api/hooks/stop",
        {
            "session_id": "s1",
            "cwd": cwd,
            "assistant_text": "Rotate signing keys with `vault rotate` then restart the API.",
        },
    )
    stack.post(
        "/api/record-outcome",
        {
            "session_id": "s1",
            "cwd": cwd,
            "outcome": "worked",
            "memory_scores": {json_str(stop, "exchange_id"): "worked"},
        },
    )
    return json_str(stop, "exchange_id")


def test_export_import_into_a_fresh_home_reproduces_search(stack: RunningStack, tmp_path: Path) -> None:
    project = tmp_path / "payments"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "runbook.md").write_text(
        "# Runbook\n\nRestart the payment worker with systemctl restart pay.\n"
    )
    assert stack.invoke(project, "ingest", str(project / "docs")).exit_code == 0
    stack.post(
        "/api/memory-bank/add",
        {
            "content": "The team deploys payments on Tuesdays only",
            "tags": ["process"],
            "importance": 0.9,
            "confidence": 0.8,
            "cwd": str(project),
        },
    )
    exchange_id = scored_exchange(stack, project)
    queries = ["restart the payment worker", "when do we deploy payments", "rotate signing keys"]
    before = {q: json_list(stack.invoke_json(project, "search", q, "--limit", "5"), "memories") for q in queries}
    scored = stack.invoke_json(project, "show", exchange_id)
    assert json_int(scored, "uses") >= 1 and json_number(scored, "score") > 0.5

    export_file = tmp_path / "backup.jsonl"
    exported = stack.invoke_json(project, "export", str(export_file))
    lines = [json.loads(line) for line in export_file.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[-1] == {
        "type": "end",
        "memories": exported["memories"],
        "graphs": exported["graphs"],
    }
    assert json_int(exported, "memories") >= 3 and all("embedding" not in line.get("record", {}) for line in lines)

    # A fresh home, as on a new machine: its own stack, whose services share that home's credential only.
    fresh = start_stack(tmp_path / "fresh-home")
    try:
        first = fresh.invoke_json(project, "import", str(export_file))
        assert first["imported"] == exported["memories"] and first["invalid"] == 0
        assert (
            json_int(first, "graphs") + json_int(first, "graphs_skipped") == exported["graphs"]
        )  # an empty graph needs no import
        kg_once = fresh.invoke_json(project, "stats")["kg"]
        for query, expected in before.items():
            got = json_list(fresh.invoke_json(project, "search", query, "--limit", "5"), "memories")
            assert [json_at(m, "id") for m in got] == [json_at(m, "id") for m in expected], query
            for a, b in zip(got, expected, strict=True):
                assert json_number(a, "final_rank_score") == pytest.approx(json_number(b, "final_rank_score"), abs=0.02)
        assert fresh.invoke_json(project, "show", exchange_id) | {"age": ""} == scored | {"age": ""}

        second = fresh.invoke_json(project, "import", str(export_file))
        assert second["imported"] == 0 and second["skipped_existing"] == exported["memories"]
        assert second["graphs"] == 0 and second["graphs_skipped"] == exported["graphs"]
        assert fresh.invoke_json(project, "stats")["kg"] == kg_once
        assert memory_total(fresh.invoke_json(project, "stats")) == memory_total(stack.invoke_json(project, "stats"))
    finally:
        cli(fresh.env, "down")
