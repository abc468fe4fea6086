"""Known problems over REST: list a project's, merge two, undo a merge (as the MCP tools and `mnemex problems`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from gateway.caller import CallerResolver
from gateway.capabilities.problem_service import MAX_PROBLEMS, ProblemService
from gateway.problem_models import MergeOut, ProblemsOut, UnmergeOut
from gateway.routes.json_route import JSONRoute
from gateway.schemas import MergeProblemsBody, UnmergeProblemsBody
from gateway.service_deps import caller_resolver, problem_service

router = APIRouter(prefix="/api", tags=["problems"], route_class=JSONRoute)


@router.get("/problems", response_model=ProblemsOut)
async def list_problems(
    cwd: str | None = Query(default=None, max_length=4096),
    limit: int = Query(default=50, ge=1, le=MAX_PROBLEMS),
    problems: ProblemService = Depends(problem_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> ProblemsOut:
    """The project's known problems, most recently seen first, and the merges that hold."""
    return await problems.list_problems(callers.resolve(cwd), limit=limit)


@router.post("/problems/merge", response_model=MergeOut)
async def merge_problems(
    body: MergeProblemsBody,
    problems: ProblemService = Depends(problem_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> MergeOut:
    """Fold known problem ``merge`` into ``keep``; the reply's ``merge.undo`` says how to undo it."""
    return await problems.merge(callers.resolve(body.cwd), keep=body.keep, merge=body.merge)


@router.post("/problems/unmerge", response_model=UnmergeOut)
async def unmerge_problems(
    body: UnmergeProblemsBody,
    problems: ProblemService = Depends(problem_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> UnmergeOut:
    """Undo a merge: the merged problem comes back as it was."""
    return await problems.unmerge(callers.resolve(body.cwd), merge_id=body.merge_id)
