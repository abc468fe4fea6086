"""mnemex's stores on disk: which are broken, and repairing them (the body of ``mnemex repair``).

Three stores live under ``MNEMEX_HOME``:

- ``chroma``: ``chroma/`` (memories and their vectors; Chroma's SQLite file and
  one folder per vector segment),
- ``kg``: ``kg/kg.sqlite3`` (the knowledge graph's journal and snapshots),
- ``state``: ``memory/state.db`` (session turns, outcome history).

``diagnose`` reads each the thorough way (``PRAGMA integrity_check``; for
Chroma, its files and its SQLite integrity), so call it only while the stack
is stopped. ``repair`` sets a broken store aside as ``<name>.corrupt-<UTC
time>`` (with its ``-wal``/``-shm`` files), salvages what it can read into a
fresh store at the original path, and reports rows salvaged. Nothing is
deleted: the set-aside copy stays for the user to inspect or remove.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from kernel.store_health import (
    CHROMA_DB_NAME,
    chroma_files_problem,
    forget_existing,
    lost_problem,
    sqlite_integrity_problem,
)

if TYPE_CHECKING:
    from mnemex.repair.chroma_salvage import Embed  # numpy: imported only where a repair runs

STORES = ("chroma", "kg", "state")
WHAT = {"chroma": "chroma store", "kg": "kg store (kg.sqlite3)", "state": "memory state store (state.db)"}


def store_path(home: Path, store: str) -> Path:
    return {"chroma": home / "chroma", "kg": home / "kg" / "kg.sqlite3", "state": home / "memory" / "state.db"}[store]


def diagnose(home: Path, store: str) -> str | None:
    """None when ``store`` reads fine (or does not exist yet), else what is wrong, naming the file.

    A store this process may not open is named with the ``chmod``/``chown`` that fixes it.
    """
    from mnemex.repair.access import access_problem

    path = store_path(home, store)
    blocked = access_problem(path, home)
    if blocked is not None:
        return blocked.message(WHAT[store])
    if store == "chroma":
        problem = chroma_files_problem(path)
        database = path / CHROMA_DB_NAME
        if problem is None and database.exists():
            problem = sqlite_integrity_problem(database, WHAT[store])
            if problem is not None and not problem.startswith(WHAT[store]):
                problem = f"{WHAT[store]}: {problem}"
        return problem
    if not path.exists():
        return lost_problem(path, WHAT[store])  # gone, though this home had it; None on a first start
    return sqlite_integrity_problem(path, WHAT[store])


@dataclass
class StoreRepair:
    store: str
    path: str
    problem: str | None
    repaired: bool = False
    set_aside: str | None = None
    rows_salvaged: int = 0
    detail: dict[str, object] = field(default_factory=dict)  # counts of the salvage (method, tables, vectors...)
    errors: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # what could not be kept: counts, and ids where known
    lost_ids: list[str] = field(default_factory=list)  # memory ids (chroma) known but not kept
    fix: str | None = None  # the command that fixes a permission problem (nothing was moved aside)


def aside_name(path: Path, stamp: str) -> Path:
    return path.with_name(f"{path.name}.corrupt-{stamp}")


def set_aside(path: Path, stamp: str) -> Path:
    """Rename ``path`` (and a SQLite file's ``-wal``/``-shm``) to ``<name>.corrupt-<stamp>``; returns the new path."""
    target = aside_name(path, stamp)
    if target.exists():
        raise FileExistsError(f"{target} already exists; run `mnemex repair` again in a second")
    os.rename(path, target)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.rename(side, target.with_name(target.name + suffix))
    return target


def _repair_sqlite(home: Path, store: str, stamp: str, result: StoreRepair) -> None:
    from mnemex.repair.kg_check import check_journal
    from mnemex.repair.sqlite_salvage import lost_lines, salvage_sqlite

    path = store_path(home, store)
    aside = set_aside(path, stamp)
    result.set_aside = str(aside)
    salvage = salvage_sqlite(aside, path)
    result.rows_salvaged = salvage.rows
    result.detail = {"method": salvage.method, "tables": salvage.tables}
    result.errors += salvage.errors
    if store == "kg" and path.exists():
        check = check_journal(path, aside, salvage.unreadable)
        result.rows_salvaged -= check.dropped
        result.detail |= {
            "snapshots_kept": check.snapshots_kept,
            "snapshots_lost": check.lost_scopes,
            "events_kept": check.events_kept,
            "events_lost": check.lost_events,
        }
        result.lost += check.lost + lost_lines(salvage, leave_out=("snapshots", "events"))
    else:
        result.lost += lost_lines(salvage)
    result.repaired = sqlite_integrity_problem(path, WHAT[store]) is None


def _repair_chroma(home: Path, stamp: str, result: StoreRepair, embed: Embed) -> None:
    from mnemex.repair.chroma_salvage import rebuild_chroma

    path = store_path(home, "chroma")
    aside = set_aside(path, stamp)
    result.set_aside = str(aside)
    salvage = rebuild_chroma(aside, path, embed)
    result.rows_salvaged = salvage.rows
    result.detail = {
        "collections": salvage.collections,
        "vectors_kept": salvage.vectors_kept,
        "vectors_from_log": salvage.vectors_from_log,
        "embedded_again": salvage.embedded_again,
        "from_log": salvage.from_log,
        "new_ids": salvage.new_ids,
    }
    result.errors += salvage.errors
    result.lost += salvage.lost
    result.lost_ids += salvage.lost_ids
    result.repaired = diagnose(home, "chroma") is None


def repair(
    home: Path,
    stores: tuple[str, ...] = STORES,
    *,
    embed: Embed,
    force: bool = False,
    now: datetime | None = None,
) -> list[StoreRepair]:
    """Repair each broken store of ``stores`` (each one, with ``force``). The stack must be stopped."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    results = []
    from mnemex.repair.access import access_problem

    for store in stores:
        path = store_path(home, store)
        blocked = access_problem(path, home)
        if blocked is not None:  # not broken: setting it aside would salvage nothing
            results.append(StoreRepair(store, str(path), blocked.message(WHAT[store]), fix=blocked.fix))
            continue
        result = StoreRepair(store, str(path), diagnose(home, store))
        results.append(result)
        if result.problem is None and not force:
            continue
        if not path.exists():
            if store != "chroma" and result.problem is not None:  # nothing left to salvage: start it empty
                forget_existing(path)
                result.repaired = True
                result.errors.append(f"{path} is gone: nothing to salvage; the next start creates it empty")
            continue
        try:
            if store == "chroma":
                _repair_chroma(home, stamp, result, embed)
            else:
                _repair_sqlite(home, store, stamp, result)
        except Exception as exc:  # report it and go on with the next store; the original is set aside already
            result.errors.append(f"{type(exc).__name__}: {exc}")
    return results


def as_json(results: list[StoreRepair]) -> list[dict[str, object]]:
    return [asdict(result) for result in results]
