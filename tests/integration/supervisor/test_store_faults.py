"""Broken stores on real processes: named by ``mnemex status``, never keeping the other services down.

Issue 27, defect 4: with an HNSW segment file deleted or a truncated kg.sqlite3
the whole stack used to stay down ("did not become healthy within 45 s"), and
with garbage written into a store while the stack ran, status said healthy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemex.supervisor.status_report import StatusReport
from tests.support.store_damage import damage, seed_home
from tests.support.supervisor import cli, stack_env, wait_for

pytestmark = pytest.mark.slow


def status(env: dict[str, str]) -> StatusReport:
    """What `mnemex status --json` prints: a StatusReport (and a few keys more)."""
    report: StatusReport = json.loads(cli(env, "status", "--json").stdout)
    return report


def test_a_broken_store_stops_only_its_service_and_up_names_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_home(home)
    kg_db = damage(home, "kg", "truncated")
    damage(home, "chroma", "hnsw-file-deleted")
    env = stack_env(home)
    try:
        up = cli(env, "up", "--detach", "--ready-timeout", "120")
        assert up.returncode == 1, up.stdout + up.stderr
        said = " ".join((up.stdout + up.stderr).split())
        assert "did not become healthy" not in said
        assert "kg.sqlite3" in said and "malformed" in said and "kg.log" in said
        assert "data_level0.bin" in said and "memory.log" in said

        report = status(env)
        services = report["services"]
        assert services["embedding"]["healthy"] and services["gateway"]["healthy"]
        assert not services["memory"]["healthy"] and not services["kg"]["healthy"]
        assert str(kg_db) in (services["kg"]["problem"] or "")
        assert "data_level0.bin" in (services["memory"]["problem"] or "")
        assert report["supervisor"]["status"] == "degraded"
        human = cli(env, "status")
        assert human.returncode == 1 and "mnemex doctor" in human.stderr
    finally:
        cli(env, "down", timeout=60)


def test_status_names_a_store_broken_while_the_stack_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_home(home, rows=50)
    env = stack_env(home)
    try:
        up = cli(env, "up", "--detach", "--only", "memory", "--only", "kg", "--only", "embedding")
        assert up.returncode == 0, up.stdout + up.stderr
        assert status(env)["healthy"]

        for path in (home / "chroma" / "chroma.sqlite3", home / "kg" / "kg.sqlite3"):
            with open(path, "r+b") as handle:
                handle.write(b"this is not a database: " * 8)

        # A health answer is reused for two seconds; the next one reads the stores again.
        def both_named() -> StatusReport | None:
            report = status(env)
            return report if all(report["services"][n]["problem"] for n in ("memory", "kg")) else None

        report = wait_for(both_named, 30, "status to name both broken stores")
        memory, kg = report["services"]["memory"], report["services"]["kg"]
        assert not memory["healthy"] and "chroma store unreadable" in (memory["problem"] or "")
        assert "chroma.sqlite3" in (memory["problem"] or "")
        assert not kg["healthy"] and "kg store (kg.sqlite3) unreadable" in (kg["problem"] or "")
        assert report["services"]["embedding"]["healthy"]
        human = cli(env, "status")
        assert human.returncode == 1 and "chroma store unreadable" in " ".join(human.stdout.split())
    finally:
        cli(env, "down", timeout=60)
