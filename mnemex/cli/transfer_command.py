"""Moving memory: export, import, import-roampal (all through the gateway)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from kernel.json_values import JSONValue, as_object, int_at, list_at
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

if TYPE_CHECKING:
    from mnemex.roampal_import.records import ConversionTally

app = typer.Typer()

FORMAT_NAME = "mnemex-export"
BATCH_BYTES = 1024 * 1024  # per /api/import request; the gateway re-embeds each batch
TALLY_KEYS = ("imported", "skipped_existing", "invalid", "graphs", "graphs_skipped", "kg_nodes", "kg_edges")


def batches(lines: Iterable[bytes], limit: int = BATCH_BYTES) -> Iterator[list[bytes]]:
    """Group JSONL lines into request bodies of about ``limit`` bytes (a long line goes alone)."""
    batch: list[bytes] = []
    size = 0
    for line in lines:
        if not line.strip():
            continue
        if batch and size + len(line) > limit:
            yield batch
            batch, size = [], 0
        batch.append(line if line.endswith(b"\n") else line + b"\n")
        size += len(line)
    if batch:
        yield batch


@dataclass
class ImportTally:
    """The gateway's /api/import counts summed over the batches, and the first errors it reported."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TALLY_KEYS, 0))
    errors: list[JSONValue] = field(default_factory=list)
    would_send: int | None = None  # a dry run: how many lines it would have sent

    def as_json(self) -> dict[str, object]:
        data: dict[str, object] = {**self.counts, "errors": self.errors}
        if self.would_send is not None:
            data["would_send"] = self.would_send
        return data


def send(client: GatewayClient, lines: Iterable[bytes], keep_user: bool = False) -> ImportTally:
    """POST the lines in batches; returns the summed tally (and the first errors)."""
    total = ImportTally()
    with err.status("importing ...") as status:
        for number, batch in enumerate(batches(lines), 1):
            body = b"".join(batch)
            reply = as_object(
                client.post_stream(
                    "/api/import",
                    body,
                    "application/x-ndjson",
                    params={"keep_user": str(keep_user).lower()},
                    timeout=600.0,
                    length=len(body),
                )
            )
            for key in TALLY_KEYS:
                total.counts[key] += int_at(reply, key)
            total.errors += list_at(reply, "errors")[: max(0, 10 - len(total.errors))]
            status.update(
                f"importing ... batch {number}: {total.counts['imported']} new, "
                f"{total.counts['skipped_existing']} already present"
            )
    return total


def print_tally(tally: ImportTally, json_output: bool, extra: Mapping[str, object] | None = None) -> None:
    if json_output:
        print_json({**tally.as_json(), **(extra or {})})
        return
    counts = tally.counts
    out.print(
        f"{counts['imported']} memories imported, {counts['skipped_existing']} already present, "
        f"{counts['invalid']} invalid; {counts['graphs']} knowledge graphs merged "
        f"({counts['kg_nodes']} nodes, {counts['kg_edges']} edges), {counts['graphs_skipped']} skipped (already there)"
    )
    for error in tally.errors:
        err.print(f"[yellow]skipped[/] {escape(str(error))}")


