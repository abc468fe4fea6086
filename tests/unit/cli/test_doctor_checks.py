"""Doctor checks that need no stack: client configs, ports, data dir."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from kernel.config import Settings
from kernel.json_values import JSONObject, JSONValue
from mnemex import client_setup
from mnemex.cli import doctor_checks


def by_name(checks: list[doctor_checks.Check]) -> dict[str, doctor_checks.Check]:
    return {c.name: c for c in checks}


def test_client_configs_not_set_up_then_ok_then_broken(tmp_path: Path) -> None:
    home = tmp_path / "user"
    home.mkdir()
    first = by_name(doctor_checks.client_configs(home))
    assert {c.status for c in first.values()} == {"warn"} and first[
        "claude config"
    ].fix == "run `mnemex init --client claude`"
    client_setup.init(home, cursor=True)
    second = by_name(doctor_checks.client_configs(home))
    assert second["claude config"].status == "ok" and second["cursor config"].status == "ok"
    assert second["opencode config"].status == "warn"
    (home / ".claude" / "settings.json").write_text('{"hooks": {,}')
    third = by_name(doctor_checks.client_configs(home))
    assert third["claude config"].status == "fail"
    assert "not valid JSON (line 1" in third["claude config"].detail and "mnemex init" in third["claude config"].fix


def test_client_config_pointing_at_another_python_fails(tmp_path: Path) -> None:
    home = tmp_path / "user"
    home.mkdir()
    client_setup.init(home)
    config = home / ".claude.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["mnemex"]["command"] = "/old/venv/bin/python"
    config.write_text(json.dumps(data))
    check = by_name(doctor_checks.client_configs(home))["claude config"]
    assert check.status == "fail" and "mcpServers.mnemex" in check.detail


def test_port_held_by_a_foreign_program_fails_free_ports_pass(tmp_path: Path) -> None:
    with socket.socket() as foreign:
        foreign.bind(("127.0.0.1", 0))
        foreign.listen()
        port = foreign.getsockname()[1]
        with socket.socket() as spare:
            spare.bind(("127.0.0.1", 0))
            free = spare.getsockname()[1]
        settings = Settings.from_env(
            {
                "MNEMEX_HOME": str(tmp_path),
                "MNEMEX_MEMORY_ADDR": f"127.0.0.1:{port}",
                "MNEMEX_EMBEDDING_ADDR": f"127.0.0.1:{free}",
                "MNEMEX_KG_ADDR": f"127.0.0.1:{free}",
                "MNEMEX_GATEWAY_ADDR": f"127.0.0.1:{free}",
            }
        )
        checks = by_name(doctor_checks.ports(settings))
    memory = checks[f"port 127.0.0.1:{port} (memory)"]
    assert memory.status == "fail" and "MNEMEX_MEMORY_ADDR" in memory.fix
    assert checks[f"port 127.0.0.1:{free} (embedding)"].status == "ok"


def test_data_dir_writable_or_not(tmp_path: Path) -> None:
    assert doctor_checks.data_dir(tmp_path / "new").status in ("ok", "warn")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    check = doctor_checks.data_dir(blocker / "home")
    assert check.status == "fail" and "MNEMEX_HOME" in check.fix


def reported_versions(**overrides: JSONValue) -> JSONObject:
    """GET /api/versions as a gateway of 0.1.0 answers it, with some services' entries replaced."""
    report: JSONObject = {service: {"version": "0.1.0"} for service in ("gateway", "embedding", "memory", "kg")}
    return {**report, **overrides}


def test_versions_match_when_every_service_runs_the_installed_version() -> None:
    check = doctor_checks.versions(reported_versions(), installed="0.1.0")
    assert check.name == "service versions match"
    assert check.status == "ok" and "gateway, embedding, memory, kg all run 0.1.0" in check.detail


@pytest.mark.parametrize("stale", ["gateway", "embedding", "memory", "kg"])
def test_a_service_on_another_version_fails_naming_it_with_the_fix(stale: str) -> None:
    stale_entry: JSONObject = {stale: {"version": "0.0.9"}}
    check = doctor_checks.versions(reported_versions(**stale_entry), installed="0.1.0")
    assert check.status == "fail"
    assert check.detail == f"the CLI is 0.1.0, but {stale} runs 0.0.9"
    assert "mnemex down && mnemex up" in check.fix and "reinstall" in check.fix


def test_every_mismatched_service_is_listed() -> None:
    report = reported_versions(memory={"version": "0.2.0"}, kg={"error": "UNIMPLEMENTED"})
    check = doctor_checks.versions(report, installed="0.1.0")
    assert check.status == "fail"
    assert "memory runs 0.2.0" in check.detail and "kg runs an older mnemex (no Info RPC)" in check.detail
    assert "gateway" not in check.detail and "embedding" not in check.detail


def test_a_service_that_cannot_answer_is_a_warning_not_a_mismatch() -> None:
    check = doctor_checks.versions(reported_versions(kg={"error": "UNAVAILABLE"}), installed="0.1.0")
    assert check.status == "warn" and "kg (UNAVAILABLE)" in check.detail
    without_memory = {k: v for k, v in reported_versions().items() if k != "memory"}  # an older gateway's report
    assert doctor_checks.versions(without_memory, installed="0.1.0").status == "warn"


def test_versions_are_skipped_without_a_running_stack() -> None:
    assert doctor_checks.versions(None).status == "skip"
