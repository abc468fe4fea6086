"""Copy every row that can still be read from a damaged SQLite file into a new file.

Plain module (sqlite3, shutil, subprocess). Two ways, best first:

1. A row-by-row copy through Python's sqlite3: the schema from
   ``sqlite_master``; for each table, every rowid its b-tree still yields (when
   a page cannot be read it probes ahead, then narrows back, so only that
   page's rowids are lost); then the rows themselves, in chunks, and one at a
   time where a chunk fails, so a row with a broken overflow chain costs only
   itself. Rowids found but not readable are kept in ``Salvage.unreadable``.
2. The ``sqlite3`` command-line tool's ``.recover``, when it is installed and
   the copy read nothing: it walks the file's pages itself.

Neither can read anything when the header itself is garbage: the result is
then an empty file with ``rows == 0`` and the reason in ``errors``.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

RECOVER_TIMEOUT_S = 600
_MAX_SKIP = 1 << 62
_MAX_ROWID = (1 << 63) - 1


@dataclass
class Salvage:
    """What a salvage copied: rows per table, how, and what it could not read."""

    method: str
    tables: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    unreadable: dict[str, list[int]] = field(default_factory=dict)  # table -> rowids found but not readable

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def count_rows(path: Path) -> dict[str, int]:
    """Rows per user table of a healthy file (internal ``sqlite_*`` and recovery tables left out)."""
    db = sqlite3.connect(path)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        wanted = [n for n in names if not n.startswith("sqlite_") and n != "lost_and_found"]
        return {n: int(db.execute(f"SELECT count(*) FROM {_quoted(n)}").fetchone()[0]) for n in wanted}
    finally:
        db.close()


def _with_cli(source: Path, target: Path) -> Salvage | None:
    tool = shutil.which("sqlite3")
    if tool is None:
        return None
    try:
        done = subprocess.run(
            [tool, "-readonly", str(source), ".recover"],
            capture_output=True,
            timeout=RECOVER_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return Salvage("sqlite3 .recover", errors=[f"the sqlite3 tool failed: {exc}"])
    script = done.stdout.decode("utf-8", "surrogateescape")
    if done.returncode != 0 or "CREATE TABLE" not in script:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return Salvage("sqlite3 .recover", errors=[reason[0] if reason else "nothing could be read"])
    db = sqlite3.connect(target)
    try:
        db.executescript(script)
    except sqlite3.Error as exc:
        db.close()
        target.unlink(missing_ok=True)
        return Salvage("sqlite3 .recover", errors=[f"the recovered SQL did not apply: {exc}"])
    db.close()
    return Salvage("sqlite3 .recover", tables=count_rows(target))


CHUNK = 500


def _rowid_probe_ok(source: sqlite3.Connection, table: str, after: int) -> bool:
    """Whether the b-tree reads from just after ``after`` to its next row (or its end)."""
    try:
        query = f"SELECT rowid FROM {_quoted(table)} WHERE rowid > ? ORDER BY rowid LIMIT 2"
        source.execute(query, (after,)).fetchall()
    except sqlite3.DatabaseError:
        return False
    return True


def _resume_after(source: sqlite3.Connection, table: str, failed: int, step: int = 1) -> int | None:
    """The smallest rowid after ``failed`` from which the table's b-tree reads again, or None.

    Probes further and further ahead (``step``, twice that, ...), then narrows
    back down by halves, so only the rowids of the pages that cannot be read are lost.
    """
    while step <= _MAX_SKIP and failed + step < _MAX_ROWID and not _rowid_probe_ok(source, table, failed + step):
        step *= 2
    if step > _MAX_SKIP or failed + step >= _MAX_ROWID:
        return None
    low, high = failed + step // 2, failed + step  # probe fails at low (or low == failed), works at high
    while high - low > 1:
        middle = (low + high) // 2
        if _rowid_probe_ok(source, table, middle):
            high = middle
        else:
            low = middle
    return high


def readable_rowids(source: sqlite3.Connection, table: str, lost: list[str]) -> list[int]:
    """Every rowid of ``table`` its b-tree still yields; unreadable stretches are named in ``lost``."""
    found: list[int] = []
    after: int | None = None
    step = 1  # grows while a scan fails before reading a row, so each try gets further
    failures: list[tuple[int, int]] = []
    error = ""
    while True:
        read_any = False
        try:
            query = f"SELECT rowid FROM {_quoted(table)}"
            rows = source.execute(
                query + " ORDER BY rowid" if after is None else query + " WHERE rowid > ? ORDER BY rowid",
                () if after is None else (after,),
            )
            for (rowid,) in rows:
                if after is not None and rowid <= after:  # a damaged page out of order: stop this scan
                    raise sqlite3.DatabaseError("rowids out of order")
                found.append(int(rowid))
                after = int(rowid)
                read_any = True
            break
        except sqlite3.DatabaseError as exc:
            error = str(exc)
            failed = after if after is not None else 0
            step = 1 if read_any else step * 2
            resume = _resume_after(source, table, failed, step)
            if resume is None:
                failures.append((failed, -1))
                break
            failures.append((failed, resume))
            after = resume
    for failed, resume in _merged(failures):
        if resume < 0:
            lost.append(f"{table}: no row after rowid {failed} could be read ({error})")
        else:
            lost.append(f"{table}: the rows with rowids {failed + 1} to {resume} could not be read ({error})")
    return found


def _merged(failures: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent unreadable stretches as one (a resume that failed again at once)."""
    merged: list[tuple[int, int]] = []
    for failed, resume in failures:
        if merged and merged[-1][1] == failed:
            merged[-1] = (merged[-1][0], resume)
        else:
            merged.append((failed, resume))
    return merged


