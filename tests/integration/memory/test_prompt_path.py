"""One PrepareContext, traced through services/memory: every call goes down the layers.

The request goes over real gRPC to the real servicer; ``CallTrace`` records every
function of the package it enters. The layers rank api > retrieval > storage >
domain, and a call from a module to one of a higher layer (a callback, an
injected bound method of the composition root, a storage module running a use
case) fails the test. ARCHITECTURE.md shows the path this test walks.
"""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

import services.memory
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.integration.memory.conftest import store
from tests.support.call_trace import CallTrace, Entry, first_component

pytestmark = pytest.mark.integration

RANK = {"api": 3, "retrieval": 2, "storage": 1, "domain": 0}
PACKAGE = Path(services.memory.__file__).parent


def rank(module: str) -> int:
    return RANK[first_component(module)]


def traced_prepare(memory_service, loop_thread, request: pb.PrepareContextRequest) -> CallTrace:  # type: ignore[no-untyped-def]
    async def call() -> CallTrace:
        async with grpc.aio.insecure_channel(memory_service.address) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            trace = CallTrace(PACKAGE)
            reply = await trace.run(lambda: stub.PrepareContext(request, timeout=30))
            assert len(reply.memories) == 5
            return trace

    return loop_thread.run(call())


def test_prepare_context_only_calls_down_the_layers(stub, scope, memory_service, loop_thread) -> None:  # type: ignore[no-untyped-def]
    fixes = (  # twelve different fixes: near-duplicates would be collapsed into one line
        "pinning the random seed",
        "waiting for the server socket before connecting",
        "freezing the clock with a fixture",
        "isolating the temp directory per test",
        "sorting the set before comparing",
        "raising the HTTP client timeout",
        "resetting the global cache between tests",
        "closing the database connection in teardown",
        "mocking nothing and using a real sqlite file",
        "running the event loop per test",
        "removing the order dependence on environment variables",
        "retrying the port bind on a busy CI runner",
    )
    for i, fix in enumerate(fixes):
        store(stub, scope, f"Note {i}: the flaky test in the {fix.split()[1]} suite was fixed by {fix}")
    store(stub, scope, "The user prefers pytest -x for quick runs", collection="memory_bank")
    query = "how did we fix the flaky test?"
    request = pb.PrepareContextRequest(
        scope=scope, session_id="path", prompt=query, search=pb.SearchRequest(query=query, limit=5)
    )
    stub.PrepareContext(request, timeout=30)  # warm: mirrors built, the turn opened
    # a session read waits for the warm call's deferred write, so none of it lands in the trace
    stub.GetScoringState(pb.GetScoringStateRequest(scope=scope, session_id="path"), timeout=10)
    trace = traced_prepare(memory_service, loop_thread, request)

    modules = trace.modules()
    assert modules, "the trace recorded nothing: is the profile function installed on the loop's thread?"
    assert modules[0] == "api/server.py"
    assert {first_component(m) for m in modules} == set(RANK), modules
    assert "settings.py" not in modules
    upward: list[Entry] = trace.upward_calls(rank)
    assert upward == [], "\n".join(f"{e.caller} -> {e.module}:{e.function}" for e in upward)
