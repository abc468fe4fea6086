"""Reliability part: `mnemex repair` keeps every row it can still read (issue 36, item 3).

Real stores written by their own classes (``ChromaStore``, the kg ``Journal``),
damaged on disk, then the real CLI as a process (``mnemex repair --json``):

- 64 KB of zeros in a Chroma file of 806 memories: in the middle of the file
  (the write log's pages), and over the first pages of the ``embeddings`` and
  ``embedding_metadata`` tables. What is readable is judged on the set-aside
  copy, independently of repair: a memory counts as readable when its id and
  its exact text both still stand in the copy's bytes (each id and text is
  unique and fixed-width, so no substring matches another). failed = a
  readable memory missing from the repaired store, or kept with other text;
  the note also gives kept / 806 before the damage;
- garbage in a kg journal holding 3 graph snapshots (20, 89 and 30 KB):
  over one page of two snapshots (the issue's case: one 89 KB snapshot still
  reads), and over the event log's pages (every snapshot still reads). A
  snapshot is readable when its row, read by rowid from the set-aside copy,
  parses as JSON. failed = a readable snapshot not loaded back whole, or an
  unreadable one that the report does not name;
- a store this process may not open (chmod 000 on ``chroma/`` and
  ``kg.sqlite3``; a ``kg.sqlite3`` owned by another user): repair runs as root
  without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (``setpriv``), so the modes
  really bind, as in ``tests/integration/cli/test_repair_salvage.py``.
  failed = a traceback, exit 0, a fix that is not the ``chmod``/``chown``,
  anything moved aside or changed, or (after the fix) a store still reported
  broken or missing rows.

Before issue 36: 721 of 806 memories kept with the 85 others still in the
set-aside copy; 0 of 3 snapshots salvaged and no error reported; chmod 000
crashed with a PermissionError traceback, or set the store aside, salvaged
nothing and left a stack that refused to start.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from bench.reliability import Row
from kernel.json_values import JSONObject, JSONValue, list_at, objects_at, parse_object, parse_value, str_at

FAMILY = "repair salvage"
MEMORIES = 806
PAGE = 4096
ZEROS = bytes(65536)
GARBAGE = b"this is not what SQLite wrote here; a disk or a program broke it. " * 2
SNAPSHOTS = {"a|proj": ("A", 20_000), "b|proj": ("B", 89_000), "c|proj": ("C", 30_000)}
OTHER_UID = 65534
ROOT = Path(__file__).resolve().parents[2]


def _memory_id(i: int) -> str:
    return f"working_r{i:04d}q"


def _memory_text(i: int) -> str:
    return f"memory {i:04d} of the salvage run: deploys go out on weekday {i % 5}."


def _env(home: Path) -> dict[str, str]:
    from tests.support.supervisor import stack_env

    return stack_env(home)


def _repair(home: Path, *store: str, unprivileged: bool = False) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "mnemex.cli", "repair", "--json"]
    for name in store:
        args += ["--store", name]
    if unprivileged and os.geteuid() == 0:
        drop = "-dac_override,-dac_read_search"
        args = [str(shutil.which("setpriv")), f"--inh-caps={drop}", f"--bounding-set={drop}", *args]
    return subprocess.run(args, env=_env(home), cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def _report(done: subprocess.CompletedProcess[str]) -> dict[str, JSONObject]:
    """``mnemex repair --json``'s entries by store ({} when its output is not a JSON object)."""
    try:
        stores = objects_at(parse_object(done.stdout), "stores")
    except ValueError:
        return {}
    return {str_at(entry, "store"): entry for entry in stores}


# -- chroma ---------------------------------------------------------------------
def _seed_chroma(home: Path) -> None:
    import numpy as np

    from services.memory.domain.naming import Scope
    from services.memory.storage.chroma_store import ChromaStore, StoredRow, open_client

    rng = np.random.default_rng(36)
    store = ChromaStore(open_client(home, None), home / "chroma")
    rows = [
        StoredRow(_memory_id(i), "working", _memory_text(i), {"n": i}, rng.random(384, dtype=np.float32))
        for i in range(MEMORIES)
    ]
    store.add(Scope("tester", "proj"), "working", rows)


def _chroma_memories(folder: Path) -> dict[str, str]:
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient
    from chromadb.config import Settings

    SharedSystemClient.clear_system_cache()
    client = chromadb.PersistentClient(path=str(folder), settings=Settings(anonymized_telemetry=False))
    found: dict[str, str] = {}
    try:
        for collection in client.list_collections():
            got = client.get_collection(collection.name, embedding_function=None).get(include=["documents"])
            for row_id, document in zip(got["ids"], got["documents"] or [], strict=True):
                found[row_id] = document
    finally:
        SharedSystemClient.clear_system_cache()
    return found


def _table_pages(database: Path, table: str) -> list[int]:
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return [int(r[0]) for r in db.execute("SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno", (table,))]
    finally:
        db.close()


