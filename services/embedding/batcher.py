"""Micro-batching: many concurrent small requests share one encode call.

Requests queue up; a single worker takes everything queued (up to
``max_batch`` texts), encodes it in one call on a worker thread, and hands
each caller its rows. A lone caller is encoded at once; under load, requests
pile up while the previous batch runs and share the next one, and when the
last batch had N callers the worker waits for N to be queued again (at most
``window_ms``, and at most half the last encode's time), so batches stay
whole instead of fragmenting. Plain asyncio, no gRPC.

A lone short text (``inline_chars``; a prompt) is encoded on the event loop
itself: handing it to a worker thread and back cost ~0.4 ms of a ~5 ms encode,
and encodes run one at a time anyway, so requests that arrive meanwhile only
wait in gRPC's queue instead of the batcher's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from services.embedding.model import Encoder

DEFAULT_WINDOW_MS = 10.0
# Never wait longer than this share of the last encode: waiting costs at most a
# fraction of a batch, so light, unsynchronised load is barely delayed.
WAIT_SHARE = 0.5


class DeadlinePassed(TimeoutError):
    """The caller's deadline passed while its texts waited for the model."""


@dataclass
class _Pending:
    texts: list[str]
    future: asyncio.Future[npt.NDArray[np.float32]]
    deadline: float | None = None  # monotonic seconds
    enqueued: float = field(default_factory=time.monotonic)


class MicroBatcher:
    def __init__(
        self,
        encoder: Encoder,
        *,
        max_batch: int = 128,
        window_ms: float = DEFAULT_WINDOW_MS,
        inline_chars: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._encoder = encoder
        self._clock = clock  # monotonic seconds: deadlines, the window, the last encode's time
        self._max_batch = max_batch
        self._inline_chars = inline_chars  # 0: always encode on a worker thread
        self._window = window_ms / 1000.0
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._last_callers = 0
        self._last_encode_s = 0.0
        self.batches_run = 0
        self.texts_encoded = 0

    @property
    def encoder(self) -> Encoder:
        return self._encoder

    def start(self) -> None:
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._run(), name="embed-batcher")

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            try:
                await self._worker
            except asyncio.CancelledError:
                pass
            self._worker = None

    async def embed(self, texts: list[str], timeout: float | None = None) -> npt.NDArray[np.float32]:
        self.start()
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else self._clock() + timeout
        pending = _Pending(list(texts), loop.create_future(), deadline)
        await self._queue.put(pending)
        return await pending.future

    async def _collect(self) -> list[_Pending]:
        first = await self._queue.get()
        batch = [first]
        size = len(first.texts)
        # Under concurrency, wait (at most ``window``) until as many callers as
        # last time have come back: the previous batch's callers return almost
        # together, and one full batch encodes faster than a run of fragments.
        # A lone prompt (the last batch had one caller) is encoded at once.
        expected = self._last_callers if self._window > 0 else 1
        end = self._clock() + min(self._window, WAIT_SHARE * self._last_encode_s)
        while size < self._max_batch:
            try:
                item = self._queue.get_nowait()
            except asyncio.QueueEmpty:
                remaining = end - self._clock()
                if len(batch) >= expected or remaining <= 0:
                    break
                try:
                    item = await asyncio.wait_for(self._queue.get(), remaining)
                except TimeoutError:
                    break
            batch.append(item)
            size += len(item.texts)
        self._last_callers = len(batch)
        return batch

    async def _run(self) -> None:
        while True:
            batch = await self._collect()
            now = self._clock()
            live = []
            for item in batch:
                if item.future.cancelled():
                    continue
                if item.deadline is not None and item.deadline <= now:
                    item.future.set_exception(
                        DeadlinePassed(
                            "deadline passed while waiting for the model: allow more time or send fewer texts"
                        )
                    )
                    continue
                live.append(item)
            if not live:
                continue
            texts = [t for item in live for t in item.texts]
            started = self._clock()
            try:
                if len(texts) == 1 and len(texts[0]) <= self._inline_chars:
                    vectors = self._encoder.encode(texts)
                else:
                    vectors = await asyncio.to_thread(self._encoder.encode, texts)
            except Exception as exc:  # hand the failure to every waiting caller
                for item in live:
                    if not item.future.done():
                        item.future.set_exception(exc)
                continue
            self._last_encode_s = self._clock() - started
            self.batches_run += 1
            self.texts_encoded += len(texts)
            start = 0
            for item in live:
                rows = vectors[start : start + len(item.texts)]
                start += len(item.texts)
                if not item.future.done():
                    item.future.set_result(rows)
