"""Is a store readable? Cheap real reads for health checks, full checks for ``mnemex doctor``.

Plain module (sqlite3 and the file system only). Each function answers None
when the store reads fine, or one line that names the store, what is wrong and
the file: ``"kg store unreadable: database disk image is malformed (<path>)"``.

- ``sqlite_problem``: a fresh read-only connection reads the schema and one row
  at each end of every table. It catches a garbage header, a truncated file and
  a missing file in milliseconds; the health checks run it every probe.
- ``sqlite_integrity_problem``: ``PRAGMA integrity_check`` over the whole file,
  for ``mnemex doctor`` (it reads every page, so not on every probe).
- ``chroma_files_problem``: what can be seen of a Chroma folder without opening
  its database (Chroma must be the only library that opens its SQLite file):
  the database is missing while segment folders remain, or a vector segment
  folder lost one of its index files.

Never open Chroma's ``chroma.sqlite3`` here while a service may hold it.
"""

from __future__ import annotations

import contextlib
import errno
import re
import sqlite3
from pathlib import Path

# Trailing-metadata key of a NOT_SERVING health answer: what is broken, in one line.
HEALTH_PROBLEM_KEY = "mnemex-health-problem"
CHROMA_DB_NAME = "chroma.sqlite3"
# The files one persisted HNSW vector segment keeps in its folder (named by the segment's UUID).
HNSW_FILES = ("header.bin", "data_level0.bin", "length.bin", "link_lists.bin")
_SEGMENT_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class StoreUnreadable(RuntimeError):
    """A store cannot be opened or read; the message names the store, the reason and the path."""


def first_line(exc: BaseException | str) -> str:
    """The first non-empty line of an error, for one-line reports."""
    text = str(exc)
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return type(exc).__name__ if isinstance(exc, BaseException) else ""


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5, check_same_thread=False)


def sqlite_problem(path: Path, what: str) -> str | None:
    """None when ``path`` opens and its tables read; else ``"<what> unreadable: <reason> (<path>)"``."""
    if not path.exists():
        return lost_problem(path, what) or f"{what} unreadable: the file is missing ({path})"
    try:
        db = _read_only(path)
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                db.execute(f"SELECT * FROM {_quoted(table)} LIMIT 1").fetchall()
                db.execute(f"SELECT count(*) FROM {_quoted(table)}").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"{what} unreadable: {first_line(exc)} ({path})"
    return None


def sqlite_integrity_problem(path: Path, what: str) -> str | None:
    """``sqlite_problem`` plus ``PRAGMA integrity_check`` (reads every page)."""
    problem = sqlite_problem(path, what)
    if problem is not None:
        return problem
    try:
        db = _read_only(path)
        try:
            rows = [str(r[0]) for r in db.execute("PRAGMA integrity_check(5)")]
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"{what} unreadable: {first_line(exc)} ({path})"
    if rows != ["ok"]:
        return f"{what} is corrupt: {'; '.join(rows)} ({path})"
    return None


def segment_dirs(chroma_dir: Path) -> list[Path]:
    """The UUID-named segment folders of a Chroma persist directory."""
    if not chroma_dir.is_dir():
        return []
    return sorted(p for p in chroma_dir.iterdir() if p.is_dir() and _SEGMENT_DIR.match(p.name))


def chroma_files_problem(chroma_dir: Path) -> str | None:
    """Problems visible from the file system alone (safe while Chroma runs)."""
    database = chroma_dir / CHROMA_DB_NAME
    segments = segment_dirs(chroma_dir)
    if not database.exists():
        if segments:
            return (
                f"chroma store unreadable: {CHROMA_DB_NAME} is missing but {len(segments)} segment "
                f"folder(s) remain ({database})"
            )
        return None
    for folder in segments:
        present = [name for name in HNSW_FILES if (folder / name).exists()]
        if present and len(present) < len(HNSW_FILES):
            missing = ", ".join(name for name in HNSW_FILES if name not in present)
            return f"chroma store unreadable: vector segment {folder.name} lost {missing} ({folder})"
        if not present and any(folder.iterdir()):
            return f"chroma store unreadable: vector segment {folder.name} has no index files ({folder})"
    with open(database, "rb") as handle:
        header = handle.read(16)
    if header and header != b"SQLite format 3\x00":
        return f"chroma store unreadable: {CHROMA_DB_NAME} does not start with a SQLite header ({database})"
    return None


