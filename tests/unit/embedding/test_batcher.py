"""MicroBatcher: concurrent callers share encode calls, a lone caller is not delayed.

The encoder is a deterministic stand-in (the seam under the batcher, not under test).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from typing import TypeVar

import numpy as np
import numpy.typing as npt
import pytest

from services.embedding.batcher import MicroBatcher

T = TypeVar("T")


class RecordingEncoder:
    model_id = "fake"
    dimension = 4
    device = "cpu"
    backend = "fake"
    max_seq_length = 16
    precision = "fp32"

    def __init__(self, delay: float = 0.0, fail: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.delay = delay
        self.fail = fail
        self.lock = threading.Lock()

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        with self.lock:
            self.calls.append(list(texts))
        time.sleep(self.delay)
        if self.fail:
            raise RuntimeError("model exploded")
        return np.array([[len(t), i, 0, 1] for i, t in enumerate(texts)], dtype=np.float32)


def run(coro: Coroutine[object, None, T]) -> T:
    return asyncio.run(coro)


def test_each_caller_gets_its_own_rows_when_batched() -> None:
    async def scenario() -> tuple[list[npt.NDArray[np.float32]], RecordingEncoder]:
        encoder = RecordingEncoder(delay=0.02)
        batcher = MicroBatcher(encoder)
        texts = [["a"], ["bb", "ccc"], ["dddd"], ["eeeee"]] * 4
        results = await asyncio.gather(*(batcher.embed(t) for t in texts))
        await batcher.close()
        return results, encoder

    results, encoder = run(scenario())
    texts = [["a"], ["bb", "ccc"], ["dddd"], ["eeeee"]] * 4
    for got, sent in zip(results, texts, strict=True):
        assert [int(row[0]) for row in got] == [len(t) for t in sent]
    assert len(encoder.calls) < len(texts), "concurrent callers were not batched"
    assert sum(len(c) for c in encoder.calls) == sum(len(t) for t in texts)


class FakeClock:
    """Monotonic seconds that move only when an encode says it took time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SlowOnTheClock(RecordingEncoder):
    """Each encode takes ``seconds`` by the fake clock (and no real time)."""

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        super().__init__()
        self.clock, self.seconds = clock, seconds

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.clock.now += self.seconds
        return super().encode(texts)


def test_a_lone_caller_is_encoded_at_once_even_with_a_window() -> None:
    """After a one-caller batch, a lone caller is encoded in the loop steps that collect it.

    The window here is 5 s (half the last encode's 10 s by the fake clock, under
    ``window_ms``): a batcher that waited for company would still be waiting when
    the second caller comes, and would encode both in one call.
    """

    async def scenario() -> tuple[list[list[str]], list[list[str]]]:
        clock = FakeClock()
        encoder = SlowOnTheClock(clock, seconds=10.0)
        batcher = MicroBatcher(encoder, window_ms=60_000, inline_chars=100, clock=clock)
        await batcher.embed(["warm"])  # the last batch: one caller, a 10 s encode
        alone = asyncio.ensure_future(batcher.embed(["alone"]))
        for _ in range(20):  # loop steps only: no real time is waited for
            if len(encoder.calls) == 2:
                break
            await asyncio.sleep(0)
        before_company = list(encoder.calls)
        await batcher.embed(["company"])
        await alone
        await batcher.close()
        return before_company, encoder.calls

    before_company, calls = run(scenario())
    assert before_company == [["warm"], ["alone"]]
    assert calls == [["warm"], ["alone"], ["company"]]


def test_max_batch_is_respected() -> None:
    async def scenario() -> RecordingEncoder:
        encoder = RecordingEncoder(delay=0.01)
        batcher = MicroBatcher(encoder, max_batch=3)
        await asyncio.gather(*(batcher.embed([f"t{i}"]) for i in range(10)))
        await batcher.close()
        return encoder

    encoder = run(scenario())
    assert max(len(c) for c in encoder.calls) <= 3


def test_an_encoder_failure_reaches_every_waiting_caller() -> None:
    async def scenario() -> list[object]:
        batcher = MicroBatcher(RecordingEncoder(fail=True))
        results: list[object] = list(
            await asyncio.gather(*(batcher.embed(["x"]) for _ in range(3)), return_exceptions=True)
        )
        await batcher.close()
        return results

    results = run(scenario())
    assert all(isinstance(r, RuntimeError) and "exploded" in str(r) for r in results)


