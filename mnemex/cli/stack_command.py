"""Stack commands: up, down, status, mcp, init, uninit."""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import typer

from mnemex.cli.output import EXIT_FAILURE, EXIT_USAGE, err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings
from mnemex.supervisor.foreground import announce_ready, next_step, ready_table

if TYPE_CHECKING:
    from rich.console import Console

    from kernel.config import Settings
    from mnemex.client_setup.detect import Found
    from mnemex.client_setup.result import SetupResult
    from mnemex.supervisor.status_report import StatusReport
    from mnemex.supervisor.supervisor_loop import Supervisor

app = typer.Typer()

# Set by ``mnemex.cli.main`` (a real ``mnemex up``, not a test's CliRunner): the foreground
# ``up`` then replaces this process with the lean supervisor (``mnemex.supervisor.foreground``).
hand_over_foreground = False


@app.command(epilog="Example: mnemex up --detach")
def up(
    detach: bool = typer.Option(False, "--detach", "-d", help="Run in the background (logs in $MNEMEX_HOME/logs)."),
    only: list[str] = typer.Option(
        [], "--only", help="Start only this service (repeatable): embedding, memory, kg, gateway."
    ),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="With --detach: wait until the stack is healthy."),
    ready_timeout: float = typer.Option(120.0, "--ready-timeout", help="Seconds to wait for health before giving up."),
    json_output: bool = typer.Option(False, "--json", help="With --detach: print the stack's status as JSON."),
) -> None:
    """Start the embedding, memory and kg services and the gateway on loopback.

    Waits until all are healthy, prints what listens where, and supervises them
    (crashed services restart with backoff) until Ctrl-C or SIGTERM.
    """
    from kernel.config import ConfigError
    from kernel.home_safety import protect_home
    from mnemex.supervisor.launch import StackOptions, run_stack

    settings = load_settings()
    if json_output and not detach:
        fail("--json needs --detach: a foreground stack runs until Ctrl-C (use `mnemex status --json`)", EXIT_USAGE)
    say = err if json_output else out  # with --json, stdout holds the JSON alone
    try:
        protect_home(settings.home)  # a read-only or shared home: one line that says the fix, not a traceback
    except ConfigError as exc:
        fail(f"mnemex cannot start: {exc}")
    if not only or "embedding" in only:
        from services.embedding.first_start import prepare_model

        try:  # first start: not 30 s of silence
            prepare_model(report=lambda line: say.print(escape(f"mnemex: {line}")))
        except ConfigError as exc:  # no model installed, or damaged weights: one line with the fix
            fail(f"mnemex cannot start: {exc}")
    if detach:
        _up_detached(settings, only, wait, ready_timeout, json_output, say)
        return

    if hand_over_foreground:
        from mnemex.supervisor.foreground import command

        sys.stdout.flush()
        sys.stderr.flush()
        argv = command(only, ready_timeout)
        # MNEMEX_HOME in its environment is how `mnemex down` finds this supervisor without its run files.
        os.execve(argv[0], argv, {**os.environ, "MNEMEX_HOME": str(settings.home)})

    def on_ready(supervisor: Supervisor) -> None:
        announce_ready(settings, supervisor)

    code = run_stack(
        settings,
        StackOptions(only=tuple(only), ready_timeout=ready_timeout),
        report=lambda message: err.print(escape(message)),
        on_ready=on_ready,
    )
    if code:
        raise typer.Exit(code)


