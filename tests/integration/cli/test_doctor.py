"""`mnemex doctor` on a stopped stack with a broken client config, and on the running stack."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.json_values import JSONObject
from tests.support.cli_stack import RunningStack
from tests.support.json_read import json_list, json_str_map, parse_json_object
from tests.support.supervisor import cli, stack_env


def checks_by_name(report: JSONObject) -> dict[str, dict[str, str]]:
    """The doctor's JSON report, by check name (each field of a check is a string)."""
    return {fields["name"]: fields for fields in (json_str_map(check) for check in json_list(report, "checks"))}


def test_doctor_reports_a_stopped_stack_and_a_broken_client_config(tmp_path: Path) -> None:
    env = stack_env(tmp_path / "home")
    user_home = tmp_path / "user"
    (user_home / ".claude").mkdir(parents=True)
    (user_home / ".claude" / "settings.json").write_text('{"hooks": {"Stop": [}\n')
    env["HOME"] = str(user_home)
    result = cli(env, "doctor", "--json", "--skip-model", timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    report = parse_json_object(result.stdout)
    checks = checks_by_name(report)
    assert report["ok"] is False
    for name in ("embedding", "memory", "kg", "gateway"):
        stack_check = checks[f"stack: {name} at {env[f'MNEMEX_{name.upper()}_ADDR']}"]
        assert stack_check["status"] == "fail" and "mnemex up --detach" in stack_check["fix"]
    claude = checks["claude config"]
    assert claude["status"] == "fail" and "not valid JSON" in claude["detail"] and "settings.json" in claude["detail"]
    assert checks["cursor config"]["status"] == "warn"  # simply not set up
    assert checks["hook round trip (UserPromptSubmit)"]["status"] == "skip"
    assert all(c["status"] == "ok" for n, c in checks.items() if n.startswith("port "))
    human = cli(env, "doctor", "--skip-model", timeout=60)
    assert human.returncode == 1 and "FAIL claude config" in human.stdout and "fix: " in human.stdout


def test_doctor_passes_on_the_running_stack_after_init(stack: RunningStack, tmp_path: Path) -> None:
    user_home = tmp_path / "user"
    user_home.mkdir()
    assert stack.invoke(tmp_path, "init", "--cursor", HOME=str(user_home)).exit_code == 0
    result = stack.invoke(tmp_path, "doctor", "--json", HOME=str(user_home))
    report = parse_json_object(result.stdout)
    checks = checks_by_name(report)
    assert result.exit_code == 0 and report["ok"], result.stdout
    assert checks["claude config"]["status"] == "ok" and checks["cursor config"]["status"] == "ok"
    assert "serves all-MiniLM-L6-v2" in checks["embedding model loads offline"]["detail"]
    assert checks["hook round trip (UserPromptSubmit)"]["status"] in ("ok", "warn")  # warn = slow, not broken
    versions = checks["service versions match"]
    assert versions["status"] == "ok" and "gateway, embedding, memory, kg all run" in versions["detail"]
    assert all("in use by the mnemex" in c["detail"] for n, c in checks.items() if n.startswith("port "))


@pytest.mark.slow
def test_model_check_loads_the_packaged_model_offline_without_a_stack() -> None:
    from mnemex.cli.doctor_checks import embedding_offline

    check = embedding_offline(None)
    assert check.status == "ok", check
    assert check.detail.startswith("all-MiniLM-L6-v2 384 (1, 384)") and "downloads disabled" in check.detail
