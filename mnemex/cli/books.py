"""Book commands: ingest (with progress and a per-file summary), books, remove."""

from __future__ import annotations

import base64
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mnemex.cli.gateway_client import GatewayClient
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


def _upload(client: GatewayClient, item: IngestItem, source: str) -> FileResult:
    data = item.path.read_bytes()
    body = {
        "title": item.title,
        "filename": item.path.name,
        "source": source or str(item.path.resolve()),
        "data_base64": base64.b64encode(data).decode("ascii"),
    }
    try:
        reply = client.post("/api/ingest", body, timeout=180.0)
    except CliFailure as failure:
        if "not running" in failure.message or "did not answer" in failure.message:
            raise  # the stack is gone: stop, do not report every remaining file as failed
        return FileResult(str(item.path), item.title, "failed", detail=failure.message)
    if reply.get("skipped_unchanged"):
        return FileResult(
            str(item.path), item.title, "unchanged", int(reply.get("chunks", 0)), "already ingested, content unchanged"
        )
    return FileResult(str(item.path), item.title, "ingested", int(reply.get("chunks", 0)))


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
    known = {b["title"]: b.get("content_hash", "") for b in client.get("/api/books").get("books", [])}
    results: list[FileResult] = []
    ready = [i for i in items if i.ready]
    total_bytes = sum(i.size for i in ready)
    chunks_done = 0
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[chunks]} chunks"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    )
    with progress:
        task = progress.add_task("ingesting", total=max(total_bytes, 1), chunks=0)
        for item in items:
            if not item.ready:
                results.append(FileResult(str(item.path), item.title, "skipped", detail=item.skip_reason))
                continue
            progress.update(task, description=escape(item.path.name[:40]))
            if known.get(item.title) == item.sha256:
                result = FileResult(
                    str(item.path), item.title, "unchanged", detail="already ingested, content unchanged"
                )
            else:
                result = _upload(client, item, source)
            chunks_done += result.chunks if result.status == "ingested" else 0
            results.append(result)
            progress.update(task, advance=item.size, chunks=chunks_done)
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
    found: list[dict[str, Any]] = reply.get("books", [])
    if json_output:
        print_json(reply)
        return
    if not found:
        out.print("no books in this project yet: add some with `mnemex ingest PATH`")
        return
    table = Table(show_header=True, header_style="bold")
    for column in ("title", "chunks", "added", "source"):
        table.add_column(column, overflow="fold")
    for book in sorted(found, key=lambda b: b["title"].lower()):
        table.add_row(
            escape(book["title"]),
            str(book.get("chunks", 0)),
            str(book.get("created_at", ""))[:19],
            escape(str(book.get("source", ""))),
        )
    out.print(table)
    out.print(f"{len(found)} books, {sum(int(b.get('chunks', 0)) for b in found)} chunks")


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
    out.print(
        f"removed {escape(title)}: {reply.get('removed_chunks', 0)} chunks, "
        f"{reply.get('kg_references_removed', 0)} knowledge-graph references"
    )
