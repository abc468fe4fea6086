"""Storage faults: each store broken each way, then status, doctor, the other services, and repair
(issue 27, defects 4 and 11).

Per case, a copy of one seeded home (real stores written by their own classes:
1,200 memories in Chroma with a persisted HNSW segment, 400 kg journal events,
a session turn in state.db; ``tests.support.store_damage``) is broken one way,
then the real CLI runs as processes:

1. ``mnemex up --detach --only memory --only kg``: does ``status --json`` name
   the broken store (its file, or its store name) on the service that holds it,
   and does the other service start and serve anyway?
2. ``mnemex doctor --json`` (stack stopped): does its store check fail naming
   the file?
3. ``mnemex repair --json``: is the store repaired (the original set aside), and
   how many rows were salvaged (in the note; what a broken file no longer holds
   is the damage's, not a lost acknowledged write)?

``tried`` is the 4 expectations per case; ``failed`` counts the ones broken.
A deleted kg.sqlite3 or state.db is noticed through the hidden marker its store
leaves beside it (``kernel.store_health.mark_existing``); a deleted *folder*
looks like a first start. Three cases run at once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.reliability import Row
from kernel.json_values import JSONObject, bool_at, int_at, object_at, objects_at, parse_object, str_at, value_at

PARALLEL = 3

FAMILY = "storage faults"
CASES = (
    ("chroma", "garbage-header"),
    ("chroma", "truncated"),
    ("chroma", "hnsw-file-deleted"),
    ("chroma", "deleted"),
    ("kg", "garbage-header"),
    ("kg", "truncated"),
    ("kg", "deleted"),
    ("state", "garbage-header"),
    ("state", "truncated"),
    ("state", "deleted"),
)
SERVICE_OF = {"chroma": "memory", "state": "memory", "kg": "kg"}
STORE_WORDS = {"chroma": "chroma", "kg": "kg.sqlite3", "state": "state.db"}
ROOT = Path(__file__).resolve().parents[2]


def _env(home: Path) -> dict[str, str]:
    from tests.support.supervisor import stack_env

    return stack_env(home)


def _cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _json(done: subprocess.CompletedProcess[str]) -> JSONObject:
    """The command's --json object ({} when its output is not one)."""
    try:
        return parse_object(done.stdout)
    except ValueError:
        return {}


def _one_case(template: Path, workdir: Path, store: str, how: str, rows_before: dict[str, int]) -> Row:
    from tests.support.store_damage import damage

    home = workdir / f"{store}-{how}"
    shutil.copytree(template, home)
    damaged = damage(home, store, how)
    env = _env(home)
    service, other = SERVICE_OF[store], "kg" if SERVICE_OF[store] == "memory" else "memory"
    notes: list[str] = []
    failed = 0
    try:
        _cli(env, "up", "--detach", "--only", "memory", "--only", "kg", "--ready-timeout", "90")
        services = object_at(_json(_cli(env, "status", "--json")), "services")
        problem = str_at(object_at(services, service), "problem")
        named = (damaged.name in problem or STORE_WORDS[store] in problem) and not bool_at(
            object_at(services, service), "healthy"
        )
        if not named:
            failed += 1
            notes.append("status did not name it")
        if not bool_at(object_at(services, other), "healthy"):
            failed += 1
            notes.append(f"{other} did not start")
    finally:
        _cli(env, "down", timeout=60)
    checks = objects_at(_json(_cli(env, "doctor", "--json", "--skip-model")), "checks")
    doctor = [c for c in checks if str_at(c, "name").startswith("store: ") and str_at(c, "status") == "fail"]
    if not any(damaged.name in str_at(c, "detail") or STORE_WORDS[store] in str_at(c, "detail") for c in doctor):
        failed += 1
        notes.append("doctor did not name it")
    stores = objects_at(_json(_cli(env, "repair", "--json", "--store", store)), "stores")
    entry = {str_at(e, "store"): e for e in stores}.get(store) or {}
    kept = value_at(entry, "set_aside")
    if bool_at(entry, "repaired") and (kept is None or (isinstance(kept, str) and os.path.exists(kept))):
        salvaged = f"{int_at(entry, 'rows_salvaged')}/{rows_before[store]} rows salvaged"
        notes.append(f"repaired, {salvaged}" if kept else "repaired: nothing left to salvage, starts empty")
    else:
        failed += 1
        notes.append("not repaired" if entry else "repair found nothing to do")
    return Row(FAMILY, f"{store}: {how}", 4, failed, 0, "; ".join(notes))


def run(workdir: Path) -> list[Row]:
    from mnemex.repair.sqlite_salvage import count_rows
    from tests.support.store_damage import CHROMA_ROWS, KG_EVENTS, seed_home

    template = workdir / "template"
    seed_home(template)
    state_rows = sum(count_rows(template / "memory" / "state.db").values())
    rows_before = {"chroma": CHROMA_ROWS, "kg": KG_EVENTS, "state": state_rows}
    # The cases are independent (own home, own free ports) and mostly wait on processes: a few at once.
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        return list(pool.map(lambda case: _one_case(template, workdir, case[0], case[1], rows_before), CASES))
