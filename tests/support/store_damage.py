"""Real mnemex stores with data in a home, and the ways they get damaged (tests and the reliability suite).

``seed_home`` writes through the stores' own classes: a Chroma collection big
enough that its HNSW segment is persisted, kg journal events, and a session
turn in state.db. ``damage`` breaks one store one way:

- ``garbage-header``: the first 100 bytes (SQLite's file header) overwritten,
- ``truncated``: the file cut to half its size,
- ``deleted``: the file removed,
- ``hnsw-file-deleted``: one file of Chroma's vector segment removed (chroma only).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

STORE_FILES = {"chroma": "chroma/chroma.sqlite3", "kg": "kg/kg.sqlite3", "state": "memory/state.db"}
DAMAGES = ("garbage-header", "truncated", "deleted", "hnsw-file-deleted")
GARBAGE = b"this is not what SQLite wrote here; a disk or a program broke it. " * 2
CHROMA_ROWS = 1200
KG_EVENTS = 400


def seed_home(home: Path, rows: int = CHROMA_ROWS, events: int = KG_EVENTS) -> None:
    """A home whose three stores hold data, written and closed by the real store classes."""
    from services.kg.journal import Journal
    from services.memory.domain.naming import Scope
    from services.memory.storage.chroma_store import ChromaStore, StoredRow, open_client
    from services.memory.storage.state_db import StateDb
    from services.memory.storage.turns import TurnStore

    rng = np.random.default_rng(7)
    store = ChromaStore(open_client(home, None), home / "chroma")
    memories = [
        StoredRow(f"working_{i}", "working", f"note number {i}", {"n": i}, rng.random(384, dtype=np.float32))
        for i in range(rows)
    ]
    store.add(Scope("tester", "proj"), "working", memories)
    journal = Journal(home / "kg" / "kg.sqlite3")
    for i in range(events):
        journal.append("tester|proj", {"kind": "noop", "i": i, "pad": "x" * 200})
    journal.close()
    state = StateDb(home / "memory" / "state.db")
    TurnStore(state).record_injection(Scope("tester", "proj"), "s1", ["a"], "a prompt", 1.0)
    state.close()


def checkpoint_sqlite(path: Path) -> None:
    """Fold a closed database's WAL into the file, so damage to the file is damage to the data."""
    import sqlite3

    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def damage(home: Path, store: str, how: str) -> Path:
    """Break ``store`` of ``home`` the way ``how`` says; returns the file that was broken."""
    if how == "hnsw-file-deleted":
        if store != "chroma":
            raise ValueError("only Chroma has HNSW segment files")
        segment = next(p for p in (home / "chroma").iterdir() if p.is_dir() and (p / "data_level0.bin").exists())
        target = segment / "data_level0.bin"
        target.unlink()
        return target
    target = home / STORE_FILES[store]
    if store != "chroma":
        checkpoint_sqlite(target)
    if how == "garbage-header":
        with open(target, "r+b") as handle:
            handle.write(GARBAGE[:100])
    elif how == "truncated":
        with open(target, "r+b") as handle:
            handle.truncate(max(4096, target.stat().st_size // 2))
    elif how == "deleted":
        target.unlink()
        for suffix in ("-wal", "-shm"):
            target.with_name(target.name + suffix).unlink(missing_ok=True)
    else:
        raise ValueError(f"unknown damage {how!r}: choose from {', '.join(DAMAGES)}")
    return target
