"""``mnemex up`` in the foreground, once the CLI has handed over: ``python -m mnemex.supervisor.foreground``.

The CLI parses ``mnemex up [--only NAME] [--ready-timeout S]`` and then replaces
itself with this module (``os.execv``: same pid, same terminal, same signals), so
the process that supervises the stack all day does not keep the CLI resident:
typer, the pydantic it loads to coerce options, and every command module. Measured
with ``bench/bench_idle.py``: the supervisor's RSS went from 57 MB to about 40.
Output is what the CLI printed: the ready table on stdout, supervision messages
on stderr; rich is imported only to draw the table.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kernel import offline
from kernel.config import ConfigError, Settings
from mnemex.supervisor.state import describe_exit

if TYPE_CHECKING:
    from rich.table import Table

    from mnemex.supervisor.supervisor_loop import Supervisor

STATUS_STYLE = {
    "healthy": "green",
    "starting": "yellow",
    "backoff": "red",
    "unhealthy": "red",
    "failed": "red",
    "down": "red",
}


def ready_table(rows: Sequence[Mapping[str, object]]) -> Table:
    """The per-service table ``mnemex up`` and ``mnemex status`` print (rich imported here, not at start)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_header=True, header_style="bold")
    for column in ("service", "listens on", "pid", "status", "restarts", "last exit"):
        table.add_column(column)
    for row in rows:
        status = str(row["status"])
        style = STATUS_STYLE.get(status.split(" ")[0], "")
        if row.get("problem") and status != "healthy":
            status = f"{status}: {row['problem']}"
        last_exit = row.get("last_exit")
        table.add_row(
            str(row["name"]),
            str(row["address"]),
            str(row.get("pid") or "-"),
            f"[{style}]{escape(status)}[/]" if style else escape(status),
            str(row.get("restarts", 0)),
            describe_exit(int(last_exit)) if isinstance(last_exit, int) else "-",
        )
    return table


def announce_ready(settings: Settings, supervisor: Supervisor) -> None:
    from rich.console import Console
    from rich.markup import escape

    out = Console(highlight=False, soft_wrap=True)
    rows = [{"name": name, **vars(child.state)} for name, child in supervisor.children.items()]
    seconds = supervisor.info.startup_seconds or 0.0
    out.print(f"[bold green]mnemex is ready[/] in {seconds:.1f} s (data in {escape(str(settings.home))})")
    out.print(ready_table(rows))
    out.print(f"gateway: {settings.gateway_url}   logs: {settings.home / 'logs'}   Ctrl-C to stop")
    out.print(f"viewer: {settings.gateway_url}/ui   (or: mnemex ui)")
    out.print(escape(next_step()))


def next_step() -> str:
    """The README's next step, as this shell can run it: ``mnemex`` when it is on PATH, else its path."""
    import shutil

    beside = Path(sys.executable).parent / "mnemex"
    on_path = shutil.which("mnemex")
    if on_path and (not beside.exists() or Path(on_path).resolve() == beside.resolve()):
        command = "mnemex"
    elif beside.exists():
        try:
            command = str(beside.relative_to(Path.cwd()))
        except ValueError:
            command = str(beside)
    else:
        command = f"{sys.executable} -m mnemex.cli"
    return f"next: connect your coding assistants with `{command} init` (then `{command} doctor`)"


def report(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    from mnemex.supervisor.launch import StackOptions, run_stack, stack_arguments

    offline.apply()
    only, ready_timeout = stack_arguments("mnemex up", __doc__, argv)
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        report(f"configuration error: {exc}")
        return 1
    options = StackOptions(only=only, ready_timeout=ready_timeout)
    return run_stack(settings, options, report=report, on_ready=lambda supervisor: announce_ready(settings, supervisor))


def command(only: list[str], ready_timeout: float) -> list[str]:
    """The argv the CLI executes to hand ``mnemex up`` over to this module."""
    extra = [arg for name in only for arg in ("--only", name)]
    return [sys.executable, "-m", "mnemex.supervisor.foreground", *extra, "--ready-timeout", repr(ready_timeout)]


if __name__ == "__main__":
    sys.exit(main())
