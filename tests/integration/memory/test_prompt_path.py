"""The production PrepareContext, traced through services/memory: every call goes down the layers.

The request has the shape the gateway sends on every prompt (``gateway/prompt_context.py``):
the prompt's vector, the kg's collection weights and fact ids (boosts), the lesson ids,
limit 5 and a session id, over a store of a few dozen memories with facts and lessons.
It goes over real gRPC to the real servicer of a service started for this test: once
cold (the first request after the service started and warmed its mirrors) and once warm
(the same prompt again). ``CallTrace`` records every function of the package entered on
the event loop's thread, from the request until the turn it deferred past the reply
(``TurnWrites``) is written.

The layers rank transport > usecases > retrieval > storage > domain. A call from a
module to one of a higher layer (a callback, an injected bound method, storage running
retrieval code) fails the test. The counts printed (modules, function entries, returns
into a module already left) and the module -> modules it called are the figures of
ARCHITECTURE.md.
"""

from __future__ import annotations

from pathlib import Path

import grpc
import numpy as np

import services.memory
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_channel import channel
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.support.call_trace import CallTrace, first_component, layer_violations, print_summary
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import start_memory_service

LAYERS = ("domain", "storage", "retrieval", "usecases", "transport")  # bottom to top
RANK = {layer: i for i, layer in enumerate(LAYERS)}
PACKAGE = Path(services.memory.__file__).parent
SCOPE = common_pb.Scope(user="tracer", project="prompt-path")
QUERY = "how did we fix the flaky test?"

NOTES = [  # twenty-four different notes: near-duplicates would be collapsed into one line
    f"Note {i}: the flaky test in the {area} suite was fixed by {fix}"
    for i, (area, fix) in enumerate(
        (area, fix)
        for area in ("api", "billing", "search", "ingest")
        for fix in (
            "pinning the random seed",
            "waiting for the server socket before connecting",
            "freezing the clock with a fixture",
            "isolating the temp directory per test",
            "sorting the set before comparing",
            "raising the HTTP client timeout",
        )
    )
]
HISTORY = [
    "We moved the CI runners to larger machines last Friday",
    "The release checklist now includes a flaky-test report",
    "Yesterday the nightly build failed on a network timeout",
    "The team agreed to quarantine tests that fail twice in a week",
]
FACTS = [
    "The user prefers pytest -x for quick runs",
    "The project's test suite runs under pytest-xdist with 4 workers",
    "The user's CI provider is GitHub Actions",
    "The user wants flaky tests reported, never silently retried",
]
LESSONS = [
    "Lesson: a test that depends on wall-clock time needs a frozen clock",
    "Lesson: retries hide flaky tests; fix the race instead",
    "Lesson: a shared temp directory makes tests order-dependent",
]


def rank(module: str) -> int:
    return RANK[first_component(module)]


def first_entries(trace: CallTrace) -> list[str]:
    """The layers above the domain in the order the call first entered each (every layer may use the domain)."""
    return [layer for layer in dict.fromkeys(first_component(e.module) for e in trace.entries) if layer != "domain"]


def check_the_path(trace: CallTrace) -> None:
    modules = trace.modules()
    assert modules, "the trace recorded nothing: is the profile function installed on the loop's thread?"
    assert modules[0] == "transport/prompt_rpcs.py"
    layers = [first_component(e.module) for e in trace.entries]
    back = max(i for i, layer in enumerate(layers) if layer == "transport")  # and back: the reply is built there
    assert back > layers.index("retrieval") and back > layers.index("storage")
    assert {first_component(m) for m in modules} == set(LAYERS), modules
    assert "composition.py" not in modules and "settings.py" not in modules
    order = first_entries(trace)
    assert order[:2] == ["transport", "usecases"], order
    assert order.index("usecases") < order.index("retrieval") and order.index("usecases") < order.index("storage")
    deferred = [e for e in trace.entries if e.function == "write_injection"]
    assert deferred and deferred[0].module == "usecases/turn_recording.py", "the deferred write was not traced"
    violations = layer_violations(trace.entries, rank)
    assert violations == [], "\n".join(violations)


def test_the_production_prompt_request_only_calls_down_the_layers(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    home = tmp_path / "memory-home"

    async def seed() -> tuple[bytes, list[str], list[str]]:
        running = await start_memory_service(home, embedding_addr)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as chan:
                stub = pb_grpc.MemoryServiceStub(chan)

                async def store(content: str, collection: str) -> str:
                    reply = await stub.Store(
                        pb.StoreRequest(scope=SCOPE, collection=collection, content=content), timeout=30
                    )
                    return str(reply.memory.id)

                for note in NOTES:
                    await store(note, "working")
                for line in HISTORY:
                    await store(line, "history")
                facts = [await store(fact, "memory_bank") for fact in FACTS]
                lessons = [await store(lesson, "patterns") for lesson in LESSONS]
            vector = await EmbeddingClient(channel(embedding_addr)).embed([QUERY])
        finally:
            await running.stop(0)
        return np.asarray(vector[0], dtype="<f4").tobytes(), facts, lessons

    vector, fact_ids, lesson_ids = loop_thread.run(seed())
    request = pb.PrepareContextRequest(  # what gateway/prompt_context.py sends
        scope=SCOPE,
        session_id="traced-session",
        prompt=QUERY,
        client="claude",
        search=pb.SearchRequest(
            query=QUERY,
            query_vector=vector,
            limit=5,
            sort_by=pb.SORT_BY_RELEVANCE,
            collection_weights={"memory_bank": 1.2, "patterns": 1.1, "working": 1.0, "history": 0.9},
            boost_ids=fact_ids[:2],
        ),
        lesson_ids=lesson_ids[:2],
    )

    async def traced_twice() -> tuple[CallTrace, CallTrace]:
        running = await start_memory_service(home, embedding_addr)  # a fresh process's state over the data
        try:
            await running.core.warmed()  # the start's warming is not part of the request
            async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as chan:
                stub = pb_grpc.MemoryServiceStub(chan)
                traces = []
                for _ in ("cold", "warm"):
                    trace = CallTrace(PACKAGE)

                    async def answer_then_record() -> pb.PrepareContextResponse:
                        reply = await stub.PrepareContext(request, timeout=30)
                        await running.core.turn_writes.settle()  # the write deferred past the reply, traced too
                        return reply

                    reply = await trace.run(answer_then_record)
                    assert len(reply.memories) == 5
                    assert [m.id for m in reply.lessons] == lesson_ids[:2]
                    traces.append(trace)
            return traces[0], traces[1]
        finally:
            await running.stop(0)

    cold, warm = loop_thread.run(traced_twice())
    print_summary(cold, "cold (first request after start)")
    print_summary(warm, "warm (the same request again)")
    check_the_path(cold)
    check_the_path(warm)
