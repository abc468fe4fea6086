from __future__ import annotations

import itertools

import pytest

from services.memory.domain.chunking import (
    MAX_BOOK_BYTES,
    book_title,
    check_size,
    chunk_text,
    detect_format,
    extract_text,
)
from services.memory.domain.errors import InvalidRequest


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF with one line of text (Helvetica), built by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_size_limit_is_checked_first() -> None:
    with pytest.raises(InvalidRequest, match="10 MB"):
        check_size(MAX_BOOK_BYTES + 1)
    check_size(MAX_BOOK_BYTES)


def test_formats() -> None:
    assert detect_format("notes.MD") == "text"
    assert detect_format("a.pdf") == "pdf"
    with pytest.raises(InvalidRequest, match="supported formats"):
        detect_format("slides.pptx")


def test_pdf_text_comes_from_pypdf() -> None:
    assert "Wilson bound ranks memories" in extract_text(minimal_pdf("Wilson bound ranks memories"), "pdf")
    with pytest.raises(InvalidRequest, match="PDF"):
        extract_text(b"%PDF-1.4 garbage", "pdf")


def test_chunks_overlap_and_cover_all_text() -> None:
    sentences = [f"Sentence number {i} explains one detail of the system." for i in range(120)]
    text = " ".join(sentences)
    chunks = chunk_text(text, chunk_chars=500, overlap=100)
    assert len(chunks) > 5
    assert all(len(c.text) <= 500 for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for sentence in sentences:  # every sentence survives whole in some chunk
        assert any(sentence in c.text for c in chunks)
    for left, right in itertools.pairwise(chunks):  # consecutive chunks share text
        assert left.text[-40:].split()[-1] in right.text


def test_short_text_is_one_chunk_and_title_falls_back_to_filename() -> None:
    assert [c.text for c in chunk_text("tiny book")] == ["tiny book"]
    assert book_title("", "/x/Design Notes.md") == "Design Notes"
    with pytest.raises(InvalidRequest):
        book_title("", "")
