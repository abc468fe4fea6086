"""Book commands: ingest (with chunk progress and a per-file summary), books, remove."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from kernel.json_values import JSONObject, as_object, int_at, objects_at, str_at, value_at
from mnemex.cli.file_progress import FileProgress, done_of
from mnemex.cli.gateway_client import GatewayClient, http_failure
from mnemex.cli.ingest_files import IngestItem, collect
from mnemex.cli.output import CliFailure, err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()

STATUS_STYLE = {"ingested": "green", "unchanged": "cyan", "skipped": "yellow", "failed": "red"}


@dataclass
class FileResult:
    path: str
    title: str
    status: str  # ingested | unchanged | skipped | failed
    chunks: int = 0
    detail: str = ""


def ingest_display(console: Console, files: int) -> FileProgress:
    """Files done with the chunks stored so far, and the current file's chunks (on a terminal only)."""
    return FileProgress(console, files, files_unit="files, 0 chunks stored")


def chunk_progress(display: FileProgress) -> Callable[[int, int], None]:
    """``upload``'s ``on_chunks``: the gateway's progress line, ``done`` of ``total`` chunks embedded and stored."""

    def on_chunks(total: int, done: int) -> None:
        total = max(total, 1)
        display.update_file(done, total=total, amount=done_of(done, total), unit="chunks")

    return on_chunks


def upload(
    client: GatewayClient, item: IngestItem, source: str, on_chunks: Callable[[int, int], None] | None = None
) -> FileResult:
    """Send one file; ``on_chunks(total, done)`` follows the gateway's progress lines."""
    data = item.path.read_bytes()
    body = {
        "title": item.title,
        "filename": item.path.name,
        "source": source or str(item.path.resolve()),
        "data_base64": base64.b64encode(data).decode("ascii"),
    }
    reply: JSONObject | None = None
    try:
        for line in client.post_lines("/api/ingest", body, params={"progress": "ndjson"}, timeout=180.0):
            event = as_object(line)
            kind = value_at(event, "type")
            if kind == "progress" and on_chunks is not None:
                on_chunks(int_at(event, "chunks_total"), int_at(event, "chunks_done"))
            elif kind == "result" or (kind is None and "chunks" in event):  # None: a gateway without progress
                reply = event
            elif kind == "error":
                raise http_failure(int_at(event, "status") or 500, json.dumps(event).encode(), client.settings)
    except CliFailure as failure:
        if "not running" in failure.message or "did not answer" in failure.message:
            raise  # the stack is gone: stop, do not report every remaining file as failed
        return FileResult(str(item.path), item.title, "failed", detail=failure.message)
    if reply is None:
        detail = "the gateway's answer ended before the result; check `mnemex status`, then retry"
        return FileResult(str(item.path), item.title, "failed", detail=detail)
    if reply.get("skipped_unchanged"):
        return FileResult(
            str(item.path), item.title, "unchanged", int_at(reply, "chunks"), "already ingested, content unchanged"
        )
    return FileResult(str(item.path), item.title, "ingested", int_at(reply, "chunks"))


def _summary_table(results: list[FileResult]) -> Table:
    table = Table(show_header=True, header_style="bold")
    for column in ("file", "title", "status", "chunks", "detail"):
        table.add_column(column, overflow="fold")
    for r in results:
        style = STATUS_STYLE.get(r.status, "")
        table.add_row(
            escape(r.path), escape(r.title), f"[{style}]{r.status}[/]", str(r.chunks or "-"), escape(r.detail)
        )
    return table


@app.command(epilog="Example: mnemex ingest docs/ notes/architecture.md --source handbook")
def ingest(
    paths: list[Path] = typer.Argument(..., help="Files or directories of .txt, .md and .pdf files."),
    title: str | None = typer.Option(None, "--title", help="Title for a single file (default: its name)."),
    source: str = typer.Option("", "--source", help="Where the documents come from (default: the file path)."),
    json_output: bool = typer.Option(False, "--json", help="Print the per-file results as JSON."),
) -> None:
    """Chunk, embed and store documents in this project's books collection.

    Re-running is cheap: files whose content did not change are skipped.
    Unsupported or oversized (over 10 MB) files are reported and skipped; the rest continue.
    """
    if title and (len(paths) != 1 or paths[0].is_dir()):
        fail("--title names a single file; drop it when ingesting several files or a directory", code=2)
    items = collect(paths, title)
    if not items:
        fail("no files found under the given paths")
    client = GatewayClient(load_settings())
    known = {
        str_at(b, "title"): b.get("content_hash", "") for b in objects_at(as_object(client.get("/api/books")), "books")
    }
    results: list[FileResult] = []
    ready = [i for i in items if i.ready]
    chunks_done = 0
    with ingest_display(err, files=len(ready)) as display:
        for item in items:
            if not item.ready:
                results.append(FileResult(str(item.path), item.title, "skipped", detail=item.skip_reason))
                continue
            display.start_file(item.path.name[:40], total=None, amount=done_of(0, None), unit="chunks")
            if known.get(item.title) == item.sha256:
                result = FileResult(
                    str(item.path), item.title, "unchanged", detail="already ingested, content unchanged"
                )
            else:
                result = upload(client, item, source, chunk_progress(display))
            chunks_done += result.chunks if result.status == "ingested" else 0
            results.append(result)
            display.file_done(f"files, {chunks_done} chunks stored")
    counts = {status: sum(r.status == status for r in results) for status in STATUS_STYLE}
    if json_output:
        print_json({"files": [asdict(r) for r in results], "counts": counts, "chunks": chunks_done})
    else:
        out.print(_summary_table(results))
        out.print(
            f"{counts['ingested']} ingested ({chunks_done} chunks), {counts['unchanged']} unchanged, "
            f"{counts['skipped']} skipped, {counts['failed']} failed"
        )
    if counts["failed"]:
        raise typer.Exit(1)


@app.command(epilog="Example: mnemex books --json")
def books(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List this project's books with their chunk counts."""
    reply = GatewayClient(load_settings()).get("/api/books")
    found = list(objects_at(as_object(reply), "books"))
    if json_output:
        print_json(reply)
        return
    if not found:
        out.print("no books in this project yet: add some with `mnemex ingest PATH`")
        return
    table = Table(show_header=True, header_style="bold")
    for column in ("title", "chunks", "added", "source"):
        table.add_column(column, overflow="fold")
    for book in sorted(found, key=lambda b: str_at(b, "title").lower()):
        table.add_row(
            escape(str_at(book, "title")),
            str(book.get("chunks", 0)),
            str(book.get("created_at", ""))[:19],
            escape(str(book.get("source", ""))),
        )
    out.print(table)
    out.print(f"{len(found)} books, {sum(int_at(b, 'chunks') for b in found)} chunks")


@app.command(epilog='Example: mnemex remove "Style Guide"')
def remove(
    title: str = typer.Argument(..., help="The book's title, as `mnemex books` lists it."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Delete every chunk of a book and its references in the knowledge graph."""
    reply = GatewayClient(load_settings()).post("/api/books/remove", {"title": title})
    if json_output:
        print_json(reply)
        return
    removed = as_object(reply)
    out.print(
        f"removed {escape(title)}: {removed.get('removed_chunks', 0)} chunks, "
        f"{removed.get('kg_references_removed', 0)} knowledge-graph references"
    )
