"""The ``mnemex`` command line (typer + rich). One module per command group:

- ``stack_command``: up, down, status, mcp, init, uninit
- ``uninstall_command``: uninstall (stop, remove every client entry, optionally the data)
- ``pause_command``: pause, resume (the hooks store and inject nothing meanwhile)
- ``books_command``: ingest, books, remove
- ``memories_command``: search, show, stats
- ``projects_command``: projects [bind | unbind], --exclude / --include (per-project opt-out)
- ``problems_command``: problems list | merge | unmerge (the project's known problems)
- ``doctor_command``: doctor
- ``logs_command``: logs (the services' last log lines, or follow them; no stack needed)
- ``repair_command``: repair (salvage broken stores; the only command that opens storage itself, stack stopped)
- ``transfer_command``: export, import, import-roampal
- ``backfill_command``: backfill (past conversations of Claude Code and OpenCode)
- ``viewer_command``: ui (the web viewer in a browser)
- ``upgrade_command``: migrate, reembed (a home to this mnemex's schema, its memories to another model; stack stopped)

Every data command goes through the gateway's HTTP API (``gateway_client``);
none opens mnemex's storage directly, except ``repair``, ``migrate`` and ``reembed`` (and ``doctor``'s store
checks), which refuse or hold back while the stack runs. Exit codes: 0 ok, 1 failure, 2 usage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from typer.core import TyperGroup, TyperOption

from kernel import __version__, offline
from mnemex.cli import (
    backfill_command,
    books_command,
    doctor_command,
    logs_command,
    memories_command,
    pause_command,
    problems_command,
    projects_command,
    repair_command,
    stack_command,
    tokens_command,
    transfer_command,
    uninstall_command,
    upgrade_command,
    viewer_command,
)
from mnemex.cli.output import CliFailure, report_failure

if TYPE_CHECKING:
    from typer._click.core import Context  # typer's vendored click


def _flag_type(option: TyperOption, ctx: Context) -> str | None:
    """No type column for a plain flag: typer 0.29 shows ``--dry-run <bool>``, as if it took a value."""
    if option.is_flag and option.metavar is None:
        return None
    return _option_type(option, ctx)


_option_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign,assignment]


class MnemexGroup(TyperGroup):
    """Turns ``CliFailure`` from any command into a clear message and exit code 1."""

    def invoke(self, ctx: Context) -> object:
        try:
            return super().invoke(ctx)
        except CliFailure as failure:
            report_failure(failure)


app = typer.Typer(
    name="mnemex",
    cls=MnemexGroup,
    help="mnemex: memory for AI coding assistants that learns from outcomes.",
    epilog="Start with: mnemex up --detach && mnemex init && mnemex doctor",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
for _module in (
    stack_command,
    uninstall_command,
    books_command,
    memories_command,
    projects_command,
    problems_command,
    pause_command,
    doctor_command,
    logs_command,
    repair_command,
    transfer_command,
    backfill_command,
    viewer_command,
    tokens_command,
    upgrade_command,
):
    app.add_typer(_module.app)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mnemex {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """mnemex: memory for AI coding assistants that learns from outcomes."""


def main() -> None:
    offline.apply()
    stack_command.hand_over_foreground = True  # ``mnemex up`` execs the lean supervisor (mnemex.supervisor.foreground)
    app(prog_name="mnemex")


__all__ = ["app", "main"]
