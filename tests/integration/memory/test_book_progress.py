"""IngestBookStream and Info against the real memory service (real Chroma, real embeddings).

A book of several batches streams chunk progress, then one result; an
unchanged book streams only the result; bad input fails the stream with
INVALID_ARGUMENT. An ingest that fails or is cancelled part way removes the
chunks it wrote, so the previous version of the book stays whole.
"""

from __future__ import annotations

import hashlib
import time

import grpc
import pytest

from kernel import __version__
from protos.mnemex.common.v1.common_pb2 import Scope
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from services.memory.usecases.book_ingest import EMBED_BATCH
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService


def handbook(edition: int, sections: int) -> bytes:
    """About 1.25 chunks (1000 characters each) per section."""
    return "\n\n".join(
        f"Edition {edition}, section {i}. "
        + " ".join(f"Runbook {i} step {j}: drain node {i}-{j}, then restart the worker pool." for j in range(14))
        for i in range(sections)
    ).encode()


def stream(
    stub: MemoryServiceStub, scope: Scope, data: bytes, title: str = "Handbook", filename: str = "handbook.md"
) -> grpc._CallIterator[pb.IngestBookStreamResponse]:
    book = pb.IngestBookRequest(scope=scope, title=title, filename=filename, data=data, skip_if_unchanged=True)
    return stub.IngestBookStream(pb.IngestBookStreamRequest(book=book), timeout=300)


def books_of(stub: MemoryServiceStub, scope: Scope) -> list[tuple[str, int, str]]:
    reply = stub.ListBooks(pb.ListBooksRequest(scope=scope), timeout=30)
    return [(b.title, b.chunks, b.content_hash) for b in reply.books]


def test_progress_counts_every_batch_then_the_result(stub: MemoryServiceStub, scope: Scope) -> None:
    messages = list(stream(stub, scope, handbook(1, sections=55)))
    *progress, last = messages
    assert all(m.WhichOneof("event") == "progress" for m in progress)
    assert last.WhichOneof("event") == "result"
    total = last.result.chunks
    assert total > 2 * EMBED_BATCH, "the book should span at least three batches"
    assert {m.progress.chunks_total for m in progress} == {total}
    done = [m.progress.chunks_done for m in progress]
    assert done == [*range(0, total, EMBED_BATCH), total]  # 0, one step per stored batch, then all
    assert len(last.result.ids) == total and not last.result.skipped_unchanged
    assert books_of(stub, scope) == [("Handbook", total, hashlib.sha256(handbook(1, sections=55)).hexdigest())]

    again = list(stream(stub, scope, handbook(1, sections=55)))
    assert [m.WhichOneof("event") for m in again] == ["result"]
    assert again[0].result.skipped_unchanged and again[0].result.chunks == total


def test_bad_input_fails_the_stream_with_invalid_argument(stub: MemoryServiceStub, scope: Scope) -> None:
    with pytest.raises(grpc.RpcError) as failed:
        list(stream(stub, scope, b"MZ\x90\x00", title="setup", filename="setup.exe"))
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert ".txt" in (failed.value.details() or "")
    assert books_of(stub, scope) == []


def test_a_failed_ingest_leaves_the_previous_version_whole(
    memory_service: MemoryService, loop_thread: LoopThread, stub: MemoryServiceStub, scope: Scope
) -> None:
    first = list(stream(stub, scope, handbook(1, sections=2)))[-1].result
    before = books_of(stub, scope)
    seen: list[int] = []

    def interrupt_after_one_batch(total: int, done: int) -> None:
        seen.append(done)
        if done >= EMBED_BATCH:
            raise RuntimeError("interrupted")

    memory = memory_service.memory
    with pytest.raises(RuntimeError, match="interrupted"):
        loop_thread.run(
            memory.books.ingest(
                memory.scope(scope.user, scope.project),
                title="Handbook",
                source="",
                data=handbook(2, sections=40),
                filename="handbook.md",
                skip_if_unchanged=True,
                on_progress=interrupt_after_one_batch,
            ),
            timeout=300,
        )
    assert seen == [0, EMBED_BATCH]  # one batch of edition 2 was stored, then removed
    assert books_of(stub, scope) == before
    assert before == [("Handbook", first.chunks, hashlib.sha256(handbook(1, sections=2)).hexdigest())]


def test_a_cancelled_stream_stops_the_ingest_and_removes_its_chunks(stub: MemoryServiceStub, scope: Scope) -> None:
    first = list(stream(stub, scope, handbook(1, sections=2)))[-1].result
    before = books_of(stub, scope)
    call = stream(stub, scope, handbook(2, sections=400))
    for message in call:
        if message.progress.chunks_done >= EMBED_BATCH:
            break  # edition 2 has stored chunks now
    call.cancel()
    deadline = time.monotonic() + 30
    while books_of(stub, scope) != before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert books_of(stub, scope) == before
    assert before == [("Handbook", first.chunks, hashlib.sha256(handbook(1, sections=2)).hexdigest())]


def test_info_names_the_service_and_its_version(stub: MemoryServiceStub) -> None:
    info = stub.Info(pb.InfoRequest(), timeout=10)
    assert (info.service, info.version) == ("memory", __version__)
