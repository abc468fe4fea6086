"""Books: ingest (.txt/.md/.pdf, 10 MB max), list, remove by title.

POST /api/ingest accepts either
  * multipart/form-data: ``file`` (the document), ``title`` (defaults to the
    file name), optional ``source`` and ``cwd``; or
  * application/json: ``{"title", "filename", "text"}`` for text, or
    ``{"title", "filename", "data_base64"}`` for any file (PDF).
Bodies over the limit get 413 from the BodyLimit middleware before parsing;
a decoded file over 10 MB gets 413 here, before any backend call.

POST /api/ingest?progress=ndjson takes the same bodies and answers with
``application/x-ndjson``, one object a line, as the memory service embeds
and stores the chunks::

    {"type": "progress", "chunks_total": 120, "chunks_done": 0}
    {"type": "progress", "chunks_total": 120, "chunks_done": 32}
    ...
    {"type": "result", "title": ..., "chunks": 120, "skipped_unchanged": false, "ids": [...]}

An unchanged file gets only the result line. Errors found before the first
line (bad input, memory down) are ordinary 413/422/503 answers; a failure
after that ends the stream with ``{"type": "error", "status": 503, "error": ...}``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import AsyncIterator
from typing import Any, Literal

import grpc
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from gateway import validation
from gateway.deps import get_operations
from gateway.errors import InvalidInput
from gateway.operations import Operations
from gateway.rpc import translate
from gateway.schemas import IngestJsonBody, RemoveBookBody
from gateway.validation import MAX_BOOK_BYTES
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

router = APIRouter(prefix="/api", tags=["books"])
STREAM_TIMEOUT = 600.0  # a whole 10 MB book on a slow CPU; the progress lines show it is alive

TOO_LARGE = {"error": f"the file is larger than {MAX_BOOK_BYTES:,} bytes (10 MB); split it or ingest a smaller file"}


async def _from_multipart(request: Request) -> tuple[dict[str, Any], bytes]:
    form = await request.form(max_files=1, max_fields=10)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise InvalidInput("multipart ingest needs a 'file' part holding the document")
    data = await upload.read(MAX_BOOK_BYTES + 1)
    filename = upload.filename or ""
    fields = {key: str(form.get(key) or "") for key in ("title", "source", "cwd")}
    fields["filename"] = filename
    fields["title"] = fields["title"] or filename.rsplit("/", 1)[-1]
    return fields, data


async def _from_json(request: Request) -> tuple[dict[str, Any], bytes]:
    try:
        body = IngestJsonBody.model_validate_json(await request.body())
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidInput(f"{'.'.join(map(str, first['loc'])) or 'body'}: {first['msg']}") from None
    if body.data_base64 is not None:
        if len(body.data_base64) > MAX_BOOK_BYTES * 4 // 3 + 8:
            return {"too_large": True}, b""
        try:
            data = base64.b64decode(body.data_base64, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput("data_base64 is not valid base64") from None
    elif body.text is not None:
        data = body.text.encode("utf-8")
    else:
        raise InvalidInput("pass the document as 'text' (plain text) or 'data_base64' (any file, e.g. a PDF)")
    filename = body.filename or f"{body.title}.txt"
    return {"title": body.title, "filename": filename, "source": body.source, "cwd": body.cwd}, data


@router.post("/ingest", response_model=None)
async def ingest(
    request: Request,
    progress: Literal["ndjson"] | None = Query(default=None, description="ndjson: stream chunk progress, then the result"),
    ops: Operations = Depends(get_operations),
) -> dict[str, Any] | JSONResponse | StreamingResponse:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        fields, data = await _from_multipart(request)
    elif content_type.startswith("application/json"):
        fields, data = await _from_json(request)
    else:
        raise InvalidInput(
            "send multipart/form-data with a 'file' part, or application/json with 'text' or 'data_base64'"
        )
    if fields.get("too_large") or len(data) > MAX_BOOK_BYTES:
        return JSONResponse(TOO_LARGE, status_code=413)
    if progress == "ndjson":
        return await _ingest_with_progress(ops, fields, data)
    return await ops.ingest_book(
        cwd=fields.get("cwd") or None,
        title=fields["title"],
        filename=fields["filename"],
        data=data,
        source=fields.get("source", ""),
    )


def _book_request(ops: Operations, fields: dict[str, Any], data: bytes) -> mem_pb.IngestBookRequest:
    """The same checks as ``Operations.ingest_book``, for the streaming call."""
    validation.book_size(data)
    title = validation.text(fields["title"], "title", validation.MAX_TITLE_CHARS, required=True).strip()
    return mem_pb.IngestBookRequest(
        scope=ops.scopes(fields.get("cwd") or None)[0],
        title=title,
        source=validation.text(fields.get("source", ""), "source", validation.MAX_TITLE_CHARS),
        data=data,
        filename=validation.text(fields["filename"], "filename", validation.MAX_TITLE_CHARS, required=True),
        skip_if_unchanged=True,
    )


def _line(event: dict[str, Any]) -> bytes:
    return json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n"


def _event(message: mem_pb.IngestBookStreamResponse) -> dict[str, Any]:
    if message.HasField("progress"):
        done = message.progress
        return {"type": "progress", "chunks_total": done.chunks_total, "chunks_done": done.chunks_done}
    result = message.result
    return {
        "type": "result",
        "title": result.title,
        "chunks": result.chunks,
        "skipped_unchanged": result.skipped_unchanged,
        "ids": list(result.ids),
    }


async def _ingest_with_progress(ops: Operations, fields: dict[str, Any], data: bytes) -> StreamingResponse:
    book = _book_request(ops, fields, data)
    call = ops.backends.memory.IngestBookStream(
        mem_pb.IngestBookStreamRequest(book=book), timeout=STREAM_TIMEOUT, metadata=ops.backends.metadata
    )
    try:  # the first message decides the HTTP status: bad input or a down service is not a 200
        first = await call.read()
    except grpc.aio.AioRpcError as exc:
        raise translate("memory", exc) from None
    return StreamingResponse(_progress_lines(call, first), media_type="application/x-ndjson")


async def _progress_lines(call: Any, first: Any) -> AsyncIterator[bytes]:
    message = first
    try:
        while message is not grpc.aio.EOF:
            yield _line(_event(message))
            message = await call.read()
    except grpc.aio.AioRpcError as exc:
        failure = translate("memory", exc)
        yield _line({"type": "error", "status": failure.http_status, "error": failure.message})
    finally:
        call.cancel()  # a client that went away stops the ingest (no-op once it is complete)


@router.get("/books")
async def list_books(
    cwd: str | None = Query(default=None, max_length=4096), ops: Operations = Depends(get_operations)
) -> dict[str, Any]:
    return await ops.list_books(cwd=cwd)


@router.post("/books/remove")
async def remove_book(body: RemoveBookBody, ops: Operations = Depends(get_operations)) -> dict[str, Any]:
    """Remove every chunk of a book and the knowledge graph's references to them."""
    return await ops.remove_book(cwd=body.cwd, title=body.title)
