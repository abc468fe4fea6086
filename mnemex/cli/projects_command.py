"""Projects: list the projects mnemex knows; bind and unbind directories.

A project is the git root of the working directory unless a directory (or a
parent) is bound to a name. Bindings live in ``$MNEMEX_HOME/projects.json``
(``kernel.projects``); the list of projects holding data comes from the gateway.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import TypedDict

import typer
from rich.table import Table

from kernel import optout
from kernel import projects as project_ids
from kernel.json_values import JSONObject, as_object, int_at, object_at, objects_at, str_at
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import CliFailure, err, escape, fail, out, print_json
from mnemex.cli.settings import load_settings

COLLECTIONS = ("books", "working", "history", "patterns", "memory_bank")

group = typer.Typer(
    name="projects",
    help="List projects and the directories bound to them; bind or unbind a directory.",
    epilog="Example: mnemex projects bind ~/src/api-server api",
    invoke_without_command=True,
)
app = typer.Typer()
app.add_typer(group, name="projects")


class ProjectRow(TypedDict):
    project: str
    counts: dict[str, int]
    directories: list[str]
    current: bool


def _row(name: str) -> ProjectRow:
    return {"project": name, "counts": {}, "directories": [], "current": False}


def project_report(known: list[JSONObject], bindings: dict[str, str], current: str) -> list[ProjectRow]:
    """One row per project: data counts (if any) and bound directories."""
    dirs: dict[str, list[str]] = defaultdict(list)
    for directory, name in sorted(bindings.items()):
        dirs[name].append(directory)
    rows: dict[str, ProjectRow] = {}
    for entry in known:
        name = str_at(entry, "project")
        row = rows.setdefault(name, _row(name))
        counts = object_at(entry, "counts")
        for key in counts:
            row["counts"][key] = row["counts"].get(key, 0) + int_at(counts, key)
    for name, directories in dirs.items():
        rows.setdefault(name, _row(name))["directories"] = directories
    for row in rows.values():
        row["current"] = row["project"] == current
    return sorted(rows.values(), key=lambda r: (not r["current"], r["project"]))


def change_exclusions(home: Path, exclude: list[Path], include: list[Path]) -> list[str]:
    """Add ``exclude`` to and take ``include`` out of the opt-out file; return one line per change."""
    record = optout.load(home)
    lines = []
    for directory in exclude:
        if not directory.is_dir():
            fail(f"{directory} is not a directory; pass an existing project directory to --exclude", code=2)
        resolved = str(directory.resolve())
        if resolved not in record.excluded:
            record.excluded.append(resolved)
        lines.append(f"excluded {resolved}: mnemex stores and injects nothing there (undo: --include)")
    for directory in include:
        resolved = str(directory.resolve())
        if resolved not in record.excluded:
            fail(f"{resolved} is not excluded; see the excluded directories with `mnemex projects`", code=1)
        record.excluded.remove(resolved)
        lines.append(f"included {resolved} again")
    optout.save(home, record)
    return lines


@group.callback()
def list_projects(
    ctx: typer.Context,
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
    exclude: list[Path] = typer.Option(
        [], "--exclude", help="Exclude this directory (and below): mnemex stores and injects nothing there."
    ),
    include: list[Path] = typer.Option([], "--include", help="Undo --exclude for this directory."),
) -> None:
    """List the projects mnemex knows and the directories bound to each; exclude or include a directory.

    A file named .mnemex-ignore committed in a repository excludes it for everyone too.
    """
    if ctx.invoked_subcommand is not None:
        return
    settings = load_settings()
    if exclude or include:
        for line in change_exclusions(settings.home, exclude, include):
            out.print(escape(line))
        return
    record = optout.load(settings.home)
    excluded = record.excluded
    bindings = project_ids.load_bindings(settings.home)
    current = project_ids.resolve(os.getcwd(), settings.home)
    here_excluded = optout.exclusion_reason(os.getcwd(), record)
    here_paused = "mnemex is paused (mnemex resume)" if record.paused else None
    known: list[JSONObject] = []
    problem = ""
    try:
        known = list(objects_at(as_object(GatewayClient(settings).get("/api/projects")), "projects"))
    except CliFailure as failure:
        problem = failure.message
    rows = project_report(known, bindings, current)
    if json_output:
        print_json(
            {
                "current": current,
                "current_excluded": here_excluded,
                "paused": record.paused,
                "projects": rows,
                "excluded": excluded,
                "error": problem or None,
            }
        )
        return
    if problem:
        err.print(f"[yellow]note:[/] showing bindings only; {escape(problem)}")
    table = Table(show_header=True, header_style="bold")
    for column in ("project", "memories", "bound directories"):
        table.add_column(column, overflow="fold")
    for row in rows:
        total = sum(v for k, v in row["counts"].items() if k in COLLECTIONS)
        name = (row["project"] or "(user-wide memory_bank)") + (" (current)" if row["current"] else "")
        table.add_row(escape(name), str(total), escape("\n".join(row["directories"]) or "-"))
    out.print(table)
    for directory in excluded:
        out.print(f"excluded: {escape(directory)}  (undo: mnemex projects --include {escape(directory)})")
    if here_excluded is not None:
        reason = escape(here_excluded)
        out.print(f"[yellow]this directory is excluded:[/] {reason}; mnemex stores and injects nothing here")
    elif not any(r["current"] for r in rows):
        out.print(f"this directory belongs to project {escape(current)} (no data yet)")
    if here_paused is not None:
        out.print(f"[yellow]note:[/] {here_paused}: nothing is stored or injected anywhere until then")


@group.command(epilog="Example: mnemex projects bind . api")
def bind(
    directory: Path = typer.Argument(..., help="The directory (its subdirectories follow it)."),
    name: str = typer.Argument(..., help="Project name: letters, digits, '.', '_' or '-'."),
) -> None:
    """Bind a directory to a named project (several directories may share one name)."""
    if not directory.is_dir():
        fail(f"{directory} is not a directory; pass an existing directory")
    settings = load_settings()
    try:
        project_ids.bind(settings.home, directory, name)
    except project_ids.InvalidProjectName as exc:
        fail(str(exc), code=2)
    out.print(f"bound {escape(str(directory.resolve()))} to project {escape(name)}")


@group.command(epilog="Example: mnemex projects unbind ~/src/api-server")
def unbind(directory: Path = typer.Argument(..., help="A directory bound with `mnemex projects bind`.")) -> None:
    """Remove a directory's binding; it falls back to its git root's project."""
    settings = load_settings()
    if not project_ids.unbind(settings.home, directory):
        fail(f"{directory.resolve()} is not bound; see the bindings with `mnemex projects`")
    out.print(
        f"unbound {escape(str(directory.resolve()))}; it now belongs to "
        f"{escape(project_ids.resolve(directory, settings.home))}"
    )