def _up_detached(
    settings: Settings, only: list[str], wait: bool, ready_timeout: float, json_output: bool, say: Console
) -> None:
    from mnemex.supervisor import control
    from mnemex.supervisor.state import RunPaths, running_supervisor_pid

    paths = RunPaths(settings.home)
    pid = running_supervisor_pid(paths)
    if pid is not None:
        if json_output:
            print_json(control.collect_status(settings))
            return
        out.print(f"mnemex is already running (supervisor pid {pid}); gateway {settings.gateway_url}")
        out.print(f"viewer: {settings.gateway_url}/ui")
        return
    _refuse_taken_ports(settings, only, say)
    started = time.monotonic()
    pid = control.start_detached(settings, only, ready_timeout)
    if not wait:
        if json_output:
            print_json({"supervisor_pid": pid, "logs": str(paths.logs_dir), "ready": None})
            return
        out.print(f"mnemex supervisor started in the background (pid {pid}); logs in {paths.logs_dir}")
        return
    settled = control.wait_settled(settings, ready_timeout)
    report = control.collect_status(settings)
    if json_output and settled == "running":
        print_json({**report, "ready_seconds": round(time.monotonic() - started, 1)})
        return
    if settled == "degraded":
        _print_rows(report)
        fail(
            "mnemex started without "
            + "; ".join(control.broken_services(report))
            + ". Run `mnemex doctor`; `mnemex repair` mends a broken store (stop the stack first: mnemex down)"
        )
    if settled != "running":
        from mnemex.supervisor.launch import log_tail

        why = "; ".join(control.broken_services(report)) if report["services"] else ""
        fail(
            f"mnemex did not start ({settled}): {why or 'see the log'}; supervisor log "
            f"{paths.log_file('supervisor')}:\n{log_tail(str(paths.log_file('supervisor')), 8)}"
        )
    out.print(f"mnemex is ready in {time.monotonic() - started:.1f} s (supervisor pid {pid}, detached)")
    _print_rows(report)
    out.print(f"viewer: {settings.gateway_url}/ui   (or: mnemex ui)")
    out.print(escape(next_step()))


def _refuse_taken_ports(settings: Settings, only: list[str], say: Console) -> None:
    """Before a detached start: a port another program holds is the one line the user needs, not a table of
    services that never came up. Processes this home's dead supervisor left behind are stopped first."""
    from mnemex.supervisor.launch import busy_ports, port_conflict_message, reclaim_leftovers
    from mnemex.supervisor.specs import stack_specs

    leftovers = reclaim_leftovers(settings)
    if leftovers:
        say.print(
            escape(
                f"stopped {len(leftovers)} process(es) of {settings.home} that a stopped supervisor left running: "
                + ", ".join(p.describe() for p in leftovers)
            )
        )
    conflicts = busy_ports(stack_specs(settings, tuple(only)))
    if conflicts:
        fail("mnemex cannot start: " + " ".join(port_conflict_message(spec) for spec in conflicts))


@app.command(epilog="Example: mnemex down")
def down(
    timeout: float = typer.Option(20.0, help="Seconds to wait for a clean stop before killing."),
    json_output: bool = typer.Option(False, "--json", help="Print what was stopped as JSON."),
) -> None:
    """Stop a stack started with `mnemex up --detach` (or a foreground one, from another shell).

    Also stops any process of this home that no supervisor watches any more (found by its
    MNEMEX_HOME on Linux), so a missing or stale state file never leaves one running.
    """
    from mnemex.supervisor import control

    settings = load_settings()
    stopped = control.stop_home(settings, timeout=timeout)
    if json_output:
        print_json(
            {
                "home": str(settings.home),
                "stopped": stopped.anything,
                "supervisor_pid": stopped.supervisor_pid,
                "leftovers": [{"pid": p.pid, "name": p.name} for p in stopped.leftovers],
                "message": stopped.describe(settings.home),
            }
        )
        return
    out.print(escape(stopped.describe(settings.home)))


def _print_rows(report: StatusReport) -> None:
    rows: list[dict[str, object]] = []
    for name, service in report["services"].items():
        row: dict[str, object] = {"name": name, **service}
        if not service["healthy"] and service["status"] == "healthy":
            row["status"] = "unhealthy"
        rows.append(row)
    out.print(ready_table(rows))


