"""`mnemex up` without MNEMEX_TOKEN: every child carries the home's internal credential (issue 36, item 1).

Before, such a stack served every gRPC port to any local process: another OS
user read all memories with ``ListScopes`` / ``Export`` and planted one with
``Store``. The real CLI and supervisor start the whole stack here; each gRPC
service refuses a call without ``<home>/secrets/internal-token`` and answers
one with it, the gateway (which carries it) serves a write and a search, and
a second start reuses the same file.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

import grpc
import pytest

from kernel.json_values import JSONValue, parse_value
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.embedding.v1 import embedding_service_pb2 as emb_pb
from protos.mnemex.embedding.v1 import embedding_service_pb2_grpc as emb_grpc
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as mem_grpc
from tests.support.supervisor import cli, log_tails, stack_env

pytestmark = pytest.mark.slow

SCOPE = common_pb.Scope(user="tester", project="p")
Metadata = tuple[tuple[str, str], ...]


def post(base: str, path: str, body: Mapping[str, object]) -> tuple[int, JSONValue]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        return reply.status, parse_value(reply.read())


def calls(env: dict[str, str]) -> dict[str, Callable[[grpc.Channel, Metadata], object]]:
    """One call per service: name -> f(metadata) that makes it."""
    return {
        "memory": lambda chan, md: mem_grpc.MemoryServiceStub(chan).ListScopes(
            mem_pb.ListScopesRequest(), timeout=20, metadata=md
        ),
        "kg": lambda chan, md: kg_grpc.KnowledgeGraphServiceStub(chan).Stats(
            kg_pb.StatsRequest(scope=SCOPE), timeout=20, metadata=md
        ),
        "embedding": lambda chan, md: emb_grpc.EmbeddingServiceStub(chan).Embed(
            emb_pb.EmbedRequest(texts=["hello"]), timeout=20, metadata=md
        ),
    }


def test_up_gives_every_child_the_home_credential_and_reuses_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = stack_env(home)
    token_file = home / "secrets" / "internal-token"
    try:
        up = cli(env, "up", "--detach")
        assert up.returncode == 0, up.stdout + up.stderr + log_tails(home)
        assert token_file.stat().st_mode & 0o777 == 0o600 and token_file.parent.stat().st_mode & 0o777 == 0o700
        token = token_file.read_text().strip()
        for name, call in calls(env).items():
            with grpc.insecure_channel(env[f"MNEMEX_{name.upper()}_ADDR"]) as chan:
                with pytest.raises(grpc.RpcError) as refused:
                    call(chan, ())
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED, name
                call(chan, (("authorization", f"Bearer {token}"),))
        gateway = "http://" + env["MNEMEX_GATEWAY_ADDR"]
        cwd = str(tmp_path)
        status, _ = post(gateway, "/api/memory-bank/add", {"content": "the staging db is on port 6543", "cwd": cwd})
        assert status == 200
        status, found = post(gateway, "/api/search", {"query": "staging db port", "cwd": cwd})
        assert status == 200 and "6543" in json.dumps(found)
    finally:
        cli(env, "down", timeout=60)
    try:
        again = cli(env, "up", "--detach", "--only", "kg")
        assert again.returncode == 0, again.stdout + again.stderr
        assert token_file.read_text().strip() == token
        with grpc.insecure_channel(env["MNEMEX_KG_ADDR"]) as chan:
            calls(env)["kg"](chan, (("authorization", f"Bearer {token}"),))
    finally:
        cli(env, "down", timeout=60)


def test_up_refuses_an_unusable_credential_and_says_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "secrets").mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    (home / "secrets" / "internal-token").write_text("too-short\n")
    up = cli(stack_env(home), "up", "--detach", "--only", "kg")
    said = " ".join((up.stdout + up.stderr).split())
    assert up.returncode == 1, said
    assert str(home / "secrets" / "internal-token") in said and "MNEMEX_TOKEN" in said and "Traceback" not in said
    assert not (home / "logs" / "kg.log").exists()  # no service was started
