"""The schema gate every service passes before it opens its store (kernel.home_schema)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernel import __version__, home_schema, vector_model
from kernel.home_schema import HomeTooNewError, Migration, MigrationNeededError, Registry


def _home_with_data(home: Path) -> Path:
    (home / "chroma").mkdir(parents=True)
    (home / "chroma" / "chroma.sqlite3").write_bytes(b"rows")
    (home / "kg").mkdir()
    (home / "kg" / "kg.sqlite3").write_bytes(b"journal")
    return home


def _marker(home: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((home / home_schema.MARKER).read_text())
    return data


def test_a_fresh_home_is_stamped_at_todays_schema(tmp_path: Path) -> None:
    assert home_schema.ensure_current(tmp_path, "memory") == []
    assert _marker(tmp_path)["stores"] == {"memory": 2, "kg": 1}
    assert _marker(tmp_path)["written_by"] == __version__


def test_an_unmarked_home_with_data_is_schema_1_and_migrated(tmp_path: Path) -> None:
    home = _home_with_data(tmp_path)
    assert home_schema.read_schema(home).stores == {"memory": 1, "kg": 1}
    steps = home_schema.ensure_current(home, "memory")
    assert [(s.store, s.version) for s in steps] == [("memory", 1)]
    assert _marker(home)["stores"] == {"memory": 2, "kg": 1}
    assert vector_model.read_record(home) == vector_model.Record(None)  # unknown until the service asks
    assert home_schema.ensure_current(home, "memory") == []  # once only
    assert home_schema.ensure_current(home, "kg") == []


def test_a_store_newer_than_the_code_is_refused_and_left_alone(tmp_path: Path) -> None:
    home = _home_with_data(tmp_path)
    marker = '{"format": "mnemex-home", "stores": {"memory": 7, "kg": 1}, "written_by": "3.1.0"}'
    (home / home_schema.MARKER).write_text(marker)
    with pytest.raises(HomeTooNewError) as refused:
        home_schema.ensure_current(home, "memory")
    assert "schema 7, written by mnemex 3.1.0" in str(refused.value)
    assert "reads up to schema 2: upgrade mnemex" in str(refused.value)
    assert (home / home_schema.MARKER).read_text() == marker
    home_schema.ensure_current(home, "kg")  # the kg service beside it starts, and keeps the name
    assert _marker(home)["written_by"] == "3.1.0"
    with pytest.raises(HomeTooNewError, match=r"written by mnemex 3\.1\.0"):
        home_schema.ensure_current(home, "memory")


def _registry(calls: list[str], *, automatic: bool = True, fail: bool = False) -> Registry:
    def to_3(home: Path) -> None:
        calls.append("3")
        (home / "chroma" / "chroma.sqlite3").write_bytes(b"rows v3")
        if fail:
            raise OSError("disk full")

    return Registry(
        current={"memory": 3, "kg": 1},
        data_files=home_schema.REGISTRY.data_files,
        migrations=(
            Migration("memory", 1, "step one", lambda home: calls.append("2")),
            Migration("memory", 2, "rewrite rows", to_3, copies=("chroma/chroma.sqlite3",), automatic=automatic),
        ),
    )


def test_steps_run_in_order_after_a_backup_of_what_they_change(tmp_path: Path) -> None:
    home = _home_with_data(tmp_path)
    calls: list[str] = []
    home_schema.ensure_current(home, "memory", registry=_registry(calls))
    assert calls == ["2", "3"] and _marker(home)["stores"] == {"memory": 3, "kg": 1}
    (backup,) = (home / home_schema.BACKUPS).iterdir()
    assert backup.name.startswith("schema-memory-2-to-3-")
    assert (backup / "chroma" / "chroma.sqlite3").read_bytes() == b"rows"


def test_an_interrupted_step_goes_on_from_the_last_finished_one(tmp_path: Path) -> None:
    home = _home_with_data(tmp_path)
    calls: list[str] = []
    with pytest.raises(OSError):
        home_schema.ensure_current(home, "memory", registry=_registry(calls, fail=True))
    assert _marker(home)["stores"] == {"memory": 2, "kg": 1}  # step one held; the failed one did not count
    calls.clear()
    home_schema.ensure_current(home, "memory", registry=_registry(calls))
    assert calls == ["3"]


def test_a_step_left_to_the_user_is_refused_at_start_with_the_command(tmp_path: Path) -> None:
    home = _home_with_data(tmp_path)
    calls: list[str] = []
    registry = _registry(calls, automatic=False)
    with pytest.raises(MigrationNeededError, match=r"rewrite rows.*run `mnemex down && mnemex migrate`"):
        home_schema.ensure_current(home, "memory", registry=registry)
    assert calls == [] and not (home / home_schema.MARKER).exists()
    ran = home_schema.migrate_home(home, registry=registry)
    assert [s.version for s in ran["memory"]] == [1, 2] and ran["kg"] == []
    assert _marker(home)["stores"] == {"memory": 3, "kg": 1}


def test_a_switch_of_model_is_named_with_the_command(tmp_path: Path) -> None:
    old, new = vector_model.VectorModel("all-MiniLM-L6-v2", 384), vector_model.VectorModel("mpnet", 768)
    assert vector_model.switch_problem(tmp_path, old, old) is None
    problem = vector_model.switch_problem(tmp_path, old, new)
    assert problem is not None and "run `mnemex down && mnemex reembed`" in problem
    vector_model.write_progress(tmp_path, new, ["mx-a"])
    with pytest.raises(vector_model.ReembedUnfinishedError, match=r"mpnet \(768 dimensions\) was interrupted"):
        vector_model.check_no_unfinished_reembed(tmp_path)
    vector_model.finish(tmp_path, new)
    vector_model.check_no_unfinished_reembed(tmp_path)
    assert vector_model.read_record(tmp_path) == vector_model.Record(new)
