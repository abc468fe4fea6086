"""``mnemex backfill``: import the conversations Claude Code and OpenCode already keep on disk.

Reading, filtering, batching and the checkpoint live in ``mnemex.backfill``;
this module parses the options, shows progress on a terminal, sends each
batch to the gateway's ``POST /api/backfill`` and prints the summary.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from types import TracebackType

import typer
from rich.console import Console
from rich.table import Table

from kernel.json_values import JSONValue
from mnemex.backfill.backfill_run import Backfill, BatchTooLarge
from mnemex.backfill.checkpoint import Checkpoint
from mnemex.backfill.exchange import CLIENTS, Exchange
from mnemex.backfill.plan import Filters
from mnemex.backfill.report import FAILED, SKIPPED, Report
from mnemex.backfill.sources import CLIENT_NAMES, Source, discover
from mnemex.cli.file_progress import FileProgress
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import EXIT_USAGE, CliFailure, err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C
app = typer.Typer()

POST_TIMEOUT = 600.0  # a batch is embedded and extracted before the answer comes
NO_ENDPOINT = (
    "this mnemex stack has no backfill endpoint (POST /api/backfill): it runs an older version; "
    "restart it with this one: mnemex down && mnemex up --detach"
)


def byte_amount(done: int, total: int) -> str:
    """``1.2/2.5 MB``: both numbers in the unit of the total."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if total >= size:
            return f"{done / size:.1f}/{total / size:.1f} {unit}"
    return f"{done}/{total} B"


def amount(source: Source, done: int) -> str:
    """How far into a source: bytes of a Claude Code file, messages of an OpenCode session."""
    if source.client == "opencode":
        return f"{done}/{source.size} msgs"
    return byte_amount(done, source.size)


def claude_project(path: Path) -> str:
    """The folder name of the session's working directory (its first ``cwd``), else the encoded folder name."""
    try:
        with path.open("rb") as handle:
            head = handle.read(65536).decode("utf-8", errors="replace")
    except OSError:
        head = ""
    for line in head.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("cwd"), str) and entry["cwd"]:
            return Path(entry["cwd"]).name or entry["cwd"]
    return path.parent.name.lstrip("-")


def describe(source: Source, width: int = 30) -> str:
    """``project: what`` in at most ``width`` characters, the project first (it is what the user recognises)."""
    if source.session is not None:
        project, what = Path(source.session.directory).name or "?", source.label.partition(": ")[2]
    else:
        project, what = claude_project(source.path), source.path.stem[:8]
    project = project if len(project) <= 14 else "…" + project[-13:]
    text = f"{project}: {what}"
    return text if len(text) <= width else text[: width - 1] + "…"


class BackfillDisplay:
    """The run's progress (``mnemex.backfill.backfill_run.Display``) on a ``FileProgress``.

    Files done with the exchanges sent, and the current source (bytes, or messages of an OpenCode
    session) with its exchanges. On a terminal: two live bars that fit 80 columns. Without one
    (piped, a CI log): a plain line every ``line_every`` seconds, so a long run is never silent.
    """

    def __init__(
        self,
        console: Console,
        files: int,
        enabled: bool = True,
        line_every: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.progress = FileProgress(
            console,
            files,
            files_unit="0 exchanges sent",
            bar_width=14,
            enabled=enabled,
            line_every=line_every,
            clock=clock,
        )
        self.sent_total = 0
        self.source: Source | None = None
        self.done = self.exchanges = 0

    def __enter__(self) -> BackfillDisplay:
        self.progress.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.progress.__exit__(kind, exc, tb)

    def _line(self) -> str:
        files = self.progress
        line = f"backfill: file {min(files.files_done + 1, files.files_total)}/{files.files_total}"
        if self.source is not None:
            line += f" {describe(self.source, 26)} {amount(self.source, self.done)}"
        return line + f", {self.exchanges} exchanges ({self.sent_total} sent)"

    def start_source(self, source: Source) -> None:
        self.source, self.done, self.exchanges = source, 0, 0
        self.progress.start_file(describe(source), total=max(source.size, 1), amount=amount(source, 0), unit="0 exch")
        self.progress.line(self._line)

    def advance(self, done: int, total: int, exchanges: int) -> None:
        self.done, self.exchanges = min(done, total), exchanges
        if self.source is not None:
            self.progress.update_file(self.done, amount=amount(self.source, self.done), unit=f"{exchanges} exch")
        self.progress.line(self._line)

    def source_done(self) -> None:
        self.progress.file_done()
        self.progress.line(self._line)

    def batch_sent(self, sent_total: int) -> None:
        self.sent_total = sent_total
        self.progress.set_files_unit(f"{sent_total} exchanges sent")
        self.progress.line(self._line)


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


def gateway_poster(client: GatewayClient) -> Callable[[list[Exchange], bool], JSONValue]:
    def post(exchanges: list[Exchange], dry_run: bool) -> JSONValue:
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
    With --json a failure prints {"error": ..., "exit_code": ...} on stdout too; Ctrl-C exits 130.
    """
    try:
        run_backfill(client, since, project, dry_run, rescan, json_output)
    except KeyboardInterrupt:
        failure = CliFailure("interrupted; run `mnemex backfill` again to continue", EXIT_INTERRUPTED)
        if json_output:
            print_json({"error": failure.message, "exit_code": failure.code})
        raise failure from None
    except CliFailure as failure:
        if json_output:
            print_json({"error": failure.message, "exit_code": failure.code})
        raise


def run_backfill(
    client: list[str], since: str | None, project: Path | None, dry_run: bool, rescan: bool, json_output: bool
) -> None:
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
    with BackfillDisplay(err, len(discovery.sources), enabled=not json_output) as display:
        runner = Backfill(gateway_poster(gateway), display, filters, checkpoint, dry_run)
        try:
            report = runner.run(discovery)
        except KeyboardInterrupt:
            fail(
                f"interrupted after {runner.report.sent} exchanges; run `mnemex backfill` again to continue",
                code=EXIT_INTERRUPTED,
            )
    if json_output:
        print_json(report.to_json())
    else:
        print_summary(report)
    if report.count(FAILED):
        raise typer.Exit(1)
