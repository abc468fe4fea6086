"""The children's log files: opened so a full disk never stops a start, rotated by size, read for a crash's cause.

``logs/<service>.log`` takes a child's stdout and stderr. The supervisor opens
it unbuffered for each start (``open_log``), rotates it while the child runs
(``rotate``), and reads the last exception line of the latest start when the
child exits (``crash_reason``). None of these raises on a full disk.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from io import FileIO
from pathlib import Path

LOG_ROTATE_BYTES = 5 * 1024 * 1024

_ERROR_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*(?:Error|Exception|Unreadable|Exit)): (.+)$")


def crash_reason(log_path: str) -> str | None:
    """The last exception line of the latest start in ``log_path`` (``ErrorName: message``), if any."""
    try:
        with open(log_path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 16384))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    latest = text.rsplit("--- mnemex supervisor: starting", 1)[-1]
    for line in reversed(latest.splitlines()):
        match = _ERROR_LINE.match(line.strip())
        if match:
            # A store's own error already names the store and the file; others keep their class name.
            reason = match.group(2) if match.group(1) == "StoreUnreadable" else f"{match.group(1)}: {match.group(2)}"
            return reason if len(reason) <= 400 else reason[:397] + "..."
    return None


def open_log(path: Path) -> FileIO:
    """``path`` opened for appending, unbuffered (a write a full disk refuses raises at once, and closing
    flushes nothing); ``/dev/null`` when the log cannot be opened at all, so the child starts anyway."""
    try:
        return open(path, "ab", buffering=0)
    except OSError:
        return open(os.devnull, "wb", buffering=0)


def rotate(path: os.PathLike[str] | str, limit: int = LOG_ROTATE_BYTES) -> bool:
    """Once a log passes ``limit`` bytes, move its content to ``<log>.1`` (the one previous log kept).

    Copy, then truncate in place, rather than rename: a running child keeps the
    descriptor it was started with, opened for appending, so after the truncation
    its next line lands at the start of the emptied file (a renamed file would keep
    growing). What is appended during the copy is copied too; only a line written in
    the instant between the last read and the truncation can be lost. The supervisor
    calls this on every pass of its loop, and before each start.
    """
    name = os.fspath(path)
    try:
        if os.path.getsize(name) <= limit:
            return False
        partial = f"{name}.1.partial"
        with open(name, "rb") as source:
            target = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(target, "wb") as copy:
                shutil.copyfileobj(source, copy, 1 << 20)
                os.truncate(name, 0)
        os.replace(partial, f"{name}.1")
    except OSError:
        with contextlib.suppress(OSError):  # a copy a full disk cut short must not hold what space is left
            os.unlink(f"{name}.1.partial")
        return False
    return True
