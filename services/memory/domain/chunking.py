"""Books: format detection, text extraction and chunking with overlap.

Plain module (pypdf for PDF text). ``check_size`` runs before anything else
so an oversized upload costs nothing. Chunks break at a paragraph, sentence
or word boundary near the target size and overlap the previous chunk, so a
fact that straddles a boundary is whole in at least one chunk.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import PurePath

from services.memory.domain.memory_errors import InvalidRequest

MAX_BOOK_BYTES = 10 * 1024 * 1024
MAX_TITLE_CHARS = 200
FORMATS = {".txt": "text", ".md": "text", ".markdown": "text", ".pdf": "pdf"}
DEFAULT_CHUNK_CHARS = 1000
DEFAULT_OVERLAP_CHARS = 150

_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"[.!?。！？][\"')\]]?\s"), re.compile(r"\s"))


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str


def check_size(size: int) -> None:
    if size > MAX_BOOK_BYTES:
        raise InvalidRequest(
            f"book is {size / 1_048_576:.1f} MB; the limit is {MAX_BOOK_BYTES // 1_048_576} MB: split the file "
            "into parts and ingest each with its own title"
        )
    if size == 0:
        raise InvalidRequest("book data is empty: send the file's bytes")


def check_filename(filename: str) -> str:
    """A plain base name: no directories, no '..', no NUL (it is stored and shown back)."""
    if any(bad in filename for bad in ("/", "\\", "\x00")) or filename.strip() in (".", "..") or ".." in filename:
        raise InvalidRequest(
            f"filename {filename[:80]!r} has path components: send the file's base name only, e.g. 'notes.md'"
        )
    if len(filename) > 255:
        raise InvalidRequest("filename is longer than 255 characters: send the file's base name")
    return filename


def detect_format(filename: str) -> str:
    suffix = PurePath(filename or "").suffix.lower()
    if suffix not in FORMATS:
        raise InvalidRequest(
            f"cannot ingest {filename!r}: supported formats are {', '.join(FORMATS)} "
            "(set filename to the original file name)"
        )
    return FORMATS[suffix]


def extract_text(data: bytes, fmt: str) -> str:
    if fmt == "pdf":
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        try:
            reader = PdfReader(io.BytesIO(data))
            pages = [page.extract_text() or "" for page in reader.pages]
        except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
            raise InvalidRequest(f"could not read the PDF ({exc}); is the file a valid, unencrypted PDF?") from None
        text = "\n\n".join(p.strip() for p in pages if p.strip())
    else:
        text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    text = re.sub(r"[ \t\f\v]+", " ", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if not text:
        raise InvalidRequest("the book has no extractable text (a scanned PDF needs OCR first)")
    return text


def _cut(text: str, start: int, end: int, min_end: int) -> int:
    """The best break in text[min_end:end], trying paragraphs, sentences, then spaces."""
    window = text[min_end:end]
    for pattern in _BREAKS:
        last = None
        for last in pattern.finditer(window):  # noqa: B007 -- only the last match is wanted
            pass
        if last is not None:
            return min_end + last.end()
    return end


def chunk_text(text: str, chunk_chars: int = DEFAULT_CHUNK_CHARS, overlap: int = DEFAULT_OVERLAP_CHARS) -> list[Chunk]:
    if chunk_chars < 100 or not 0 <= overlap < chunk_chars // 2:
        raise ValueError("chunk_chars must be >= 100 and overlap within [0, chunk_chars / 2)")
    chunks: list[Chunk] = []
    start, length = 0, len(text)
    while start < length:
        end = min(length, start + chunk_chars)
        if end < length:
            end = _cut(text, start, end, start + int(chunk_chars * 0.6))
        piece = text[start:end].strip()
        if piece:
            chunks.append(Chunk(len(chunks), piece))
        if end >= length:
            break
        next_start = max(start + 1, end - overlap)
        space = text.find(" ", next_start, end)
        start = space + 1 if overlap and space != -1 else next_start
    return chunks


def book_title(title: str, filename: str) -> str:
    chosen = (title or PurePath(filename or "").stem).strip()
    if not chosen:
        raise InvalidRequest("book title is empty: pass a title (or a filename to take it from)")
    if len(chosen) > MAX_TITLE_CHARS:
        raise InvalidRequest(f"book title is {len(chosen)} characters; keep it under {MAX_TITLE_CHARS}")
    return chosen