def _copy_table(
    source: sqlite3.Connection, target: sqlite3.Connection, table: str, errors: list[str], unreadable: list[int]
) -> int:
    """Copy ``table`` row by row: a row that cannot be read (a broken overflow chain) costs only itself."""
    columns = [r[1] for r in source.execute(f"PRAGMA table_info({_quoted(table)})")]
    insert = (
        f"INSERT OR IGNORE INTO {_quoted(table)} ({', '.join(map(_quoted, columns))}) "
        f"VALUES ({', '.join('?' for _ in columns)})"
    )
    copied = 0
    try:
        source.execute(f"SELECT rowid FROM {_quoted(table)} LIMIT 0")
    except sqlite3.OperationalError:  # a WITHOUT ROWID table: in key order, as far as it reads
        try:
            for row in source.execute(f"SELECT * FROM {_quoted(table)}"):
                target.execute(insert, row)
                copied += 1
        except sqlite3.DatabaseError as exc:
            errors.append(f"{table}: read {copied} rows, then: {exc}")
        return copied
    select = f"SELECT * FROM {_quoted(table)} WHERE rowid = ?"
    rowids = readable_rowids(source, table, errors)
    for start in range(0, len(rowids), CHUNK):
        chunk = rowids[start : start + CHUNK]
        try:
            rows = source.execute(
                f"SELECT * FROM {_quoted(table)} WHERE rowid BETWEEN ? AND ? ORDER BY rowid", (chunk[0], chunk[-1])
            ).fetchall()
        except sqlite3.DatabaseError:
            rows = []
            for rowid in chunk:  # one at a time: only the rows that do not read are lost
                try:
                    rows += source.execute(select, (rowid,)).fetchall()
                except sqlite3.DatabaseError:
                    unreadable.append(rowid)
        for row in rows:
            target.execute(insert, row)
            copied += 1
    return copied


MAGIC = b"SQLite format 3\x00"
_PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536)


