"""Streaming, size-bounded reading of JSON Lines files that may be truncated, corrupt or huge.

Memory stays bounded by ``MAX_LINE_BYTES`` whatever the file: a longer line
is drained in chunks and counted as oversized, never held whole. Lines that
are not JSON objects (bad JSON, binary garbage, a half-written last line)
are counted and skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kernel.json_values import JSONObject, parse_value

MAX_LINE_BYTES = 8 * 1024 * 1024
_DRAIN_CHUNK = 1024 * 1024


@dataclass
class LineStats:
    """What reading a file met: ``bytes_read`` of the file, ``entries`` parsed, lines skipped and why."""

    bytes_read: int = 0
    entries: int = 0
    bad_lines: int = 0
    oversized_lines: int = 0

    @property
    def skipped_lines(self) -> int:
        return self.bad_lines + self.oversized_lines


def _drain(handle: IO[bytes]) -> int:
    """Consume the rest of an oversized line; the bytes skipped."""
    skipped = 0
    while True:
        chunk = handle.readline(_DRAIN_CHUNK)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


def json_objects(path: Path, stats: LineStats, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[JSONObject]:
    """Each JSON object line of ``path``, in order; ``stats`` follows the reading (bytes, skipped lines).

    Raises ``OSError`` only when the file cannot be opened or read at all."""
    with path.open("rb") as handle:
        while True:
            line = handle.readline(max_line_bytes)
            if not line:
                return
            stats.bytes_read += len(line)
            if len(line) >= max_line_bytes and not line.endswith(b"\n"):
                stats.bytes_read += _drain(handle)
                stats.oversized_lines += 1
                continue
            if not line.strip():
                continue
            try:
                entry = parse_value(line)
            except (ValueError, RecursionError):  # bad JSON, invalid UTF-8, absurd nesting
                stats.bad_lines += 1
                continue
            if not isinstance(entry, dict):
                stats.bad_lines += 1
                continue
            stats.entries += 1
            yield entry