@app.command(epilog="Example: mnemex status --json | jq .services.memory.restarts")
def status(json_output: bool = typer.Option(False, "--json", help="Print machine-readable JSON.")) -> None:
    """Show each service's state, pid, address and restart count. Exit 1 unless all are healthy."""
    from mnemex.supervisor.control import collect_status

    settings = load_settings()
    report = collect_status(settings)
    opt_out = _opt_out(settings)
    free = _disk_free(settings.home)
    other_home_at = None if report["running"] else _other_home_answering(settings)
    if json_output:
        extra = {"opt_out": opt_out, "disk_free_bytes": free}
        print_json({**report, **extra, **({} if report["running"] else {"other_home_at": other_home_at})})
    else:
        sup = report["supervisor"]
        if report["running"]:
            since = _since(sup["started_at"])
            mode = "detached" if sup["detached"] else "foreground"
            out.print(f"supervisor: pid {sup['pid']} ({mode}), {sup['status']}{since}; data in {settings.home}")
        else:
            out.print(f"supervisor: not running for {settings.home}")
            if other_home_at:
                err.print(
                    f"[yellow]note:[/] a mnemex stack of another home answers at {escape(other_home_at)}: "
                    "is MNEMEX_HOME mistyped? (`mnemex doctor` names the home your clients use)"
                )
        _print_rows(report)
        if free is not None and free < LOW_DISK_BYTES:
            err.print(
                f"[red]disk nearly full:[/] {free / 1_048_576:.0f} MB free for {escape(str(settings.home))}; "
                "writes are refused (HTTP 507) until space is freed, and resume by themselves"
            )
        if opt_out["paused"]:
            out.print("[yellow]paused:[/] mnemex stores and injects nothing until `mnemex resume`")
        if opt_out["here_excluded"]:
            out.print(f"[yellow]this directory is excluded:[/] {escape(opt_out['here_excluded'])}")
        if not report["healthy"]:
            named = [s for s in report["services"].values() if s["problem"]]
            if named:
                err.print(
                    escape(
                        "a store is broken: run `mnemex doctor`, then `mnemex repair` with the stack stopped "
                        "(`mnemex down`)"
                    )
                )
            else:
                err.print(
                    "the stack is not fully healthy: start it with `mnemex up`, or read the logs in "
                    f"{settings.home / 'logs'}"
                )
    if not report["healthy"]:
        raise typer.Exit(EXIT_FAILURE)


LOW_DISK_BYTES = 64 * 1024 * 1024  # below this the stores refuse writes soon, or already do


def _disk_free(home: Path) -> int | None:
    import shutil

    where = next((p for p in (home, *home.parents) if p.exists()), None)  # a home not made yet: its disk
    try:
        return shutil.disk_usage(where).free if where is not None else None
    except OSError:
        return None


class OptOutReport(TypedDict):
    paused: bool
    paused_sessions: list[str]
    excluded: list[str]
    here_excluded: str | None


def _opt_out(settings: Settings) -> OptOutReport:
    from kernel import optout

    record = optout.load(settings.home)
    return {
        "paused": record.paused,
        "paused_sessions": list(record.paused_sessions),
        "excluded": list(record.excluded),
        "here_excluded": optout.exclusion_reason(os.getcwd(), record),
    }


def _other_home_answering(settings: Settings) -> str | None:
    """The gateway URL when a mnemex gateway of another home answers on this home's address."""
    import urllib.error
    import urllib.request

    from kernel.config import home_id

    try:
        with urllib.request.urlopen(f"{settings.gateway_url}/api/health", timeout=0.5) as reply:
            served = reply.headers.get("x-mnemex-home")
    except urllib.error.HTTPError as exc:
        served = exc.headers.get("x-mnemex-home")
    except (OSError, ValueError):
        return None
    return str(settings.gateway_url) if served and served != home_id(settings.home) else None


def _since(started_at: str | None) -> str:
    if not started_at:
        return ""
    try:
        seconds = (datetime.now().astimezone() - datetime.fromisoformat(started_at)).total_seconds()
    except ValueError:
        return ""
    return f" for {int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


@app.command(epilog="Example (Claude Code): claude mcp add --scope user mnemex -- mnemex mcp")
def mcp() -> None:
    """Serve the mnemex MCP tools over stdio (starts the stack in the background if needed).

    Clients start MCP servers with a minimal environment; the connection file
    `mnemex init` wrote (MNEMEX_CONNECTION_FILE in the client's entry) fills in
    the stack's settings first, so this server reaches the stack init was run for.
    """
    from kernel.connection import apply_to_process

    apply_to_process()
    try:
        from gateway.mcp.stdio import run
    except ImportError as exc:
        fail(f"the MCP server is not available in this installation ({exc}); reinstall mnemex")
    from mnemex.supervisor.control import ensure_running

    run(start_stack=ensure_running)  # the gateway cannot import the supervisor: the shell hands it over


CLIENT_HELP = "Clients, comma-separated or repeated: claude, cursor, opencode."


def chosen_clients(values: list[str], *flags: tuple[bool, str]) -> tuple[str, ...]:
    """The clients named by ``--client`` (commas or repeats) and the alias flags; exit 2 on an unknown name."""
    from mnemex.client_setup import CLIENTS

    names = [name.strip().lower() for value in values for name in value.split(",") if name.strip()]
    names += [name for on, name in flags if on]
    unknown = [name for name in names if name not in CLIENTS]
    if unknown:
        fail(
            f"unknown client {', '.join(repr(n) for n in unknown)}; valid clients: {', '.join(CLIENTS)} "
            "(e.g. --client claude,cursor)",
            code=EXIT_USAGE,
        )
    return tuple(c for c in CLIENTS if c in names)


