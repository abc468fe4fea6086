"""Known problems of the project: ``mnemex problems list|merge|unmerge``.

mnemex files an episode (a problem, what failed, the fix) under a known problem only on clear
evidence, so one problem told two ways can become two. ``merge`` makes them one (the first id
stays and takes the second's fixes and failed attempts); ``unmerge`` gives both back as they
were. Through the gateway's /api/problems, in the project of the current directory.
"""

from __future__ import annotations

import typer
from rich.table import Table

from gateway.problem_models import KnownProblemOut, MergeOut, ProblemsOut, UnmergeOut
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import escape, out, print_json
from mnemex.cli.settings import load_settings

group = typer.Typer(name="problems", help="Known problems of this project: list them, merge two, undo a merge.")
app = typer.Typer()
app.add_typer(group, name="problems")

JSON_HELP = "print the result as JSON"
STATEMENT_CHARS = 100


def _undo(merge_id: str) -> str:
    return f"mnemex problems unmerge {merge_id}"


def _counts(problem: KnownProblemOut) -> str:
    return f"{problem.fixes} fix(es), {problem.failures} failed attempt(s), {problem.episodes} episode(s)"


def _said(statement: str) -> str:
    short = statement if len(statement) <= STATEMENT_CHARS else statement[: STATEMENT_CHARS - 1] + "…"
    return escape(short)


@group.command("list", epilog="Example: mnemex problems list --json")
def list_command(
    limit: int = typer.Option(50, "--limit", min=1, max=200, help="at most this many, most recently seen first"),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The project's known problems (id, statement, fixes, failed attempts, episodes) and the merges that hold."""
    result = ProblemsOut.model_validate(GatewayClient(load_settings()).get("/api/problems", {"limit": limit}))
    if as_json:
        print_json(result.model_dump())
        return
    if not result.problems:
        out.print("no known problems in this project yet (a problem becomes known when a session fails at it)")
        return
    table = Table(title=f"known problems ({result.total})", show_header=True, header_style="bold")
    table.add_column("id")
    for name in ("fixes", "failed", "episodes"):
        table.add_column(name, justify="right")
    table.add_column("statement")
    for p in result.problems:
        table.add_row(p.id, str(p.fixes), str(p.failures), str(p.episodes), _said(p.statement))
    out.print(table)
    for merge in result.merges:
        out.print(f"{merge.id}: {merge.merged} merged into {merge.keep} (undo: {_undo(merge.id)})", highlight=False)


@group.command("merge", epilog="Example: mnemex problems merge p3 p7")
def merge_command(
    keep: str = typer.Argument(..., help="the known problem that stays, e.g. p3"),
    merge: str = typer.Argument(..., help="the known problem folded into it, e.g. p7"),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Fold known problem MERGE into KEEP: KEEP takes its fixes and failed attempts; undo with unmerge."""
    result = MergeOut.model_validate(
        GatewayClient(load_settings()).post("/api/problems/merge", {"keep": keep, "merge": merge})
    )
    if as_json:
        print_json(result.model_dump())
        return
    record = result.merge
    out.print(f"merged {record.merged} into {record.keep} (merge {record.id})", highlight=False)
    if result.problem is not None:
        out.print(f"{result.problem.id} now has {_counts(result.problem)}", highlight=False)
    out.print(f"undo with: {_undo(record.id)}", highlight=False)


@group.command("unmerge", epilog="Example: mnemex problems unmerge m2")
def unmerge_command(
    merge_id: str = typer.Argument(..., help="the merge to undo, e.g. m2"),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Undo a merge: the merged problem comes back as it was; what the kept one learned since stays."""
    result = UnmergeOut.model_validate(
        GatewayClient(load_settings()).post("/api/problems/unmerge", {"merge_id": merge_id})
    )
    if as_json:
        print_json(result.model_dump())
        return
    record = result.merge
    out.print(f"undone {record.id}: {record.merged} and {record.keep} are two problems again", highlight=False)
    for problem in (result.restored, result.kept):
        if problem is not None:
            out.print(f"{problem.id}: {_counts(problem)}  {_said(problem.statement)}", highlight=False)
