"""CLI behaviour that needs no running stack: usage errors, a stopped stack, bindings, status."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernel import projects
from mnemex.cli import app

runner = CliRunner()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def stopped_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GATEWAY", "EMBEDDING", "MEMORY", "KG"):
        monkeypatch.setenv(f"MNEMEX_{name}_ADDR", f"127.0.0.1:{free_port()}")


@pytest.mark.parametrize(
    "args",
    [
        ["search"],
        ["search", "x", "--sort", "sideways"],
        ["search", "x", "--limit", "0"],
        ["nonsense"],
        ["search", "x", "--collection", "diary"],
        ["ingest"],
        ["search", "x", "--days", "4000"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output


@pytest.mark.parametrize(
    "args",
    [
        ["search", "auth bug"],
        ["books"],
        ["show", "patterns_1"],
        ["stats"],
        ["remove", "Guide"],
        ["export", "out.jsonl"],
    ],
)
def test_a_stopped_stack_is_reported_with_what_to_do(
    args: list[str], stopped_stack: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "the mnemex stack is not running" in result.output and "mnemex up" in result.output
    assert not (tmp_path / "out.jsonl").exists()


def test_every_command_has_help_with_an_example() -> None:
    commands = [
        "up",
        "down",
        "status",
        "mcp",
        "init",
        "uninit",
        "ingest",
        "books",
        "remove",
        "search",
        "show",
        "stats",
        "doctor",
        "repair",
        "migrate",
        "reembed",
        "export",
        "import",
        "import-roampal",
        "projects",
        "projects bind",
        "projects unbind",
    ]
    for command in commands:
        result = runner.invoke(app, [*command.split(), "--help"])
        assert result.exit_code == 0, command
        assert "Example" in result.output, command


def test_projects_bind_list_unbind(
    tmp_path: Path, isolated_home: Path, stopped_stack: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert runner.invoke(app, ["projects", "bind", str(work), "api"]).exit_code == 0
    assert projects.load_bindings(isolated_home) == {str(work.resolve()): "api"}
    listed = runner.invoke(app, ["projects", "--json"])
    assert listed.exit_code == 0
    report = json.loads(listed.stdout)
    assert report["current"] == "api"
    assert report["projects"][0]["directories"] == [str(work.resolve())] and report["projects"][0]["current"]
    assert "not running" in report["error"]
    assert runner.invoke(app, ["projects", "bind", str(work), "bad name!"]).exit_code == 2
    assert runner.invoke(app, ["projects", "unbind", str(work)]).exit_code == 0
    assert projects.load_bindings(isolated_home) == {}
    again = runner.invoke(app, ["projects", "unbind", str(work)])
    assert again.exit_code == 1 and "is not bound" in again.output


def test_status_of_a_stopped_stack(stopped_stack: None) -> None:
    result = runner.invoke(app, ["status", "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["running"] is False and report["healthy"] is False
    assert {s["status"] for s in report["services"].values()} == {"down"}
    assert runner.invoke(app, ["down"]).output.startswith("mnemex is not running")


def test_ingest_title_with_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(tmp_path), "--title", "x"])
    assert result.exit_code == 2 and "--title names a single file" in result.output


def test_import_rejects_a_file_that_is_not_an_export(tmp_path: Path, stopped_stack: None) -> None:
    bogus = tmp_path / "x.jsonl"
    bogus.write_text('{"hello": 1}\n')
    result = runner.invoke(app, ["import", str(bogus)])
    assert result.exit_code == 1 and "is not a mnemex export" in result.output


def test_init_dry_run_init_and_uninit_use_the_client_setup(tmp_path: Path) -> None:
    user_home = tmp_path / "user"
    user_home.mkdir()
    env = {"HOME": str(user_home)}
    dry = runner.invoke(app, ["init", "--cursor", "--dry-run"], env=env)
    assert dry.exit_code == 0 and "settings.json" in dry.output
    assert not (user_home / ".claude" / "settings.json").exists()
    assert runner.invoke(app, ["init", "--cursor"], env=env).exit_code == 0
    settings = json.loads((user_home / ".claude" / "settings.json").read_text())
    assert "UserPromptSubmit" in settings["hooks"] and (user_home / ".cursor" / "mcp.json").exists()
    assert runner.invoke(app, ["uninit"], env=env).exit_code == 0
    assert not (user_home / ".claude" / "settings.json").exists()  # init created it, so uninit removes it
    assert not (user_home / ".cursor" / "mcp.json").exists()
