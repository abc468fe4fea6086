"""Known problems through the gateway: list a project's, merge two, undo a merge (the MCP tools use these).

The kg never makes two known problems one by resemblance (``services/kg/problem_merges.py``); a
merge is this explicit call, and each reply says how to undo it. Replies are typed here, once.
"""

from __future__ import annotations

from gateway import input_validation
from gateway.caller import Caller
from gateway.problem_models import KnownProblemOut, MergeOut, ProblemMergeOut, ProblemsOut, UnmergeOut
from gateway.rpc import Rpc
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb

MAX_PROBLEMS = 200
MAX_PROBLEM_ID_CHARS = 32


def undo_call(merge_id: str) -> str:
    return f'unmerge_problems(merge_id="{merge_id}")'


def _problem(problem: kg_pb.KnownProblem) -> KnownProblemOut:
    return KnownProblemOut(
        id=problem.id,
        statement=problem.statement,
        fixes=problem.fixes,
        failures=problem.failures,
        episodes=problem.episodes,
        last_seen=problem.last_seen,
    )


def _merge(merge: kg_pb.ProblemMerge) -> ProblemMergeOut:
    return ProblemMergeOut(
        id=merge.id,
        keep=merge.keep,
        merged=merge.merged,
        merged_statement=merge.merged_statement,
        merged_at=merge.merged_at,
        undone_at=merge.undone_at,
        fixes=merge.fixes,
        failures=merge.failures,
        undo=undo_call(merge.id),
    )


def _id(value: str, field: str) -> str:
    return input_validation.text(value, field, MAX_PROBLEM_ID_CHARS, required=True).strip()


class ProblemService:
    def __init__(self, rpc: Rpc) -> None:
        self.rpc = rpc

    async def list_problems(self, caller: Caller, *, limit: int = 50) -> ProblemsOut:
        input_validation.in_range(limit, "limit", (1, MAX_PROBLEMS))
        request = kg_pb.ListProblemsRequest(scope=caller.scope, limit=limit)
        reply: kg_pb.ListProblemsResponse = await self.rpc.unary("kg", self.rpc.kg(caller.user).ListProblems, request)
        return ProblemsOut(
            problems=[_problem(p) for p in reply.problems], merges=[_merge(m) for m in reply.merges], total=reply.total
        )

    async def merge(self, caller: Caller, *, keep: str, merge: str) -> MergeOut:
        request = kg_pb.MergeProblemsRequest(scope=caller.scope, keep=_id(keep, "keep"), merge=_id(merge, "merge"))
        reply: kg_pb.MergeProblemsResponse = await self.rpc.unary("kg", self.rpc.kg(caller.user).MergeProblems, request)
        return MergeOut(
            merge=_merge(reply.merge), problem=_problem(reply.problem) if reply.HasField("problem") else None
        )

    async def unmerge(self, caller: Caller, *, merge_id: str) -> UnmergeOut:
        request = kg_pb.UnmergeProblemsRequest(scope=caller.scope, merge_id=_id(merge_id, "merge_id"))
        reply: kg_pb.UnmergeProblemsResponse = await self.rpc.unary(
            "kg", self.rpc.kg(caller.user).UnmergeProblems, request
        )
        return UnmergeOut(
            merge=_merge(reply.merge),
            kept=_problem(reply.kept) if reply.HasField("kept") else None,
            restored=_problem(reply.restored) if reply.HasField("restored") else None,
        )
