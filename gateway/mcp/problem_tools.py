"""The known-problem tools: ``list_problems``, ``merge_problems`` and ``unmerge_problems``.

mnemex files an episode (a problem, what failed, the fix) under a known problem only on clear
evidence, so one problem told two ways can become two. These tools let the assistant (or the user
through it) see a project's known problems and make two of them one, or undo that: thin
translations onto ``ProblemService`` (``gateway.capabilities.problem_service``). Problem
statements are the users' own words, neutralised before they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from gateway.caller import Caller
from gateway.capabilities.problem_service import MAX_PROBLEM_ID_CHARS, MAX_PROBLEMS, ProblemService
from gateway.inert_text import neutralize
from gateway.mcp.memory_tools import READ_ONLY, Cwd
from gateway.mcp.tool_runner import ToolContext, ToolRunner, ToolServer
from gateway.problem_models import KnownProblemOut, MergeOut, ProblemsOut, UnmergeOut
from gateway.replies.reply_json import JsonObject

STATEMENT_CHARS = 160
ProblemId = Annotated[
    str, Field(min_length=1, max_length=MAX_PROBLEM_ID_CHARS, description="A known problem's id, e.g. p12")
]
MergeId = Annotated[str, Field(min_length=1, max_length=MAX_PROBLEM_ID_CHARS, description="A merge's id, e.g. m3")]


def _plural(count: int, one: str, many: str = "") -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _said(statement: str) -> str:
    return f'"{neutralize(statement, STATEMENT_CHARS)}"'


def _counts(problem: KnownProblemOut) -> str:
    return (
        f"{_plural(problem.fixes, 'fix', 'fixes')}, {_plural(problem.failures, 'failed attempt')}, "
        f"{_plural(problem.episodes, 'episode')}"
    )


def list_text(result: ProblemsOut) -> str:
    if not result.problems:
        return "No known problems in this project yet: a problem becomes known when a session fails at it or fixes it."
    shown = (
        f" (the {len(result.problems)} most recent of {result.total})" if result.total > len(result.problems) else ""
    )
    lines = [f"{_plural(result.total, 'known problem')} in this project{shown}:"]
    lines += [f"- {p.id}: {_said(p.statement)} ({_counts(p)})" for p in result.problems]
    if result.merges:
        lines.append("Merges that hold:")
        lines += [
            f"- {m.id}: {m.merged} {_said(m.merged_statement)} merged into {m.keep}; undo with {m.undo}"
            for m in result.merges
        ]
    lines.append(
        'Two that are one problem: merge_problems(keep="<id>", merge="<id>") folds the second into the first '
        "(it can be undone)."
    )
    return "\n".join(lines)


def merge_text(result: MergeOut) -> str:
    merge = result.merge
    head = f"Merged {merge.merged} into {merge.keep} (merge {merge.id})."
    kept = result.problem
    now = (
        f" {kept.id} {_said(kept.statement)} now has {_counts(kept)}; a recurrence of either problem is "
        f"recognised as {kept.id} and answered with its fixes."
        if kept is not None
        else ""
    )
    gone = f" {merge.merged} {_said(merge.merged_statement)} is no longer recognised on its own."
    return f"{head}{now}{gone} To undo it, call {merge.undo}."


def unmerge_text(result: UnmergeOut) -> str:
    merge = result.merge
    lines = [f"Undone merge {merge.id}: {merge.merged} and {merge.keep} are two problems again."]
    if result.restored is not None:
        lines.append(f"- {result.restored.id} {_said(result.restored.statement)}: {_counts(result.restored)}")
    if result.kept is not None:
        lines.append(
            f"- {result.kept.id} {_said(result.kept.statement)}: {_counts(result.kept)} "
            "(what it learned since the merge stays with it)"
        )
    return "\n".join(lines)


def register_problem_tools(
    server: ToolServer, runner: ToolRunner, problems: ProblemService, texts: Mapping[str, str]
) -> None:
    @server.tool(
        name="list_problems", title="List the known problems", description=texts["list_problems"], annotations=READ_ONLY
    )
    async def list_problems(
        ctx: ToolContext,
        limit: Annotated[int, Field(ge=1, le=MAX_PROBLEMS)] = 50,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, ProblemsOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await problems.list_problems(caller, limit=limit)
            return list_text(result), result.model_dump()

        return await runner.run("list_problems", ctx, cwd, work)

    @server.tool(
        name="merge_problems",
        title="Merge two known problems",
        description=texts["merge_problems"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    async def merge_problems(
        ctx: ToolContext, keep: ProblemId, merge: ProblemId, cwd: Cwd = None
    ) -> Annotated[CallToolResult, MergeOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await problems.merge(caller, keep=keep, merge=merge)
            return merge_text(result), result.model_dump()

        return await runner.run("merge_problems", ctx, cwd, work)

    @server.tool(
        name="unmerge_problems",
        title="Undo a merge of two known problems",
        description=texts["unmerge_problems"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    async def unmerge_problems(
        ctx: ToolContext, merge_id: MergeId, cwd: Cwd = None
    ) -> Annotated[CallToolResult, UnmergeOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await problems.unmerge(caller, merge_id=merge_id)
            return unmerge_text(result), result.model_dump()

        return await runner.run("unmerge_problems", ctx, cwd, work)
