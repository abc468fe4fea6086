"""``mnemex backfill``: import the conversations Claude Code and OpenCode already keep on disk.

Reading, filtering, batching and the checkpoint live in ``mnemex.backfill``;
this module parses the options, shows progress on a terminal, sends each
batch to the gateway's ``POST /api/backfill`` and prints the summary.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from mnemex.backfill.checkpoint import Checkpoint
from mnemex.backfill.exchange import CLIENTS, Exchange
from mnemex.backfill.plan import Filters
from mnemex.backfill.report import FAILED, SKIPPED, Report
from mnemex.backfill.runner import Backfill, BatchTooLarge
from mnemex.backfill.sources import CLIENT_NAMES, Source, discover
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import EXIT_USAGE, CliFailure, err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()

POST_TIMEOUT = 600.0  # a batch is embedded and extracted before the answer comes
NO_ENDPOINT = (
    "this mnemex stack has no backfill endpoint (POST /api/backfill): it runs an older version; "
    "restart it with this one: mnemex down && mnemex up --detach"
)


class BackfillProgress:
    """Files done, and the current file read (bytes, or messages of an OpenCode session) with its exchanges."""

    def __init__(self, console: Console, files: int, enabled: bool = True) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not (enabled and console.is_terminal),
        )
        self.files = self.progress.add_task("files", total=max(files, 1), unit="files, 0 exchanges sent")
        self.current: TaskID = self.progress.add_task("", total=None, unit="", visible=False)

    def __enter__(self) -> BackfillProgress:
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.progress.stop()

    def start_source(self, source: Source) -> None:
        self.progress.reset(self.current, total=max(source.size, 1), description=escape(source.label[-40:]))
        self.progress.update(self.current, visible=True, unit="0 exchanges")

    def advance(self, done: int, total: int, exchanges: int) -> None:
        self.progress.update(self.current, completed=min(done, total), unit=f"{exchanges} exchanges")

    def source_done(self) -> None:
        self.progress.update(self.current, visible=False)
        self.progress.update(self.files, advance=1)

    def batch_sent(self, sent_total: int) -> None:
        self.progress.update(self.files, unit=f"files, {sent_total} exchanges sent")


def chosen_clients(values: list[str]) -> tuple[str, ...]:
    names = [n.strip().lower() for value in values for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in CLIENTS]
    if unknown:
        fail(f"unknown client {', '.join(map(repr, unknown))}; valid clients: {', '.join(CLIENTS)}", code=EXIT_USAGE)
    return tuple(c for c in CLIENTS if c in names) or CLIENTS


def parse_since(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail(f"--since takes a day as YYYY-MM-DD, not {value!r}", code=EXIT_USAGE)


def gateway_poster(client: GatewayClient) -> Any:
    def post(exchanges: list[Exchange], dry_run: bool) -> Any:
        try:
            return client.post("/api/backfill", {"exchanges": exchanges, "dry_run": dry_run}, timeout=POST_TIMEOUT)
        except CliFailure as failure:
            if failure.message.startswith("too large for the gateway"):
                raise BatchTooLarge(failure.message) from None
            if failure.message in ("Not Found", "Method Not Allowed"):
                raise CliFailure(NO_ENDPOINT) from None
            raise

    return post


def print_summary(report: Report) -> None:
    verb = "would be stored" if report.dry_run else "stored"
    if report.projects:
        table = Table(show_header=True, header_style="bold")
        for column in ("project", verb, "already stored"):
            table.add_column(column, overflow="fold")
        for name, counts in sorted(report.projects.items()):
            table.add_row(escape(name), str(counts.stored), str(counts.existing))
        out.print(table)
    for result in report.sources:
        if result.status in (SKIPPED, FAILED) or result.detail:
            style = "red" if result.status == FAILED else "yellow"
            out.print(f"[{style}]{result.status}[/] {escape(result.path)}: {escape(result.detail)}")
    files = f"{report.count('read')} read, {report.count('unchanged')} unchanged (skipped quickly), "
    files += f"{report.count(SKIPPED)} skipped, {report.count(FAILED)} failed"
    out.print(f"files: {files}")
    filtered = f" ({report.filtered_out} left out by --since/--project)" if report.filtered_out else ""
    out.print(
        f"exchanges: {report.found} found{filtered}, {report.stored} {verb}, {report.existing} already stored; "
        f"{report.observations} tool observations"
    )
    if report.dry_run:
        out.print("dry run: nothing was written. Import them with: mnemex backfill")


@app.command(epilog="Example: mnemex backfill --since 2026-01-01 --project ~/code/shop --dry-run")
def backfill(
    client: list[str] = typer.Option(
        [], "--client", "-c", help="claude, opencode, cursor (commas or repeated). Default: every client found."
    ),
    since: str | None = typer.Option(None, "--since", help="Only exchanges from this day on (YYYY-MM-DD, UTC)."),
    project: Path | None = typer.Option(
        None, "--project", help="Only exchanges whose working directory is inside PATH."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be stored, per project; write nothing."),
    rescan: bool = typer.Option(False, "--rescan", help="Read every file again, ignoring the checkpoint."),
    json_output: bool = typer.Option(False, "--json", help="Print a machine-readable summary; no progress bars."),
) -> None:
    """Import past conversations from Claude Code and OpenCode into mnemex (your history, per project).

    Each exchange (prompt, final answer, tools used) is stored under the project
    of its working directory, dated when it happened. Re-running is cheap and
    safe: unchanged files are skipped, and nothing is ever stored twice.
    Progress is checkpointed in <mnemex home>/backfill, so an interrupted run resumes.
    """
    clients = chosen_clients(client)
    filters = Filters(since=parse_since(since), project=project.expanduser().resolve() if project else None)
    settings = load_settings()
    gateway = GatewayClient(settings)
    gateway.get("/api/health")  # a stopped stack fails here, before any reading
    discovery = discover(Path.home(), clients)
    if not discovery.sources and not discovery.unreadable:
        named = [CLIENT_NAMES[c] for c in clients]
        names = f"{', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else named[0]
        message = f"no {names} history found under {Path.home()}"
        if json_output:
            print_json({"dry_run": dry_run, "message": message, **Report(dry_run).to_json()})
        else:
            out.print(message)
        return
    checkpoint = None if rescan else Checkpoint.load(settings.home / "backfill" / "checkpoint.json")
    with BackfillProgress(err, len(discovery.sources), enabled=not json_output) as display:
        runner = Backfill(gateway_poster(gateway), display, filters, checkpoint, dry_run)
        try:
            report = runner.run(discovery)
        except KeyboardInterrupt:
            fail(f"interrupted after {runner.report.sent} exchanges; run `mnemex backfill` again to continue")
    if json_output:
        print_json(report.to_json())
    else:
        print_summary(report)
    if report.count(FAILED):
        raise typer.Exit(1)