def rebuilt_header(handle: BinaryIO, size: int) -> bytes | None:
    """A plain 100-byte header for a file whose header was overwritten, when its first page still reads.

    The first page's b-tree header starts at byte 100, right after the file header; the
    page size is the first common one at which the second page also starts like a b-tree
    page. Everything else gets SQLite's defaults (UTF-8, no free list, rollback journal).
    """
    handle.seek(100)
    if handle.read(1) not in (b"\x0d", b"\x05"):
        return None
    page_size = 4096
    for candidate in _PAGE_SIZES:
        if size >= 2 * candidate:
            handle.seek(candidate)
            if handle.read(1) in (b"\x0d", b"\x05", b"\x0a", b"\x02", b"\x00"):
                page_size = candidate
                break
    pages = max(1, size // page_size)
    header = bytearray(100)
    header[0:16] = MAGIC
    header[16:18] = (1 if page_size == 65536 else page_size).to_bytes(2, "big")
    header[18:24] = bytes([1, 1, 0, 64, 32, 32])
    header[24:28] = (1).to_bytes(4, "big")  # change counter
    header[28:32] = pages.to_bytes(4, "big")
    header[40:44] = (1).to_bytes(4, "big")  # schema cookie
    header[44:48] = (4).to_bytes(4, "big")  # schema format
    header[56:60] = (1).to_bytes(4, "big")  # UTF-8
    header[92:96] = (1).to_bytes(4, "big")  # valid for change counter 1
    header[96:100] = (3040001).to_bytes(4, "big")
    return bytes(header)


def readable_copy(source: Path, folder: Path) -> Path:
    """A copy of ``source`` (and its WAL) in ``folder`` whose header claims no more pages than the file has.

    SQLite refuses a file shorter than its header says (a truncation) as malformed
    before reading a single row; the copy's header is set to the pages really there.
    """
    copy = folder / source.name
    shutil.copyfile(source, copy)
    wal = source.with_name(source.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
    with open(copy, "r+b") as handle:
        header = handle.read(100)
        if len(header) == 100 and not header.startswith(MAGIC):
            rebuilt = rebuilt_header(handle, copy.stat().st_size)
            if rebuilt is not None:
                handle.seek(0)
                handle.write(rebuilt)
                header = rebuilt
        if len(header) == 100 and header.startswith(MAGIC):
            page_size = int.from_bytes(header[16:18], "big")
            page_size = 65536 if page_size == 1 else page_size
            pages = copy.stat().st_size // page_size if page_size else 0
            if pages and int.from_bytes(header[28:32], "big") > pages:
                handle.seek(28)
                handle.write(pages.to_bytes(4, "big"))
    return copy


def _with_python(source: Path, target: Path) -> Salvage:
    salvage = Salvage("row-by-row copy")
    try:
        src = sqlite3.connect(source)
        schema = src.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    except sqlite3.Error as exc:
        salvage.errors.append(f"the schema cannot be read: {exc}")
        sqlite3.connect(target).close()
        return salvage
    dst = sqlite3.connect(target, isolation_level=None)
    try:
        dst.execute("BEGIN")
        # Virtual tables (full-text indexes) are left out: their own shadow tables are copied as plain ones.
        tables = [
            (name, sql)
            for kind, name, sql in schema
            if kind == "table" and not name.startswith("sqlite_") and not sql.upper().startswith("CREATE VIRTUAL")
        ]
        for _, sql in tables:
            dst.execute(sql)
        for name, _ in tables:
            salvage.tables[name] = _copy_table(src, dst, name, salvage.errors, salvage.unreadable.setdefault(name, []))
            if not salvage.unreadable[name]:
                del salvage.unreadable[name]
        for kind, name, sql in schema:
            if kind in ("index", "trigger", "view") and not name.startswith("sqlite_"):
                try:
                    dst.execute(sql)
                except sqlite3.Error as exc:  # e.g. a unique index the salvaged rows break
                    salvage.errors.append(f"{kind} {name} not rebuilt: {exc}")
        dst.execute("COMMIT")
    finally:
        dst.close()
        src.close()
    return salvage


def lost_lines(salvage: Salvage, leave_out: tuple[str, ...] = ()) -> list[str]:
    """The rows that were found but could not be read, one line per table, with their rowids."""
    lines = []
    for table, rowids in salvage.unreadable.items():
        if table in leave_out:
            continue
        shown = ", ".join(map(str, rowids[:20])) + (" ..." if len(rowids) > 20 else "")
        lines.append(f"{table}: {len(rowids)} row(s) could not be read (rowids {shown})")
    return lines


def salvage_sqlite(source: Path, target: Path) -> Salvage:
    """Every readable row of ``source`` into a new file ``target`` (which must not exist yet).

    The row-by-row copy comes first (it names each row it cannot read); the
    ``sqlite3`` tool's ``.recover`` is tried when that copy read nothing (the
    schema itself is unreadable).
    """
    if target.exists():
        raise FileExistsError(f"{target} already exists; the salvage writes a new file only")
    with tempfile.TemporaryDirectory(prefix="mnemex-salvage-") as folder:
        copied = _with_python(readable_copy(source, Path(folder)), target)
    if copied.rows:
        return copied
    target.unlink(missing_ok=True)
    found = _with_cli(source, target)
    if found is not None and not found.errors and found.rows:
        return found
    target.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="mnemex-salvage-") as folder:
        return _with_python(readable_copy(source, Path(folder)), target)
