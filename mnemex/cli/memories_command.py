"""Inspecting memory: search, show, stats."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping

import typer
from rich.table import Table

from kernel.display import memory_lines, number
from kernel.json_values import JSONValue, as_object, float_at, int_at, list_at, object_at, objects_at, value_at
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import escape, human_bytes, out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()

COLLECTIONS = ("books", "working", "history", "patterns", "memory_bank")
SORTS = ("relevance", "recency", "score")
EVENT_KINDS = ("promoted", "demoted", "deleted", "expired")


def _check_choice(value: str, choices: tuple[str, ...], option: str) -> str:
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}", param_hint=option)
    return value


@app.command(epilog='Example: mnemex search "flaky auth test" --days 14 --collection patterns --sort score')
def search(
    query: str = typer.Argument("", help="What to look for (may be empty with --days)."),
    days: int | None = typer.Option(
        None, "--days", min=1, max=3650, help="Only memories from the last N days (up to ten years)."
    ),
    collection: list[str] = typer.Option(
        [], "--collection", "-c", help=f"Limit to a collection (repeatable): {', '.join(COLLECTIONS)}."
    ),
    sort: str = typer.Option("relevance", "--sort", help="relevance, recency or score."),
    limit: int = typer.Option(10, "--limit", "-k", min=1, max=100, help="How many results."),
    all_projects: bool = typer.Option(
        False, "--all-projects", "-a", help="Search every project of yours; each result names its project."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the normalized memories as JSON."),
) -> None:
    """Search this project's memories (and your memory_bank), printed like the MCP search_memory tool.

    Copies of one text are shown once ("seen N times"); with a QUERY, only the memories relevant to it.
    """
    _check_choice(sort, SORTS, "--sort")
    for name in collection:
        _check_choice(name, COLLECTIONS, "--collection")
    if not query.strip() and days is None:
        raise typer.BadParameter("give a QUERY, or --days N to list recent memories", param_hint="QUERY")
    body: dict[str, object] = {
        "query": query or None,
        "days_back": days,
        "limit": limit,
        "sort_by": sort,
        "collections": collection or None,
        "all_projects": all_projects,
    }
    reply = GatewayClient(load_settings()).post("/api/search", body)
    found = list(objects_at(as_object(reply), "memories"))
    relevant = value_at(as_object(reply), "relevant")
    if json_output:
        print_json(reply)
        return
    if not found:
        out.print("No memory is relevant to this query." if relevant is not None else "no memories found")
        return
    if relevant is not None:
        out.print(f"{relevant} relevant memor{'y' if relevant == 1 else 'ies'}")
    for memory, line in zip(found, memory_lines(found), strict=True):
        where = f"[{memory.get('project') or 'user-wide'}] " if all_projects else ""
        out.print(escape(where + line))


@app.command(epilog="Example: mnemex show patterns_3f2a9c")
def show(
    memory_id: str = typer.Argument(..., metavar="ID", help="A memory id, as shown in [id:...] tags."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Print one memory with all of its metadata."""
    path = "/api/memories/" + urllib.parse.quote(memory_id, safe="")
    reply = GatewayClient(load_settings()).get(path)
    if json_output:
        print_json(reply)
        return
    memory = as_object(reply)
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in memory.items():
        if key in ("content", "metadata"):
            continue
        table.add_row(key, escape(_text(value)))
    out.print(table)
    metadata = object_at(memory, "metadata")
    if metadata:
        out.print("[bold]metadata[/]")
        for key in sorted(metadata):
            out.print(f"  {escape(key)}: {escape(_text(metadata[key]))}")
    out.print("[bold]content[/]")
    out.print(escape(str(memory.get("content", ""))))


def _text(value: JSONValue) -> str:
    if isinstance(value, float):
        return number(value, 4)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def _histogram(histogram: Mapping[str, int], width: int = 30) -> list[str]:
    peak = max(histogram.values(), default=0) or 1
    lines = []
    for bucket in sorted(histogram, key=lambda b: float(b) if _is_number(b) else 0.0):
        count = histogram[bucket]
        lines.append(f"  {bucket:>4}  {'█' * max(1 if count else 0, round(count / peak * width))} {count}")
    return lines


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@app.command(epilog="Example: mnemex stats --json")
def stats(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Counts per collection and per project, score distribution, promotions/deletions over time, data size."""
    client = GatewayClient(load_settings())
    report = as_object(client.get("/api/stats"))
    projects = as_object(client.get("/api/projects"))
    if json_output:
        print_json({**report, "projects": list_at(projects, "projects")})
        return
    memory = object_at(report, "memory")
    counts = {name: int_at(object_at(memory, "counts"), name) for name in COLLECTIONS}
    project, user = escape(str(report.get("project", ""))), escape(str(report.get("user", "")))
    size = human_bytes(float_at(memory, "data_bytes"))
    out.print(f"[bold]project[/] {project}  [bold]user[/] {user}  [bold]data size[/] {size}")
    table = Table(title="memories in this project", show_header=True, header_style="bold")
    for name in (*COLLECTIONS, "total"):
        table.add_column(name, justify="right")
    table.add_row(*(str(counts[name]) for name in COLLECTIONS), str(sum(counts.values())))
    out.print(table)
    known = list(objects_at(projects, "projects"))
    if known:
        per_project = Table(title="per project", show_header=True, header_style="bold")
        per_project.add_column("project")
        for name in COLLECTIONS:
            per_project.add_column(name, justify="right")
        for entry in known:
            c = object_at(entry, "counts")
            per_project.add_row(
                escape(str(entry.get("project") or "(user-wide)")), *(str(c.get(n, 0)) for n in COLLECTIONS)
            )
        out.print(per_project)
    scores = object_at(memory, "score_histogram")
    histogram = {bucket: int_at(scores, bucket) for bucket in scores}
    if any(histogram.values()):
        out.print("[bold]score distribution[/] (outcome-scored memories)")
        for line in _histogram(histogram):
            out.print(line)
    events = object_at(memory, "events")
    out.print("[bold]lifecycle[/] " + ", ".join(f"{kind} {events.get(kind, 0)}" for kind in EVENT_KINDS))
    by_day = object_at(memory, "events_by_day")
    if by_day:
        days = Table(title="lifecycle events by day (last 14 days with events)", show_header=True, header_style="bold")
        days.add_column("day")
        for kind in EVENT_KINDS:
            days.add_column(kind, justify="right")
        for day in sorted(by_day)[-14:]:
            days.add_row(day, *(str(object_at(by_day, day).get(kind, 0)) for kind in EVENT_KINDS))
        out.print(days)
    kg_counts = object_at(object_at(report, "kg"), "counts")
    if kg_counts:
        out.print("[bold]knowledge graph[/] " + ", ".join(f"{k} {v}" for k, v in sorted(kg_counts.items())))
