from __future__ import annotations

import json

from protos.mnemex.common.v1.common_pb2 import Scope
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.pdf_samples import minimal_pdf

GUIDE = (
    "\n\n".join(
        f"Section {i}. "
        + " ".join(f"The deployment guide paragraph {i} sentence {j} explains step {j}." for j in range(12))
        for i in range(6)
    )
    + "\n\nAppendix. Rollbacks use the blue green switch named flip-traffic."
)


def ingest(
    stub: MemoryServiceStub,
    scope: Scope,
    title: str,
    filename: str,
    data: bytes,
    *,
    source: str = "",
    skip_if_unchanged: bool = False,
) -> pb.IngestBookResponse:
    request = pb.IngestBookRequest(
        scope=scope, title=title, filename=filename, data=data, source=source, skip_if_unchanged=skip_if_unchanged
    )
    return stub.IngestBook(request, timeout=120)


def test_ingest_list_search_and_remove(stub: MemoryServiceStub, scope: Scope) -> None:
    reply = ingest(stub, scope, "Deploy Guide", "deploy.md", GUIDE.encode(), source="wiki/deploy")
    assert reply.chunks >= 5 and len(reply.ids) == reply.chunks and not reply.skipped_unchanged
    pdf = ingest(stub, scope, "", "Incident Handbook.pdf", minimal_pdf("Page the on-call engineer through PagerDuty"))
    assert (pdf.title, pdf.chunks) == ("Incident Handbook", 1)
    books = {b.title: b for b in stub.ListBooks(pb.ListBooksRequest(scope=scope), timeout=10).books}
    assert set(books) == {"Deploy Guide", "Incident Handbook"}
    assert (books["Deploy Guide"].chunks, books["Deploy Guide"].source) == (reply.chunks, "wiki/deploy")
    assert len(books["Deploy Guide"].content_hash) == 64
    found = stub.Search(
        pb.SearchRequest(scope=scope, query="how do rollbacks work? flip-traffic", collections=["books"], limit=3),
        timeout=30,
    )
    top = found.memories[0]
    assert "flip-traffic" in top.content
    meta = json.loads(top.metadata_json)
    assert (meta["title"], meta["source"]) == ("Deploy Guide", "wiki/deploy") and "chunk_index" in meta
    pdf_hit = stub.Search(
        pb.SearchRequest(scope=scope, query="who do I page during an incident", collections=["books"], limit=1),
        timeout=30,
    )
    assert "PagerDuty" in pdf_hit.memories[0].content
    removed = stub.RemoveBook(pb.RemoveBookRequest(scope=scope, title="Deploy Guide"), timeout=30)
    assert removed.removed_chunks == reply.chunks and set(removed.removed_ids) == set(reply.ids)
    assert [b.title for b in stub.ListBooks(pb.ListBooksRequest(scope=scope), timeout=10).books] == [
        "Incident Handbook"
    ]
    after = stub.Search(
        pb.SearchRequest(scope=scope, query="flip-traffic rollbacks", collections=["books"]), timeout=30
    )
    assert all("flip-traffic" not in m.content for m in after.memories)


def test_unchanged_files_are_skipped_and_changed_ones_replace_their_chunks(
    stub: MemoryServiceStub, scope: Scope
) -> None:
    first = ingest(stub, scope, "Notes", "notes.txt", b"Version one of the notes about caching.")
    same = ingest(stub, scope, "Notes", "notes.txt", b"Version one of the notes about caching.", skip_if_unchanged=True)
    assert same.skipped_unchanged and list(same.ids) == list(first.ids)
    changed = ingest(stub, scope, "Notes", "notes.txt", b"Version two: caching moved to Redis.", skip_if_unchanged=True)
    assert not changed.skipped_unchanged and set(changed.ids).isdisjoint(first.ids)
    books = stub.ListBooks(pb.ListBooksRequest(scope=scope), timeout=10).books
    assert [(b.title, b.chunks) for b in books] == [("Notes", 1)]


def test_book_text_is_redacted(stub: MemoryServiceStub, scope: Scope) -> None:
    reply = ingest(
        stub, scope, "Ops", "ops.txt", b"Connect with postgres://admin:s3cretpassw0rd@db.internal/app please."
    )
    got = stub.Get(pb.GetRequest(scope=scope, id=reply.ids[0]), timeout=10).memory
    assert "s3cretpassw0rd" not in got.content and "[REDACTED" in got.content
