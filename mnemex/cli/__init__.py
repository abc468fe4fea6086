"""The ``mnemex`` command line (typer + rich). One module per command group:

- ``stack``: up, down, status, mcp, init, uninit
- ``books``: ingest, books, remove
- ``memories``: search, show, stats
- ``projects``: projects [bind | unbind]
- ``doctor``: doctor
- ``transfer``: export, import, import-roampal
- ``backfill``: backfill (past conversations of Claude Code and OpenCode)
- ``viewer``: ui (the web viewer in a browser)

Every data command goes through the gateway's HTTP API (``gateway_client``);
none opens mnemex's storage directly. Exit codes: 0 ok, 1 failure, 2 usage.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from kernel import __version__, offline
from mnemex.cli import backfill, books, doctor, memories, projects, stack, tokens, transfer, viewer
from mnemex.cli.output import CliFailure, report_failure


class MnemexGroup(TyperGroup):
    """Turns ``CliFailure`` from any command into a clear message and exit code 1."""

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click.Context
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
for _module in (stack, books, memories, projects, doctor, transfer, backfill, viewer, tokens):
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
    stack.hand_over_foreground = True  # ``mnemex up`` execs the lean supervisor (mnemex.supervisor.foreground)
    app(prog_name="mnemex")


__all__ = ["app", "main"]