def _report(result: SetupResult) -> None:
    out.print(escape(result.render()))
    if result.skipped:
        fail("; ".join(f"{client} was left unchanged: {why}" for client, why in result.skipped.items()))


@app.command(epilog="Example: mnemex init --client claude,cursor --dry-run")
def init(
    client: list[str] = typer.Option(
        [], "--client", "-c", help=CLIENT_HELP + " Default: every client found on this machine."
    ),
    cursor: bool = typer.Option(False, "--cursor", help="Also set up Cursor (same as --client cursor)."),
    opencode: bool = typer.Option(False, "--opencode", help="Also set up OpenCode (same as --client opencode)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the changes as a diff; write nothing."),
    json_output: bool = typer.Option(False, "--json", help="Print what was (or would be) changed as JSON."),
) -> None:
    """Install mnemex hooks, MCP server and tool permissions into Claude Code, Cursor and/or OpenCode.

    Records this shell's MNEMEX_* settings (home, ports, token) in
    <mnemex home>/client/connection.json, so the clients reach this stack.
    """
    from mnemex import client_setup
    from mnemex.client_setup.detect import find_clients

    found = find_clients(Path.home())
    # Without --client: every client found here (Claude Code when none is); --cursor/--opencode add to that.
    defaults = [",".join(f.client for f in found if f.evidence) or "claude"]
    clients = chosen_clients(client or defaults, (cursor, "cursor"), (opencode, "opencode"))
    try:
        result = client_setup.init(Path.home(), clients=clients, dry_run=dry_run)
    except client_setup.SetupError as exc:
        fail(str(exc))
    if json_output:
        lines = client_lines(found, clients, result.skipped, dry_run)
        print_json({**result.as_json(), "clients": lines})
        if result.skipped:
            raise typer.Exit(EXIT_FAILURE)
        return
    out.print(escape(result.render()))
    for line in client_lines(found, clients, result.skipped, dry_run):
        out.print(escape(line))
    if result.skipped:
        fail("; ".join(f"{name} was left unchanged: {why}" for name, why in result.skipped.items()))
    _offer_backfill()


def client_lines(found: list[Found], clients: tuple[str, ...], skipped: dict[str, str], dry_run: bool) -> list[str]:
    """One line per client: connected (and why it was picked), skipped, or not found (and how to add it)."""
    lines = []
    for entry in found:
        if entry.client in skipped:
            lines.append(f"{entry.client}: left unchanged ({skipped[entry.client]})")
        elif entry.client in clients:
            verb = "would connect" if dry_run else "connected"
            why = f" (found {entry.evidence})" if entry.evidence else " (named with --client)"
            lines.append(f"{entry.client}: {verb}{why}")
        elif entry.evidence:
            lines.append(f"{entry.client}: found {entry.evidence} but not chosen; add it with --client {entry.client}")
        else:
            lines.append(f"{entry.client}: not found ({entry.hint}); connect it later with --client {entry.client}")
    return lines


def _offer_backfill() -> None:
    """Say how much past history ``mnemex backfill`` could import (a quick count; never fails init)."""
    from mnemex.backfill.history_count import count_history, imported_sessions

    try:
        line = count_history(Path.home()).describe(imported_sessions(load_settings().home))
    except Exception:  # an odd history store must not fail init
        return
    if line:
        out.print(escape(line))


@app.command(epilog="Example: mnemex uninit --client cursor --dry-run")
def uninit(
    client: list[str] = typer.Option([], "--client", "-c", help=CLIENT_HELP + " Default: all."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be removed; write nothing."),
    json_output: bool = typer.Option(False, "--json", help="Print what was (or would be) removed as JSON."),
) -> None:
    """Remove exactly what `mnemex init` added to the named client configurations (and its backups)."""
    from mnemex import client_setup

    clients = chosen_clients(client) or client_setup.CLIENTS
    try:
        result = client_setup.uninit(Path.home(), clients=clients, dry_run=dry_run)
    except client_setup.SetupError as exc:
        fail(str(exc))
    if json_output:
        print_json(result.as_json())
        return
    _report(result)
