"""`mnemex ingest` follows the gateway's chunk progress, against the real stack (`mnemex up --detach`)."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import pytest
from rich.console import Console

from kernel.config import Settings
from mnemex.cli.books_command import chunk_progress, ingest_display, upload
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.ingest_files import classify
from services.memory.usecases.book_ingest import EMBED_BATCH
from tests.support.cli_stack import RunningStack
from tests.support.json_read import json_at, json_list, json_str

pytestmark = pytest.mark.slow


def runbook(sections: int = 45) -> str:
    """About 1.25 chunks per section: several embedding batches."""
    return "\n\n".join(
        f"Section {i}. "
        + " ".join(f"When queue worker {i}-{j} stalls, drain it and restart the pool." for j in range(16))
        for i in range(sections)
    )


def project(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return path


def test_upload_drives_the_chunk_bar_to_the_end(stack: RunningStack, tmp_path: Path) -> None:
    repo = project(tmp_path)
    (repo / "runbook.md").write_text(runbook())
    item = classify(repo / "runbook.md", "Queue Runbook")
    client = GatewayClient(Settings.from_env(stack.env), cwd=str(repo))
    screen = io.StringIO()
    display = ingest_display(Console(file=screen, force_terminal=True, width=100), files=1)
    on_chunks = chunk_progress(display)
    seen: list[tuple[int, int]] = []

    def follow(total: int, done: int) -> None:
        seen.append((total, done))
        on_chunks(total, done)

    with display:
        display.start_file(item.path.name, total=None, amount="0/?", unit="chunks")
        result = upload(client, item, "", follow)
        bar = display.progress.tasks[display.current]
        assert (bar.total, bar.completed) == (result.chunks, result.chunks)
        display.file_done(f"files, {result.chunks} chunks stored")

    assert result.status == "ingested" and result.chunks > EMBED_BATCH
    assert {total for total, _ in seen} == {result.chunks}
    done = [d for _, d in seen]
    assert done[0] == 0 and done[-1] == result.chunks
    assert all(a < b for a, b in itertools.pairwise(done)), done
    assert "runbook.md" in screen.getvalue()  # drawn on a terminal

    quiet = io.StringIO()
    with ingest_display(Console(file=quiet, force_terminal=False), files=1) as off:
        off.start_file("runbook.md", total=None, amount="0/?", unit="chunks")
        chunk_progress(off)(10, 10)
        off.file_done("files, 10 chunks stored")
    assert quiet.getvalue() == ""  # not a terminal: no bar at all


def test_ingest_json_output_and_resume_are_unchanged(stack: RunningStack, tmp_path: Path) -> None:
    repo = project(tmp_path)
    docs = repo / "docs"
    docs.mkdir()
    (docs / "runbook.md").write_text(runbook(30))
    (docs / "notes.txt").write_text("The pager rota lives in ops/rota.md.\n")
    (docs / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")

    first = stack.invoke(repo, "ingest", str(docs), "--json")
    assert first.exit_code == 1, first.output  # broken.pdf failed; the rest went in
    report = json.loads(first.stdout)
    status = {Path(f["path"]).name: f for f in report["files"]}
    assert {name: f["status"] for name, f in status.items()} == {
        "broken.pdf": "failed",
        "diagram.png": "skipped",
        "notes.txt": "ingested",
        "runbook.md": "ingested",
    }
    assert "PDF" in status["broken.pdf"]["detail"]
    books = {json_str(b, "title"): json_at(b, "chunks") for b in json_list(stack.invoke_json(repo, "books"), "books")}
    assert books == {"runbook": status["runbook.md"]["chunks"], "notes": 1}
    assert status["runbook.md"]["chunks"] > EMBED_BATCH
    assert report["chunks"] == status["runbook.md"]["chunks"] + 1
    assert report["counts"] == {"ingested": 2, "unchanged": 0, "skipped": 1, "failed": 1}

    again = json.loads(stack.invoke(repo, "ingest", str(docs / "runbook.md"), str(docs / "notes.txt"), "--json").stdout)
    assert again["counts"] == {"ingested": 0, "unchanged": 2, "skipped": 0, "failed": 0} and again["chunks"] == 0