def unreadable(what: str, path: Path, exc: BaseException) -> StoreUnreadable:
    """The error a store raises when it cannot open its file: names it, says why, and what to run."""
    return StoreUnreadable(
        f"{what} unreadable: {first_line(exc)} ({path}); run `mnemex doctor`, then `mnemex repair` "
        "with the stack stopped"
    )


# How a service's answer to a write that hit a full or read-only disk begins (RESOURCE_EXHAUSTED);
# the gateway maps answers that begin so to 507 Insufficient Storage.
DISK_FULL = "the disk is full"
DISK_READ_ONLY = "the storage is read-only"
_FULL_TEXT = ("database or disk is full", "no space left on device", "disk quota exceeded", "(code: 13)")
_READ_ONLY_TEXT = ("attempt to write a readonly database", "read-only file system", "(code: 8)")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 10:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def storage_problem(exc: BaseException, home: Path | None = None) -> str | None:
    """A user-facing line when ``exc`` (or its cause) is a full or read-only disk; None for anything else."""
    for error in _chain(exc):
        where = getattr(error, "filename", None) or home
        place = f" ({where})" if where else ""
        number = getattr(error, "errno", None) if isinstance(error, OSError) else None
        text = str(error).lower()
        if number in (errno.ENOSPC, errno.EDQUOT) or any(marker in text for marker in _FULL_TEXT):
            return (
                f"{DISK_FULL}: no space left on the device that holds the mnemex data{place}. Free some space "
                "(or move MNEMEX_HOME to a bigger disk), then retry: this change may not have been stored"
            )
        if number == errno.EROFS or any(marker in text for marker in _READ_ONLY_TEXT):
            return (
                f"{DISK_READ_ONLY}: the mnemex data{place} is on a read-only file system. Remount it read-write "
                "(or set MNEMEX_HOME to a writable folder and restart with `mnemex up`), then retry"
            )
    return None


def _existed_marker(path: Path) -> Path:
    return path.with_name(f".{path.name}.existed")


def refuse_if_lost(path: Path, what: str, store: str) -> None:
    """Raise when ``path`` is gone although this home had it (its marker remains): not a first start.

    Without this, a deleted SQLite store would come back empty and silent. Call it
    before opening; call ``mark_existing`` once the store is open.
    """
    marker = _existed_marker(path)
    if not path.exists() and marker.exists():
        raise StoreUnreadable(
            f"{what} unreadable: the file is missing, though this home had one ({path}); restore it from a "
            f"backup, or run `mnemex repair --store {store}` to start it empty"
        )


def lost_problem(path: Path, what: str) -> str | None:
    """``refuse_if_lost`` as a health or doctor line."""
    if not path.exists() and _existed_marker(path).exists():
        return f"{what} unreadable: the file is missing, though this home had one ({path})"
    return None


def mark_existing(path: Path) -> None:
    """Note that ``path`` exists (a hidden empty file beside it), so its loss is noticed later."""
    marker = _existed_marker(path)
    if not marker.exists():
        with contextlib.suppress(OSError):
            marker.touch()


def open_store(path: Path, what: str, store: str, schema: str, *, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """A service's SQLite store, opened the one way every store is: WAL, ``synchronous``, ``schema`` applied.

    Refuses a store this home had that is now gone (``refuse_if_lost``), names an
    unreadable file as ``StoreUnreadable`` (``unreadable``), and marks the store as
    existing once it opened. ``what`` names it in messages, ``store`` is its
    ``mnemex repair --store`` name.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse_if_lost(path, what, store)
    db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.executescript(schema)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise unreadable(what, path, exc) from exc
    mark_existing(path)
    return db


def forget_existing(path: Path) -> None:
    """``mnemex repair`` accepted the loss of ``path``: the next start creates it empty."""
    with contextlib.suppress(OSError):
        _existed_marker(path).unlink()
