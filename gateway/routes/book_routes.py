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
from dataclasses import dataclass
from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from gateway.caller import Caller, CallerResolver
from gateway.capabilities.library_service import LibraryService
from gateway.gateway_errors import InvalidInput
from gateway.input_validation import MAX_BOOK_BYTES
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import BooksOut, IngestOut, RemovedBookOut
from gateway.routes.json_route import JSONRoute
from gateway.safe_json import TooDeep, UnrepresentableNumber, decode_json
from gateway.schemas import IngestJsonBody, RemoveBookBody
from gateway.service_deps import caller_resolver, library_service

router = APIRouter(prefix="/api", tags=["books"], route_class=JSONRoute)

TOO_LARGE = {"error": f"the file is larger than {MAX_BOOK_BYTES:,} bytes (10 MB); split it or ingest a smaller file"}


@dataclass(frozen=True)
class _Upload:
    """What an ingest request names: the book's title and file name, its source, the caller's cwd."""

    title: str = ""
    filename: str = ""
    source: str = ""
    cwd: str | None = None
    too_large: bool = False  # the base64 text alone is past the limit: nothing was decoded


async def _from_multipart(request: Request) -> tuple[_Upload, bytes]:
    form = await request.form(max_files=1, max_fields=10)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise InvalidInput("multipart ingest needs a 'file' part holding the document")
    data = await upload.read(MAX_BOOK_BYTES + 1)
    filename = upload.filename or ""
    fields = {key: str(form.get(key) or "") for key in ("title", "source", "cwd")}
    title = fields["title"] or filename.rsplit("/", 1)[-1]
    return _Upload(title=title, filename=filename, source=fields["source"], cwd=fields["cwd"]), data


async def _from_json(request: Request) -> tuple[_Upload, bytes]:
    try:
        body = IngestJsonBody.model_validate(decode_json(await request.body()))
    except (UnrepresentableNumber, TooDeep) as exc:
        raise InvalidInput(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"body: Invalid JSON: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidInput(f"{'.'.join(map(str, first['loc'])) or 'body'}: {first['msg']}") from None
    if body.data_base64 is not None:
        if len(body.data_base64) > MAX_BOOK_BYTES * 4 // 3 + 8:
            return _Upload(too_large=True), b""
        try:
            data = base64.b64decode(body.data_base64, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput("data_base64 is not valid base64") from None
    elif body.text is not None:
        data = body.text.encode("utf-8")
    else:
        raise InvalidInput("pass the document as 'text' (plain text) or 'data_base64' (any file, e.g. a PDF)")
    filename = body.filename or f"{body.title}.txt"
    return _Upload(title=body.title, filename=filename, source=body.source, cwd=body.cwd), data


@router.post(
    "/ingest",
    response_model=IngestOut,
    responses={
        200: {
            "content": {"application/x-ndjson": {}},
            "description": "With progress=ndjson: progress lines, then the result",
        }
    },
)
async def ingest(
    request: Request,
    progress: Literal["ndjson"] | None = Query(
        default=None, description="ndjson: stream chunk progress, then the result"
    ),
    library: LibraryService = Depends(library_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject | JSONResponse | StreamingResponse:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        upload, data = await _from_multipart(request)
    elif content_type.startswith("application/json"):
        upload, data = await _from_json(request)
    else:
        raise InvalidInput(
            "send multipart/form-data with a 'file' part, or application/json with 'text' or 'data_base64'"
        )
    if upload.too_large or len(data) > MAX_BOOK_BYTES:
        return JSONResponse(TOO_LARGE, status_code=413)
    caller = callers.resolve(upload.cwd or None)
    if progress == "ndjson":
        return await _ingest_with_progress(library, caller, upload, data)
    ingested = await library.ingest_book(
        caller, title=upload.title, filename=upload.filename, data=data, source=upload.source
    )
    return ingested.to_json()


def _line(event: JsonObject) -> bytes:
    return json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n"


async def _ingest_with_progress(
    library: LibraryService, caller: Caller, upload: _Upload, data: bytes
) -> StreamingResponse:
    events = await library.ingest_progress(
        caller,
        title=upload.title,
        filename=upload.filename,
        data=data,
        source=upload.source,
    )
    return StreamingResponse((_line(event.to_json()) async for event in events), media_type="application/x-ndjson")


@router.get("/books", response_model=BooksOut)
async def list_books(
    cwd: str | None = Query(default=None, max_length=4096),
    library: LibraryService = Depends(library_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    return (await library.books(callers.resolve(cwd))).to_json()


@router.post("/books/remove", response_model=RemovedBookOut)
async def remove_book(
    body: RemoveBookBody,
    library: LibraryService = Depends(library_service),
    callers: CallerResolver = Depends(caller_resolver),
) -> JsonObject:
    """Remove every chunk of a book and the knowledge graph's references to them."""
    return (await library.remove(callers.resolve(body.cwd), title=body.title)).to_json()