@app.command("export", epilog="Example: mnemex export ~/mnemex-backup.jsonl")
def export_(
    file: Path = typer.Argument(..., help="Where to write the JSONL ('-' for stdout)."),
    json_output: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Write every memory (full metadata and scores) and the knowledge graphs to a portable JSONL file."""
    if str(file) != "-" and not file.resolve().parent.is_dir():
        fail(f"cannot write {file}: the directory {file.resolve().parent} does not exist; create it first")
    client = GatewayClient(load_settings())
    counts = {"memories": 0, "graphs": 0}
    ended = False
    to_stdout = str(file) == "-"
    target = (
        sys.stdout.buffer
        if to_stdout
        else tempfile.NamedTemporaryFile(  # noqa: SIM115
            "wb", dir=file.resolve().parent, prefix=f".{file.name}.", delete=False
        )
    )
    try:
        for line in client.stream_lines("POST", "/api/export", timeout=600.0):
            kind = json.loads(line).get("type") if line.strip() else None
            if kind == "error":
                fail(f"the export was cut short: {json.loads(line).get('error')}; nothing was written, retry")
            counts["memories"] += kind == "memory"
            counts["graphs"] += kind == "kg"
            ended = ended or kind == "end"
            target.write(line)
        if not ended:
            fail("the export stream ended early (no end marker); nothing was written, retry")
        if not to_stdout:
            target.close()
            os.replace(target.name, file)
    finally:
        if not to_stdout and not target.closed:
            target.close()
            os.unlink(target.name)
    if to_stdout:
        return
    if json_output:
        print_json({"file": str(file), **counts})
    else:
        out.print(
            f"exported {counts['memories']} memories and {counts['graphs']} knowledge graphs to {escape(str(file))}"
        )


@app.command("import", epilog="Example: mnemex import ~/mnemex-backup.jsonl")
def import_(
    file: Path = typer.Argument(
        ..., exists=True, dir_okay=False, readable=True, help="A file made by `mnemex export`."
    ),
    keep_user: bool = typer.Option(
        False, "--keep-user", help="Refuse records that name another user (default: import them as yours)."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Import a `mnemex export` file. Vectors are re-made; ids already present are skipped (no duplicates)."""
    with open(file, "rb") as handle:
        first = handle.readline()
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            fail(
                f"{file} is not a mnemex export (its first line is not a {FORMAT_NAME} header); "
                "make one with `mnemex export FILE`, or use `mnemex import-roampal DIR` for Roampal data"
            )
        handle.seek(0)
        tally = send(GatewayClient(load_settings()), handle, keep_user)
    print_tally(tally, json_output)
    if tally.counts["invalid"] and not tally.counts["imported"] and not tally.counts["skipped_existing"]:
        raise typer.Exit(1)


def roampal_lines(directory: Path, tally: ConversionTally, merge_graph: bool = False) -> Iterator[bytes]:
    from mnemex.roampal_import.reader import locate, read_knowledge_graph, read_records

    source = locate(directory)
    if source.chroma_dir is not None:
        for record in read_records(source.chroma_dir, tally):
            yield json.dumps({"type": "memory", "record": record}, ensure_ascii=False).encode("utf-8")
    if source.kg_file is not None:
        graph = read_knowledge_graph(source.kg_file)
        line = {"type": "kg", "graph": graph, **({} if merge_graph else {"when": "empty"})}
        yield json.dumps(line, ensure_ascii=False).encode("utf-8")


@app.command("import-roampal", epilog="Example: mnemex import-roampal ~/AppData/Roaming/Roampal/data")
def import_roampal(
    directory: Path | None = typer.Argument(
        None,
        help="Roampal's data directory (holding chromadb/ and knowledge_graph.json); "
        "default: where Roampal keeps it on this system (~/.local/share/roampal/data on Linux).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Read and convert, but import nothing."),
    merge_graph: bool = typer.Option(
        False,
        "--merge-graph",
        help="Add Roampal's graph counts even if this project's knowledge graph already has data.",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Import Roampal's books, working, history, patterns and memory_bank (with scores) and its knowledge graph.

    Memories go into the project of the current directory (memory_bank is user-wide).
    Roampal's files are only read: its Chroma directory is copied before it is opened.
    Running it again imports nothing twice: known ids are skipped, and the graph is
    merged only into a project whose knowledge graph is still empty (see --merge-graph).
    """
    from mnemex.roampal_import.reader import RoampalDirError
    from mnemex.roampal_import.records import ConversionTally

    conversion = ConversionTally()
    try:
        if directory is None:
            from mnemex.roampal_import.reader import find_default

            directory = find_default()
            if not json_output:
                out.print(f"Roampal data found in {escape(str(directory))}")
        if dry_run:
            lines = list(roampal_lines(directory, conversion, merge_graph))
            tally = ImportTally(would_send=len(lines))
        else:
            tally = send(GatewayClient(load_settings()), roampal_lines(directory, conversion, merge_graph))
    except RoampalDirError as exc:
        fail(str(exc))
    summary = {
        "read": dict(conversion.read),
        "converted": dict(conversion.converted),
        "skipped": dict(conversion.skipped),
    }
    if json_output:
        print_tally(tally, True, summary)
        return
    table = Table(show_header=True, header_style="bold", title="Roampal collections")
    for column in ("collection", "rows read", "converted"):
        table.add_column(column)
    for name in sorted(conversion.read):
        table.add_row(name, str(conversion.read[name]), str(conversion.converted[name]))
    out.print(table)
    if conversion.skipped:
        out.print("skipped rows: " + ", ".join(f"{k} {v}" for k, v in conversion.skipped.items()))
    if dry_run:
        out.print(f"dry run: {tally.would_send} lines would be imported; nothing was sent")
    else:
        print_tally(tally, False)
