"""Issue 2's walking skeleton: four real processes, real gRPC, real model, real Chroma."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from kernel.json_values import JSONObject
from tests.support.json_read import json_list, json_str
from tests.support.stack import Stack, make_stack

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = make_stack(tmp_path_factory.mktemp("stack-home"))
    for name in ("embedding", "memory", "kg", "gateway"):
        s.start(name)
    try:
        s.wait_healthy()
        yield s
    finally:
        s.stop()


def test_health_reports_every_backend(stack: Stack) -> None:
    health = stack.get("/api/health")
    assert health["status"] == "ok"
    text = repr(health)
    for name in ("embedding", "memory", "kg"):
        assert name in text


def memory_ids(context: JSONObject) -> list[str]:
    """The ids of the memories a get-context reply lists, best first."""
    return [json_str(memory, "id") for memory in json_list(context, "memories")]


def test_fact_added_through_gateway_comes_back_in_context(stack: Stack, tmp_path: Path) -> None:
    project = str(tmp_path)
    added = stack.post(
        "/api/memory-bank/add",
        {
            "content": "The user deploys the billing service with Helm charts on the staging cluster",
            "tags": ["deploy"],
            "cwd": project,
        },
    )
    fact_id = json_str(added, "memory", "id")
    assert fact_id

    related = stack.post(
        "/api/hooks/get-context",
        {"session_id": "e2e-1", "prompt": "how do I deploy the billing service to staging?", "cwd": project},
    )
    assert f"[id:{fact_id}]" in json_str(related, "context")
    ids = memory_ids(related)
    assert ids and ids[0] == fact_id

    for _ in range(6):  # filler facts so the ranking has something to order
        stack.post(
            "/api/memory-bank/add",
            {"content": f"Filler note number {_} about the office coffee machine schedule {_ * 7}", "cwd": project},
        )
    related = stack.post(
        "/api/hooks/get-context",
        {"session_id": "e2e-2", "prompt": "how do I deploy the billing service to staging?", "cwd": project},
    )
    unrelated = stack.post(
        "/api/hooks/get-context",
        {"session_id": "e2e-3", "prompt": "what time does the coffee machine get cleaned?", "cwd": project},
    )

    def rank(reply: JSONObject) -> int:
        ids = memory_ids(reply)
        return ids.index(fact_id) if fact_id in ids else len(ids) + 100

    assert rank(related) == 0
    assert rank(unrelated) > rank(related)


def test_reflection_lists_each_service(stack: Stack) -> None:
    """With the stack's internal credential, as grpcurl sends it (docs/CONFIGURATION.md)."""
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    from kernel.internal_token import token_path

    expected = {
        "embedding": "mnemex.embedding.v1.EmbeddingService",
        "memory": "mnemex.memory.v1.MemoryService",
        "kg": "mnemex.kg.v1.KnowledgeGraphService",
    }
    for name, service in expected.items():
        with grpc.insecure_channel(stack.addr(name)) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            replies = stub.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                timeout=10,
                metadata=(("authorization", f"Bearer {token_path(stack.home).read_text().strip()}"),),
            )
            listed = {s.name for reply in replies for s in reply.list_services_response.service}
        assert service in listed, (name, listed)
        assert "grpc.health.v1.Health" in listed


def test_sigterm_stops_each_process_cleanly(tmp_path: Path) -> None:
    s = make_stack(tmp_path / "home")
    (tmp_path / "home").mkdir()
    for name in ("embedding", "memory", "kg", "gateway"):
        s.start(name)
    s.wait_healthy()
    s.stop()
    codes = {name: proc.returncode for name, proc in s.procs.items()}
    assert all(code == 0 for code in codes.values()), (codes, {n: s.log_tail(n, 800) for n in codes})
    assert not re.search(r"Traceback", "".join(s.log_tail(n) for n in codes))