def test_a_caller_whose_deadline_passed_in_the_queue_is_not_encoded() -> None:
    async def scenario() -> tuple[object, RecordingEncoder]:
        encoder = RecordingEncoder(delay=0.1)
        batcher = MicroBatcher(encoder)
        first = asyncio.ensure_future(batcher.embed(["slow"]))
        await asyncio.sleep(0.01)  # the first call is now encoding
        late = await asyncio.gather(batcher.embed(["late"], timeout=0.01), return_exceptions=True)
        await first
        await batcher.close()
        return late[0], encoder

    late, encoder = run(scenario())
    assert isinstance(late, TimeoutError)
    assert ["late"] not in encoder.calls


@pytest.mark.parametrize("window", [0.0, 5.0])
def test_batches_form_under_load_with_or_without_a_window(window: float) -> None:
    async def scenario() -> RecordingEncoder:
        encoder = RecordingEncoder(delay=0.01)
        batcher = MicroBatcher(encoder, window_ms=window)

        async def caller(n: int) -> None:
            for i in range(5):
                await batcher.embed([f"{n}-{i}"])

        await asyncio.gather(*(caller(n) for n in range(8)))
        await batcher.close()
        return encoder

    encoder = run(scenario())
    assert sum(len(c) for c in encoder.calls) == 40
    assert len(encoder.calls) <= 12, f"{len(encoder.calls)} encode calls for 40 texts from 8 callers"


def _staggered_callers(window_ms: float) -> list[int]:
    """8 callers whose next request comes back 0-7 ms after their reply, as over RPC."""

    async def scenario() -> list[int]:
        encoder = RecordingEncoder(delay=0.03)
        batcher = MicroBatcher(encoder, window_ms=window_ms)

        async def caller(n: int) -> None:
            for i in range(6):
                await batcher.embed([f"{n}-{i}"])
                await asyncio.sleep(0.001 * n)

        await asyncio.gather(*(caller(n) for n in range(8)))
        await batcher.close()
        return [len(c) for c in encoder.calls]

    return run(scenario())


# The window is far wider than the callers' 0-7 ms stagger, so a busy CI machine's scheduling
# delays (a 10 ms window once saw a caller arrive late there) cannot split a batch.
WIDE_WINDOW_MS = 100.0


def test_callers_returning_together_are_encoded_in_whole_batches() -> None:
    sizes = _staggered_callers(window_ms=WIDE_WINDOW_MS)
    assert sum(sizes) == 48
    # Once the batcher has seen the 8 callers together, it waits for all 8 each time.
    steady = sizes[2:]
    assert steady and all(size == 8 for size in steady), sizes


def test_without_a_window_staggered_callers_fragment() -> None:
    """The contrast that makes the window worth having."""
    assert len(_staggered_callers(window_ms=0.0)) > len(_staggered_callers(window_ms=WIDE_WINDOW_MS))


class ThreadRecordingEncoder(RecordingEncoder):
    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.threads.append(threading.get_ident())
        return super().encode(texts)


def test_a_lone_short_text_is_encoded_on_the_loop_and_the_rest_on_a_worker() -> None:
    async def scenario() -> tuple[int, ThreadRecordingEncoder, list[npt.NDArray[np.float32]]]:
        encoder = ThreadRecordingEncoder()
        batcher = MicroBatcher(encoder, inline_chars=20)
        rows = [
            await batcher.embed(["a short prompt"]),
            await batcher.embed(["x" * 21]),
            await batcher.embed(["a", "b"]),
        ]
        await batcher.close()
        return threading.get_ident(), encoder, rows

    loop_thread, encoder, rows = run(scenario())
    assert encoder.threads[0] == loop_thread
    assert encoder.threads[1] != loop_thread and encoder.threads[2] != loop_thread
    assert [int(r[0][0]) for r in rows] == [14, 21, 1]


def test_inline_encoding_is_off_by_default() -> None:
    async def scenario() -> tuple[int, ThreadRecordingEncoder]:
        encoder = ThreadRecordingEncoder()
        batcher = MicroBatcher(encoder)
        await batcher.embed(["short"])
        await batcher.close()
        return threading.get_ident(), encoder

    loop_thread, encoder = run(scenario())
    assert encoder.threads == [encoder.threads[0]] and encoder.threads[0] != loop_thread
