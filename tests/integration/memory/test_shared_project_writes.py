"""Many writers on one project: stores are batched per collection, none is lost, none is cancelled.

- Concurrent stores into one project's working memory share store calls
  (``MemoryWrites.batches``) and every one of them can be read back.
- Near-duplicates that arrive together still make one memory, as one after
  the other would.
- A stop whose store is held up (its collection held past the hook's
  give-up and the gateway's gRPC deadline) is acknowledged from the intake
  journal before the hook gives up, and stored once the collection is free
  again: the write is not cancelled with the request.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from pathlib import Path

from bench.bench_shared_project import SENTENCES
from services.memory.domain.naming import WORKING, Scope
from services.memory.usecases.memory_writes import StoreResult
from tests.reliability import inproc
from tests.support.hookrun import HOOK_TIMEOUT_S, claude_stop, closed_port, hook_env, run_hook
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService

GATEWAY_DEADLINE_S = HOOK_TIMEOUT_S + 0.5  # the gateway waits on memory a little longer than the hook on it

TOPICS = [
    "the billing deploy",
    "the S3 retry policy",
    "the postgres pool",
    "the GraphQL schema",
    "the nightly reindex",
    "the checkout flag",
    "the tenant migration",
    "the queue dashboard",
]


def _texts(count: int) -> list[str]:
    """Distinct exchanges (the largest cosine between any two is about 0.71, far below the dedup threshold)."""
    return [f"Session {n}, {TOPICS[n % len(TOPICS)]}: {SENTENCES[n]}" for n in range(count)]


def test_concurrent_stores_into_one_project_share_store_calls_and_all_land(
    memory_service: MemoryService, loop_thread: LoopThread
) -> None:
    memory = memory_service.memory
    scope = Scope(f"u{uuid.uuid4().hex[:10]}", f"p{uuid.uuid4().hex[:10]}")
    texts = _texts(24)

    async def together() -> tuple[list[StoreResult], int, int]:
        before = (memory.writes.batches.batches, memory.writes.batches.items)
        results = await asyncio.gather(
            *(memory.writes.store(scope, collection=WORKING, content=t, kind="exchange") for t in texts)
        )
        return results, memory.writes.batches.batches - before[0], memory.writes.batches.items - before[1]

    results, batches, items = loop_thread.run(together())
    assert items == len(texts)
    assert batches < len(texts), "every store paid its own batch: nothing was grouped"
    assert not any(r.deduplicated for r in results)
    stored = loop_thread.run(memory.store.scan(scope, WORKING))
    assert sorted(r.content for r in stored) == sorted(texts)
    assert {r.id for r in stored} == {r.memory.id for r in results}


def test_near_duplicates_arriving_together_make_one_memory(
    memory_service: MemoryService, loop_thread: LoopThread
) -> None:
    memory = memory_service.memory
    scope = Scope(f"u{uuid.uuid4().hex[:10]}", f"p{uuid.uuid4().hex[:10]}")
    same = "Fixed the flaky CI job by pinning numpy to 1.26"
    others = _texts(6)

    async def together() -> list[StoreResult]:
        return await asyncio.gather(
            *(
                memory.writes.store(scope, collection=WORKING, content=t)
                for t in [same, *others[:3], same + ".", *others[3:], same + "!"]
            )
        )

    results = loop_thread.run(together())
    twins = [results[0], results[4], results[-1]]
    assert len({r.memory.id for r in twins}) == 1
    assert sorted(r.deduplicated for r in twins) == [False, True, True]  # whichever came first made it
    stored = loop_thread.run(memory.store.scan(scope, WORKING))
    assert len(stored) == 1 + len(others)


def test_a_stop_the_hook_gave_up_on_is_still_stored(
    memory_service: MemoryService, loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    """The collection is held past the hook's give-up and the gateway's gRPC deadline; it lands after."""
    memory = memory_service.memory
    user = f"giveup{uuid.uuid4().hex[:8]}"
    settings = inproc.settings_for(
        tmp_path / "gateway-home", user, embedding_addr, memory_service.address, f"127.0.0.1:{closed_port()}"
    )
    stop_gateway, url = loop_thread.run(inproc.serve_gateway(settings, backend_timeout_s=GATEWAY_DEADLINE_S))
    env = hook_env(tmp_path / "hook-home", int(url.rsplit(":", 1)[1]))
    cwd = tmp_path / "project"
    cwd.mkdir()
    held = threading.Event()
    release: list[asyncio.Event] = []

    async def hold_the_collection(scope: Scope) -> None:
        release.append(asyncio.Event())
        async with memory.locks.hold(f"write:{scope.user}:{scope.project}:{WORKING}"):
            held.set()
            await release[0].wait()

    try:
        assert (
            run_hook("stop", claude_stop("s-warm", str(cwd), "The first answer opens the project."), env).returncode
            == 0
        )
        scopes = [s for s, c in loop_thread.run(memory.store.owner_scopes()) if s.user == user and c == WORKING]
        assert len(scopes) == 1, scopes
        holder = asyncio.run_coroutine_threadsafe(hold_the_collection(scopes[0]), loop_thread.loop)
        assert held.wait(10)
        answer = "The release checklist moved to docs/RELEASING.md; the tag must be signed."
        gave_up = run_hook("stop", claude_stop("s-late", str(cwd), answer), env)
        # acknowledged from the intake journal after ALONE_WAIT_S, before the hook's give-up
        assert gave_up.returncode == 0 and gave_up.elapsed < HOOK_TIMEOUT_S
        assert not any(answer in r.content for r in loop_thread.run(memory.store.scan(scopes[0], WORKING)))
        time.sleep(
            GATEWAY_DEADLINE_S - gave_up.elapsed + 0.5
        )  # past the gateway's gRPC deadline: the call was cancelled
        loop_thread.loop.call_soon_threadsafe(release[0].set)
        holder.result(10)
        found: list[str] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = [r.content for r in loop_thread.run(memory.store.scan(scopes[0], WORKING))]
            if any(answer in text for text in found):
                break
            time.sleep(0.1)
        assert any(answer in text for text in found), found
    finally:
        if release:
            loop_thread.loop.call_soon_threadsafe(release[0].set)
        loop_thread.run(stop_gateway())
