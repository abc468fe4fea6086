"""One interface over the readers: a source's exchanges and how far the reading has got."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass

from mnemex.backfill.claude_reader import read_claude_transcript
from mnemex.backfill.exchange import Exchange
from mnemex.backfill.jsonl import LineStats
from mnemex.backfill.opencode_reader import read_opencode_session
from mnemex.backfill.sources import Source


@dataclass
class Reading:
    # A generator: closed as soon as the run leaves it, in the thread that read it (an OpenCode reader holds a
    # SQLite connection that only that thread may close; left to the garbage collector it is closed from another)
    exchanges: Generator[Exchange, None, None]
    done: Callable[[], int]  # progress so far, in the unit of ``Source.size`` (bytes or messages)
    skipped_lines: Callable[[], int]  # lines that could not be read (Claude Code); 0 for a database
    entries: Callable[[], int]  # entries read: 0 with skipped lines means "not a transcript"


def open_reading(source: Source) -> Reading:
    if source.client == "claude":
        stats = LineStats()
        return Reading(
            read_claude_transcript(source.path, stats),
            lambda: stats.bytes_read,
            lambda: stats.skipped_lines,
            lambda: stats.entries,
        )
    if source.client == "opencode" and source.session is not None:
        messages = [0]
        return Reading(
            read_opencode_session(source.path, source.session, messages),
            lambda: messages[0],
            lambda: 0,
            lambda: messages[0],
        )
    raise ValueError(f"no reader for {source.client!r}")