def _readable_in_copy(folder: Path) -> set[int]:
    """Memories whose id and exact text both still stand in the bytes of the set-aside Chroma folder."""
    raw = b"".join(p.read_bytes() for p in folder.glob("chroma.sqlite3*") if p.is_file())
    return {i for i in range(MEMORIES) if _memory_id(i).encode() in raw and _memory_text(i).encode() in raw}


def _chroma_case(template: Path, workdir: Path, where: str) -> Row:
    home = workdir / f"chroma-{where}"
    shutil.copytree(template, home)
    database = home / "chroma" / "chroma.sqlite3"
    pages = database.stat().st_size // PAGE
    if where == "middle":
        start = (pages // 2) * PAGE
    else:  # the first pages of the id table and of the text table (each just before the other or after)
        start = min(_table_pages(database, "embeddings")[0], _table_pages(database, "embedding_metadata")[0]) - 1
        start *= PAGE
    with open(database, "r+b") as handle:
        handle.seek(start)
        handle.write(ZEROS)
    done = _repair(home, "chroma")
    entry = _report(done).get("chroma") or {}
    aside = Path(str_at(entry, "set_aside")) if str_at(entry, "set_aside") else None
    if aside is None or not aside.exists():
        return Row(
            FAMILY,
            f"chroma: 64 KB of zeros ({where}), {MEMORIES} memories",
            1,
            1,
            0,
            f"not set aside (exit {done.returncode}): {(done.stdout + done.stderr)[-160:]}",
        )
    readable = _readable_in_copy(aside)
    kept = _chroma_memories(home / "chroma")
    dropped = [i for i in readable if kept.get(_memory_id(i)) != _memory_text(i)]
    named = len(list_at(entry, "lost")) + len(list_at(entry, "errors"))
    return Row(
        FAMILY,
        f"chroma: 64 KB of zeros at page {start // PAGE} of {pages} ({where}), {MEMORIES} memories",
        len(readable) + 1,
        len(dropped) + int(done.returncode != 0 or "Traceback" in done.stderr),
        0,
        f"kept {len(kept)} of {MEMORIES} ({len(readable) - len(dropped)} of {len(readable)} readable in the "
        f"set-aside copy); {named} report lines say what did not read"
        + (f"; dropped e.g. {dropped[:3]}" if dropped else ""),
    )


# -- kg ---------------------------------------------------------------------------
def _seed_kg(path: Path) -> None:
    from services.kg.journal import Journal
    from tests.support.store_damage import checkpoint_sqlite

    journal = Journal(path)
    for scope, (letter, size) in SNAPSHOTS.items():
        journal.append(scope, {"kind": "noop"})
        journal.snapshot(scope, {"nodes": [{"id": f"{letter}{i}", "label": letter * 90} for i in range(size // 100)]})
        for i in range(3):
            journal.append(scope, {"kind": "after", "i": i, "pad": "x" * 200})
    journal.close()
    checkpoint_sqlite(path)


def _readable_snapshots(copy: Path) -> dict[str, JSONValue]:
    """scope -> snapshot, for each snapshot row that still reads by rowid and parses, in the set-aside copy."""
    found: dict[str, JSONValue] = {}
    try:
        db = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    except sqlite3.Error:
        return found
    try:
        for rowid in range(1, 64):
            try:
                row = db.execute("SELECT scope, data FROM snapshots WHERE rowid = ?", (rowid,)).fetchone()
                if row is not None:
                    found[str(row[0])] = parse_value(row[1])
            except (sqlite3.Error, ValueError, TypeError):
                continue
    except sqlite3.Error:
        pass
    finally:
        db.close()
    return found


def _kg_case(workdir: Path, where: str) -> Row:
    from services.kg.journal import Journal

    home = workdir / f"kg-{where}"
    path = home / "kg" / "kg.sqlite3"
    _seed_kg(path)
    raw = path.read_bytes()
    event_pages = _table_pages(path, "events") + _table_pages(path, "events_scope_seq")
    with open(path, "r+b") as handle:
        if where == "two-snapshot-pages":
            for letter in (b"A", b"C"):  # one overflow page in the middle of each of two snapshots
                holding = [n for n in range(len(raw) // PAGE) if letter * 90 in raw[n * PAGE : (n + 1) * PAGE]]
                handle.seek(holding[len(holding) // 2] * PAGE)
                handle.write((GARBAGE * 40)[:PAGE])
        else:  # the event log's pages (table and index): every snapshot still reads
            for page in event_pages:
                handle.seek((page - 1) * PAGE)
                handle.write((GARBAGE * 40)[:PAGE])
    done = _repair(home, "kg")
    entry = _report(done).get("kg") or {}
    aside = Path(str_at(entry, "set_aside")) if str_at(entry, "set_aside") else None
    if aside is None or not aside.exists():
        return Row(
            FAMILY,
            f"kg: garbage ({where}), 3 snapshots",
            1,
            1,
            0,
            f"not set aside (exit {done.returncode}): {(done.stdout + done.stderr)[-160:]}",
        )
    readable = _readable_snapshots(aside)
    journal = Journal(path)
    try:
        loaded = {scope: journal.load(scope)[0] for scope in SNAPSHOTS}
    finally:
        journal.close()
    dropped = [scope for scope, data in readable.items() if loaded.get(scope) != data]
    report = json.dumps(entry.get("lost") or []) + json.dumps(entry.get("errors") or [])
    unnamed = [scope for scope in SNAPSHOTS if scope not in readable and scope not in report]
    kept = sum(1 for scope in SNAPSHOTS if loaded.get(scope) is not None)
    return Row(
        FAMILY,
        f"kg: garbage ({where}), 3 snapshots (20, 89, 30 KB)",
        len(readable) + (len(SNAPSHOTS) - len(readable)) + 1,
        len(dropped) + len(unnamed) + int(done.returncode != 0 or "Traceback" in done.stderr),
        0,
        f"kept {kept} of 3 ({len(readable) - len(dropped)} of {len(readable)} readable in the set-aside copy: "
        f"{sorted(readable)}); not readable and named in the report: "
        f"{sorted(s for s in SNAPSHOTS if s not in readable and s in report)}"
        + (f"; dropped {dropped}" if dropped else "")
        + (f"; lost without a word: {unnamed}" if unnamed else ""),
    )


# -- permissions -------------------------------------------------------------------
def _digest(paths: list[Path]) -> str:
    sha = hashlib.sha256()
    for path in paths:
        for file in sorted(p for p in ([path] if path.is_file() else path.rglob("*")) if p.is_file()):
            sha.update(file.name.encode() + file.read_bytes())
    return sha.hexdigest()


def _blocked_case(template: Path, workdir: Path, how: str) -> Row:
    home = workdir / f"blocked-{how}"
    shutil.copytree(template, home)
    kg_db, chroma = home / "kg" / "kg.sqlite3", home / "chroma"
    for path in (home, home / "kg", chroma):
        path.chmod(0o700)
    kg_db.chmod(0o600)
    before = _digest([kg_db, chroma])
    expected = {"kg": f"chmod u+rw {kg_db}", "chroma": f"chmod -R u+rwX {chroma}"}
    if how == "chmod-000":
        kg_db.chmod(0o000)
        chroma.chmod(0o000)
    else:
        os.chown(kg_db, OTHER_UID, OTHER_UID)
        expected = {"kg": "chown"}
    try:
        done = _repair(home, unprivileged=True)
    finally:
        chroma.chmod(0o700)
        kg_db.chmod(0o600)
        os.chown(kg_db, os.geteuid(), os.getegid())
    report = _report(done)
    checks = {
        "exit 1": done.returncode == 1,
        "no traceback": "Traceback" not in done.stdout + done.stderr,
        "nothing moved aside": not list(home.rglob("*.corrupt-*"))
        and all((report.get(s) or {}).get("set_aside") is None for s in expected),
        "files unchanged": _digest([kg_db, chroma]) == before,
    }
    for store, fix in expected.items():
        entry = report.get(store) or {}
        checks[f"{store} fix names {fix.split()[0]}"] = fix in str(entry.get("fix")) and fix in str(
            entry.get("problem")
        )
    fixed = _repair(home)
    fixed_report = _report(fixed)
    checks["after the fix: nothing to repair"] = fixed.returncode == 0 and all(
        e.get("problem") is None for e in fixed_report.values()
    )
    checks[f"after the fix: {MEMORIES} memories"] = len(_chroma_memories(chroma)) == MEMORIES
    broken = [name for name, ok in checks.items() if not ok]
    fixes = {s: str((report.get(s) or {}).get("fix")).replace(str(home), "<home>") for s in expected}
    return Row(
        FAMILY,
        "unreadable store: chmod 000 on chroma/ and kg.sqlite3"
        if how == "chmod-000"
        else "kg.sqlite3 owned by another user (uid 65534)",
        len(checks),
        len(broken),
        0,
        f"fix: {fixes}" + (f"; broken: {broken}" if broken else ""),
    )


def run(workdir: Path) -> list[Row]:
    template = workdir / "template"
    _seed_chroma(template)
    _seed_kg(template / "kg" / "kg.sqlite3")
    rows = [_chroma_case(template, workdir, where) for where in ("middle", "id-and-text-tables")]
    rows += [_kg_case(workdir, where) for where in ("two-snapshot-pages", "event-log-pages")]
    if os.geteuid() != 0 or shutil.which("setpriv") is not None:
        hows = ["chmod-000", "foreign-owner"] if os.geteuid() == 0 else ["chmod-000"]
        rows += [_blocked_case(template, workdir, how) for how in hows]
    else:
        rows.append(Row(FAMILY, "unreadable store", 0, 0, 0, "skipped: root without setpriv ignores file modes"))
    return rows
