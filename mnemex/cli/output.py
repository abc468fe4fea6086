"""Console output for the CLI: colour only on a TTY, JSON for scripts, errors to stderr.

Exit codes: 0 ok, 1 failure (``CliFailure``), 2 usage (click's own errors).
"""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import typer
from rich.console import Console

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def _console(stderr: bool) -> Console:
    # Rich already disables colour when the stream is not a terminal and
    # honours NO_COLOR; highlight=False keeps numbers in plain text uncoloured;
    # soft_wrap leaves long lines (search results, errors) whole for scripts and pipes.
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


out = _console(stderr=False)
err = _console(stderr=True)


class CliFailure(Exception):
    """A failure the user can act on: ``message`` says what went wrong and what to do."""

    def __init__(self, message: str, code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def fail(message: str, code: int = EXIT_FAILURE) -> NoReturn:
    raise CliFailure(message, code)


def report_failure(failure: CliFailure) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(failure.message)}")
    raise typer.Exit(failure.code)


def print_json(value: object) -> None:
    """Plain JSON on stdout (never coloured, one document)."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def escape(text: str) -> str:
    """Make user data safe to print through rich markup."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def human_bytes(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(count) < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"
