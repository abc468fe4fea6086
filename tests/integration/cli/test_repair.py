"""`mnemex doctor` names a broken store; `mnemex repair` salvages it (issue 27, defect 4).

Real stores seeded in a temporary home, broken on disk, then the real CLI as
processes: doctor, repair (the model embeds rows whose vectors were lost), and
a stack that starts healthy on the repaired stores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.store_damage import CHROMA_ROWS, damage, seed_home
from tests.support.supervisor import cli, stack_env

pytestmark = pytest.mark.slow


def test_doctor_names_each_broken_file_and_repair_salvages_it_keeping_the_original(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_home(home)
    broken = {
        "chroma": damage(home, "chroma", "hnsw-file-deleted"),
        "kg": damage(home, "kg", "truncated"),
        "state": damage(home, "state", "garbage-header"),
    }
    env = stack_env(home)

    doctor = cli(env, "doctor", "--json", "--skip-model")
    assert doctor.returncode == 1
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    by_store = {name.split(": ", 1)[1]: check for name, check in checks.items() if name.startswith("store: ")}
    assert set(by_store) == {"chroma store", "kg store (kg.sqlite3)", "memory state store (state.db)"}
    for check in by_store.values():
        assert check["status"] == "fail" and "mnemex repair" in check["fix"]
    assert "data_level0.bin" in by_store["chroma store"]["detail"]
    assert str(broken["kg"]) in by_store["kg store (kg.sqlite3)"]["detail"]
    assert str(broken["state"]) in by_store["memory state store (state.db)"]["detail"]

    repaired = cli(env, "repair", "--json", timeout=600)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    report = {entry["store"]: entry for entry in json.loads(repaired.stdout)["stores"]}
    for entry in report.values():
        assert entry["repaired"], entry
        assert Path(entry["set_aside"]).exists() and ".corrupt-" in entry["set_aside"]  # kept, never deleted
    assert report["chroma"]["rows_salvaged"] == CHROMA_ROWS  # every memory; the lost vectors embedded again
    detail = report["chroma"]["detail"]  # each lost vector from Chroma's write log while it holds it, else embedded
    assert detail["embedded_again"] + detail["vectors_from_log"] == CHROMA_ROWS
    assert 0 < report["kg"]["rows_salvaged"] < 400  # what the truncated file still held
    assert report["state"]["rows_salvaged"] >= 1  # the header was rebuilt; the turn and its session read

    again = cli(env, "doctor", "--json", "--skip-model")
    stores_now = [c for c in json.loads(again.stdout)["checks"] if c["name"].startswith("store: ")]
    assert all(c["status"] == "ok" for c in stores_now), stores_now
    try:
        up = cli(env, "up", "--detach", "--only", "embedding", "--only", "memory", "--only", "kg")
        assert up.returncode == 0, up.stdout + up.stderr
        assert json.loads(cli(env, "status", "--json").stdout)["healthy"]
    finally:
        cli(env, "down", timeout=60)


def test_repair_refuses_while_the_stack_runs_and_says_how_to_stop_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = stack_env(home)
    try:
        assert cli(env, "up", "--detach", "--only", "kg").returncode == 0
        refused = cli(env, "repair", "--json")
        assert refused.returncode == 1
        answer = json.loads(refused.stdout)
        assert not answer["ok"] and "mnemex down" in answer["error"]
        assert not list(home.rglob("*.corrupt-*"))
    finally:
        cli(env, "down", timeout=60)


def test_a_deleted_sqlite_store_is_named_not_silently_recreated_and_repair_accepts_the_loss(tmp_path: Path) -> None:
    from kernel.store_health import StoreUnreadable
    from services.kg.journal import Journal

    home = tmp_path / "home"
    seed_home(home, rows=10, events=5)
    kg_db = damage(home, "kg", "deleted")
    with pytest.raises(StoreUnreadable) as refused:  # what the kg service says at start, instead of starting empty
        Journal(kg_db)
    assert str(kg_db) in str(refused.value) and "mnemex repair --store kg" in str(refused.value)
    assert not kg_db.exists()

    env = stack_env(home)
    doctor = json.loads(cli(env, "doctor", "--json", "--skip-model").stdout)
    kg_check = next(c for c in doctor["checks"] if c["name"] == "store: kg store (kg.sqlite3)")
    assert kg_check["status"] == "fail" and str(kg_db) in kg_check["detail"] and "missing" in kg_check["detail"]

    repaired = cli(env, "repair", "--json", "--store", "kg")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    (entry,) = json.loads(repaired.stdout)["stores"]
    assert entry["repaired"] and entry["rows_salvaged"] == 0 and entry["set_aside"] is None
    Journal(kg_db).close()  # the next start creates it empty, as the report said
