"""The one progress display of ``mnemex ingest`` and ``mnemex backfill`` (mnemex/cli/file_progress.py)."""

from __future__ import annotations

import io

from rich.console import Console

from mnemex.cli.books_command import chunk_progress, ingest_display
from mnemex.cli.file_progress import FileProgress, done_of


def terminal(stream: io.StringIO) -> Console:
    return Console(file=stream, force_terminal=True, width=120)


def test_counts_are_padded_to_the_total_like_richs_m_of_n_column() -> None:
    assert done_of(7, 120) == "  7/120"
    assert done_of(120, 120) == "120/120"
    assert done_of(0, None) == "0/?"


def test_ingest_shows_files_with_chunks_stored_and_the_current_files_chunks() -> None:
    screen = io.StringIO()
    display = ingest_display(terminal(screen), files=2)
    with display:
        display.start_file("runbook.md", total=None, amount="0/?", unit="chunks")
        chunk_progress(display)(12, 5)
        current = display.progress.tasks[display.current]
        assert (current.total, current.completed, current.fields["amount"]) == (12, 5, " 5/12")
        assert display.progress.tasks[display.current].visible
        display.progress.refresh()
        assert "runbook.md" in screen.getvalue() and " 5/12 chunks" in screen.getvalue()
        display.file_done("files, 12 chunks stored")
        files = display.progress.tasks[display.files]
        assert (files.completed, files.fields["amount"], files.fields["unit"]) == (1, "1/2", "files, 12 chunks stored")
        assert not display.progress.tasks[display.current].visible
        display.progress.refresh()
    drawn = screen.getvalue()
    assert "1/2 files, 12 chunks stored" in drawn


def test_a_lone_empty_chunk_total_still_draws_a_finite_bar() -> None:
    display = ingest_display(terminal(io.StringIO()), files=1)
    chunk_progress(display)(0, 0)
    assert display.progress.tasks[display.current].total == 1


def test_without_a_terminal_nothing_is_drawn_and_lines_only_when_asked() -> None:
    quiet = io.StringIO()
    with FileProgress(Console(file=quiet, force_terminal=False), 1, files_unit="files") as display:
        display.start_file("a.md", total=3, amount="0/3", unit="chunks")
        display.line(lambda: "never printed: no line_every")
        display.file_done()
    assert quiet.getvalue() == ""


def test_plain_lines_are_throttled_by_the_injected_clock_and_cut_to_80_columns() -> None:
    stream = io.StringIO()
    now = [100.0]
    display = FileProgress(
        Console(file=stream, force_terminal=False, width=200), 1, files_unit="", line_every=5.0, clock=lambda: now[0]
    )
    display.line(lambda: "first " + "x" * 100)
    now[0] += 4.9
    display.line(lambda: "too soon")
    now[0] += 0.1
    display.line(lambda: "second")
    lines = stream.getvalue().splitlines()
    assert lines == ["first " + "x" * 74, "second"]


def test_plain_lines_are_off_on_a_terminal_and_when_disabled() -> None:
    for force_terminal, enabled in ((True, True), (False, False)):
        stream = io.StringIO()
        display = FileProgress(
            Console(file=stream, force_terminal=force_terminal), 1, files_unit="", enabled=enabled, line_every=0.0
        )
        display.line(lambda: "a plain line")
        assert "a plain line" not in stream.getvalue()
