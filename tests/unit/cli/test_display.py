from __future__ import annotations

from kernel.display import memory_line, memory_lines, number, one_line


def test_scored_memory_line_matches_the_mcp_format() -> None:
    memory = {
        "id": "patterns_ab12",
        "collection": "patterns",
        "content": "Use  pytest\nfixtures",
        "age": "2d",
        "score": 0.72,
        "wilson_score": 0.68,
        "uses": 8,
        "outcome_history": "[YY~N]",
    }
    assert (
        memory_line(memory, 1)
        == "1. [patterns] (2d, s:0.72, w:0.68, 8 uses, [YY~N]) [id:patterns_ab12] Use pytest fixtures"
    )


def test_memory_bank_line_shows_importance_and_confidence_not_scores() -> None:
    memory = {
        "id": "memory_bank_cd34",
        "collection": "memory_bank",
        "content": "Prefers uv",
        "age": "5d",
        "score": 1.0,
        "wilson_score": 0.5,
        "uses": 0,
        "importance": 0.9,
        "confidence": 0.8,
    }
    assert memory_line(memory, 2) == "2. [memory_bank] (5d, imp:0.9, conf:0.8) [id:memory_bank_cd34] Prefers uv"


def test_book_line_shows_title_and_single_use_is_singular() -> None:
    book = {"id": "books_1", "collection": "books", "content": "chapter", "age": "", "metadata": {"title": "Guide"}}
    working = {
        "id": "working_1",
        "collection": "working",
        "content": "x",
        "age": "1h",
        "score": 0.5,
        "wilson_score": 0.5,
        "uses": 1,
        "outcome_history": "",
    }
    lines = memory_lines([book, working], start=3)
    assert lines == [
        "3. [books] (book:Guide) [id:books_1] chapter",
        "4. [working] (1h, s:0.5, w:0.5, 1 use) [id:working_1] x",
    ]


def test_number_and_truncation() -> None:
    assert (number(0.9), number(1), number(0.725), number("bad")) == ("0.9", "1.0", "0.72", "?")
    assert one_line("a " * 50, 10) == "a a a a a…"
    assert len(one_line("x" * 100, 10)) == 10
