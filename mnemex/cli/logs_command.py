"""``mnemex logs``: the last lines of each service's log, or follow them as they grow.

The supervisor writes one log per process under ``$MNEMEX_HOME/logs/`` (``gateway``,
``embedding``, ``memory``, ``kg`` and, when detached, ``supervisor``) and keeps one
rotated copy (``<name>.log.1``). The lines shown come from the rotated copy too
when the current file holds fewer than asked, so a rotation never hides what
happened just before it. Nothing here needs the stack to run: a stack that will
not start is when the logs are wanted most.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

import typer

from mnemex.cli.output import escape, fail, out, print_json
from mnemex.cli.settings import load_settings
from mnemex.supervisor.state import RunPaths

LOG_NAMES = ("gateway", "embedding", "memory", "kg", "supervisor")
FOLLOW_POLL_S = 0.5
MAX_LINE_CHARS = 4_000  # a log line past this (pasted output in an error) is cut on screen

app = typer.Typer()


def last_lines(log: Path, count: int) -> list[str]:
    """The last ``count`` lines of ``log``, reaching into its rotated copy when needed."""
    kept: deque[str] = deque(maxlen=count)
    for path in (log.with_name(log.name + ".1"), log):
        try:
            with path.open("r", encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    kept.append(line.rstrip("\n"))
        except FileNotFoundError:
            continue
    return list(kept)


def chosen(names: list[str]) -> list[str]:
    unknown = [n for n in names if n not in LOG_NAMES]
    if unknown:
        fail(f"no log named {', '.join(unknown)}; choose from {', '.join(LOG_NAMES)}", code=2)
    return names or list(LOG_NAMES)


def _show(name: str, line: str, prefix: bool) -> None:
    text = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " …"
    out.print(f"[dim]{name:>10}[/] {escape(text)}" if prefix else escape(text))


def _follow(paths: dict[str, Path], prefix: bool) -> None:
    offsets = {name: (path.stat().st_size if path.exists() else 0) for name, path in paths.items()}
    try:
        while True:
            for name, path in paths.items():
                try:
                    size = path.stat().st_size
                except FileNotFoundError:
                    continue
                if size < offsets[name]:  # rotated (truncated in place): read from its start
                    offsets[name] = 0
                if size == offsets[name]:
                    continue
                with path.open("rb") as handle:
                    handle.seek(offsets[name])
                    chunk = handle.read(size - offsets[name])
                complete = chunk.rfind(b"\n") + 1  # a half-written line waits for its end
                offsets[name] += complete
                for line in chunk[:complete].decode("utf-8", "replace").splitlines():
                    _show(name, line, prefix)
            time.sleep(FOLLOW_POLL_S)
    except KeyboardInterrupt:
        return


@app.command(epilog="Example: mnemex logs gateway -n 100   |   mnemex logs --follow")
def logs(
    names: list[str] = typer.Argument(None, help=f"Which logs: {', '.join(LOG_NAMES)} (default: all)."),
    lines: int = typer.Option(40, "--lines", "-n", min=1, max=100_000, help="Lines per log."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing new lines until Ctrl-C."),
    json_output: bool = typer.Option(False, "--json", help="Print {log: [lines]} as JSON."),
) -> None:
    """Show the last lines of the services' logs (the stack need not be running)."""
    settings = load_settings()
    paths = {name: RunPaths(settings.home).log_file(name) for name in chosen(names or [])}
    found = {name: last_lines(path, lines) for name, path in paths.items()}
    if json_output:
        if follow:
            fail("--json prints once; leave out --follow", code=2)
        print_json({"logs_dir": str(RunPaths(settings.home).logs_dir), "logs": found})
        return
    present = {name: got for name, got in found.items() if got or paths[name].exists()}
    if not present:
        out.print(
            f"no logs yet in {escape(str(RunPaths(settings.home).logs_dir))}: the stack has not run with this "
            "MNEMEX_HOME (start it with `mnemex up`)"
        )
        if not follow:
            return
    prefix = len(paths) > 1
    for name, got in present.items():
        if not prefix:
            out.print(f"[bold]{name}[/] ({escape(str(paths[name]))})")
        for line in got:
            _show(name, line, prefix)
    if follow:
        _follow(paths, prefix)
