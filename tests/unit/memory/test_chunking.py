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
from services.memory.domain.memory_errors import InvalidRequest
from tests.support.pdf_samples import minimal_pdf


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
