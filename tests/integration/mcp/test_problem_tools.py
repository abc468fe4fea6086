"""list_problems, merge_problems and unmerge_problems through the real MCP client and the real stack,
and the same over REST and ``mnemex problems``.

Two alembic failures (tests/integration/kg/test_known_problems_apart.py) are taught to the stack's
real kg in the project's scope; they stay two known problems. The MCP tools list them, merge them
(a recurrence of either is then answered with both fixes), and undo the merge.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
from pydantic import BaseModel

from gateway.caller import CallerResolver
from gateway.problem_models import MergeOut, ProblemsOut, UnmergeOut
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder
from tests.integration.kg.known_problems import HEADS, MISSING, lessons, solve
from tests.integration.mcp.clients import connect, expect_error, reply, text_of
from tests.support.mcp_stack import McpStack, run_async

Shape = TypeVar("Shape", bound=BaseModel)


def fixes_for(
    stub: pb_grpc.KnowledgeGraphServiceStub, encoder: Encoder, scope: common_pb.Scope, session: str, prompt: str
) -> set[str]:
    return {x.text for x in lessons(stub, encoder, scope, session, prompt) if x.kind == "solution"}


def test_merge_and_unmerge_two_known_problems_over_mcp(mcp_stack: McpStack, project: Path, encoder: Encoder) -> None:
    scope = CallerResolver(mcp_stack.settings).resolve(str(project)).scope
    with grpc.insecure_channel(mcp_stack.env["MNEMEX_KG_ADDR"]) as channel:
        kg = pb_grpc.KnowledgeGraphServiceStub(channel)
        solve(kg, encoder, scope, "s1", MISSING)
        solve(kg, encoder, scope, "s2", HEADS)

        async def listed_and_merged() -> tuple[ProblemsOut, MergeOut, str]:
            async with connect(mcp_stack, "http", project) as client:
                listed = reply(await client.call_tool("list_problems", {}), ProblemsOut)
                ids = {p.statement: p.id for p in listed.problems}
                merged = await client.call_tool("merge_problems", {"keep": ids[MISSING[0]], "merge": ids[HEADS[0]]})
                return listed, reply(merged, MergeOut), text_of(merged)

        listed, merged, said = run_async(listed_and_merged)
        assert listed.total == 2 and listed.merges == []
        assert all(p.fixes == 1 and p.episodes == 1 for p in listed.problems)
        ids = {p.statement: p.id for p in listed.problems}
        missing, heads = ids[MISSING[0]], ids[HEADS[0]]
        merge_id = merged.merge.id
        assert merged.problem and merged.problem.id == missing and merged.problem.fixes == 2
        undo = f'unmerge_problems(merge_id="{merge_id}")'
        assert merged.merge.undo == undo
        assert f"Merged {heads} into {missing}" in said and f"To undo it, call {undo}." in said
        for session, prompt in (("s3", HEADS[0]), ("s4", MISSING[0])):
            assert fixes_for(kg, encoder, scope, session, prompt) == {MISSING[3], HEADS[3]}

        async def listed_refused_and_undone() -> tuple[ProblemsOut, str, UnmergeOut]:
            async with connect(mcp_stack, "http", project) as client:
                after = reply(await client.call_tool("list_problems", {}), ProblemsOut)
                await expect_error(client, "merge_problems", {"keep": missing, "merge": missing}, "same problem")
                await expect_error(client, "merge_problems", {"keep": missing, "merge": "p99999"}, "list_problems")
                await expect_error(client, "merge_problems", {"keep": missing, "merge": "billing"}, "not a known")
                await expect_error(client, "merge_problems", {"keep": missing}, "merge")
                undone = await client.call_tool("unmerge_problems", {"merge_id": merge_id})
                await expect_error(client, "unmerge_problems", {"merge_id": merge_id}, "already undone")
                await expect_error(client, "unmerge_problems", {"merge_id": "m99999"}, "no merge")
                return after, text_of(undone), reply(undone, UnmergeOut)

        after, undone_text, undone = run_async(listed_refused_and_undone)
        assert [p.id for p in after.problems] == [missing] and after.merges[0].undo == undo
        assert undone.restored and undone.restored.id == heads and undone.kept and undone.kept.fixes == 1
        assert f"Undone merge {merge_id}" in undone_text
        assert fixes_for(kg, encoder, scope, "s5", HEADS[0]) == {HEADS[3]}
        assert fixes_for(kg, encoder, scope, "s6", MISSING[0]) == {MISSING[3]}
        assert kg.Stats(pb.StatsRequest(scope=scope), timeout=5).counts["episode_problems"] == 2

    # The same over REST, as `mnemex problems` uses it.
    query = urllib.parse.urlencode({"cwd": str(project)})
    with urllib.request.urlopen(f"{mcp_stack.gateway_url}/api/problems?{query}", timeout=30) as response:
        assert ProblemsOut.model_validate_json(response.read()).total == 2
    again = MergeOut.model_validate(
        mcp_stack.post("/api/problems/merge", {"cwd": str(project), "keep": missing, "merge": heads})
    ).merge
    assert again.undo == f'unmerge_problems(merge_id="{again.id}")' != undo
    back = UnmergeOut.model_validate(
        mcp_stack.post("/api/problems/unmerge", {"cwd": str(project), "merge_id": again.id})
    )
    assert back.restored and back.restored.id == heads
    with pytest.raises(urllib.error.HTTPError) as refused:
        mcp_stack.post("/api/problems/unmerge", {"cwd": str(project), "merge_id": again.id})
    assert refused.value.code == 422 and "already undone" in refused.value.read().decode()


def cli(stack: McpStack, project: Path, shape: type[Shape], *args: str) -> Shape:
    """``mnemex problems <args> --json``, read as the REST reply it prints."""
    done = subprocess.run(
        [sys.executable, "-m", "mnemex.cli", "problems", *args, "--json"],
        cwd=project,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return shape.model_validate_json(done.stdout)


def test_mnemex_problems_lists_merges_and_unmerges(mcp_stack: McpStack, project: Path, encoder: Encoder) -> None:
    scope = CallerResolver(mcp_stack.settings).resolve(str(project)).scope
    with grpc.insecure_channel(mcp_stack.env["MNEMEX_KG_ADDR"]) as channel:
        kg = pb_grpc.KnowledgeGraphServiceStub(channel)
        solve(kg, encoder, scope, "s1", MISSING)
        solve(kg, encoder, scope, "s2", HEADS)
    ids = {p.statement: p.id for p in cli(mcp_stack, project, ProblemsOut, "list").problems}
    missing, heads = ids[MISSING[0]], ids[HEADS[0]]
    merged = cli(mcp_stack, project, MergeOut, "merge", missing, heads)
    assert merged.problem and merged.problem.fixes == 2
    assert [p.id for p in cli(mcp_stack, project, ProblemsOut, "list").problems] == [missing]
    undone = cli(mcp_stack, project, UnmergeOut, "unmerge", merged.merge.id)
    assert undone.restored and undone.restored.id == heads and undone.kept and undone.kept.fixes == 1
    refused = subprocess.run(
        [sys.executable, "-m", "mnemex.cli", "problems", "unmerge", merged.merge.id],
        cwd=project,
        env=mcp_stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and "already undone" in refused.stderr, refused.stderr
