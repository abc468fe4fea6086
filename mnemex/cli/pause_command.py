"""``mnemex pause`` / ``mnemex resume``: stop capture and context for a while.

Without ``--session`` every session is paused until ``mnemex resume``; with it,
only that session (its id is in the client's transcript name and in ``mnemex
doctor``'s opt-out line). The hooks read the switch from a local file
(``kernel.optout``) before any network call.
"""

from __future__ import annotations

import typer

from kernel import optout
from mnemex.cli.output import escape, fail, out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()


@app.command(epilog="Example: mnemex pause --session 3f2a9c1e-...")
def pause(
    session: str = typer.Option("", "--session", help="Pause only this session id (default: every session)."),
    json_output: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
) -> None:
    """Pause mnemex: the hooks store nothing and inject no context until `mnemex resume`."""
    settings = load_settings()
    record = optout.load(settings.home)
    if session:
        if session not in record.paused_sessions:
            record.paused_sessions.append(session)
        line = f"paused session {session}; resume it with: mnemex resume --session {session}"
    else:
        record.paused = True
        line = "paused every session; resume with: mnemex resume"
    path = optout.save(settings.home, record)
    if json_output:
        print_json({"paused": record.paused, "paused_sessions": sorted(record.paused_sessions), "file": str(path)})
        return
    out.print(escape(line))


@app.command(epilog="Example: mnemex resume")
def resume(
    session: str = typer.Option("", "--session", help="Resume only this session id (default: all of them)."),
    json_output: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
) -> None:
    """Undo `mnemex pause` (all sessions, or the one named with --session)."""
    settings = load_settings()
    record = optout.load(settings.home)
    if session:
        if session not in record.paused_sessions:
            fail(f"session {session} is not paused; see what is paused with `mnemex doctor`")
        record.paused_sessions.remove(session)
        line = f"resumed session {session}"
    else:
        record.paused = False
        record.paused_sessions = []
        line = "resumed: mnemex stores and injects context again"
    path = optout.save(settings.home, record)
    if json_output:
        print_json({"paused": record.paused, "paused_sessions": sorted(record.paused_sessions), "file": str(path)})
        return
    out.print(escape(line))
