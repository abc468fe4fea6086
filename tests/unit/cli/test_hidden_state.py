"""What a user cannot see is a surprise: `projects` says when the current directory is excluded or
mnemex is paused (issue 37, item 6). Real files, the real CLI (CliRunner), no stack running."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernel import optout
from mnemex.cli import app

runner = CliRunner()
CLOSED = "127.0.0.1:9"


@pytest.fixture
def user(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "user"), "MNEMEX_HOME": str(tmp_path / "data"), "MNEMEX_GATEWAY_ADDR": CLOSED}


@pytest.fixture
def inside(tmp_path: Path) -> Iterator[Path]:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / optout.MARKER_FILE).write_text("")
    before = os.getcwd()
    os.chdir(repo / "src")
    try:
        yield repo
    finally:
        os.chdir(before)


def test_projects_inside_an_ignored_folder_says_it_is_excluded(user: dict[str, str], inside: Path) -> None:
    shown = runner.invoke(app, ["projects"], env=user)
    assert shown.exit_code == 0, shown.output
    assert "this directory is excluded" in shown.output and optout.MARKER_FILE in shown.output
    assert "belongs to project" not in shown.output
    listed = json.loads(runner.invoke(app, ["projects", "--json"], env=user).output)
    assert optout.MARKER_FILE in listed["current_excluded"]


def test_projects_elsewhere_says_nothing_is_excluded_and_names_a_pause(user: dict[str, str], tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    before = os.getcwd()
    os.chdir(plain)
    try:
        quiet = runner.invoke(app, ["projects"], env=user)
        optout.save(Path(user["MNEMEX_HOME"]), optout.OptOut(paused=True))
        paused = runner.invoke(app, ["projects", "--json"], env=user)
        told = runner.invoke(app, ["projects"], env=user)
    finally:
        os.chdir(before)
    assert "excluded" not in quiet.output and "paused" not in quiet.output
    assert json.loads(paused.output)["paused"] is True
    assert "mnemex is paused (mnemex resume)" in told.output


def test_doctor_never_says_all_checks_passed_over_a_warning() -> None:
    from mnemex.cli.doctor_command import summary

    assert summary(0, 0) == "all checks passed"
    assert summary(0, 1) == "no problems; 1 warning(s) above, each with its fix"
    assert summary(2, 1) == "2 problem(s) found; 1 warning(s) above, each with its fix"
    assert summary(1, 0) == "1 problem(s) found"


def test_a_mistyped_home_is_named_with_the_home_the_clients_use_and_never_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemex.cli.doctor_checks import client_configs, data_dir

    user_home = tmp_path / "user"
    (user_home / ".claude").mkdir(parents=True)
    real, typo = tmp_path / "mnemex-data", tmp_path / "mnemex-dta"
    env = {"HOME": str(user_home), "MNEMEX_HOME": str(real), "PATH": str(tmp_path / "no-binaries")}
    assert runner.invoke(app, ["init", "--client", "claude"], env=env).exit_code == 0
    assert real.is_dir()

    monkeypatch.setenv("MNEMEX_HOME", str(typo))
    found = data_dir(typo, user_home)
    assert found.status == "fail" and str(real) in found.detail and str(real) in (found.fix or "")
    assert not typo.exists()
    (claude,) = [c for c in client_configs(user_home, typo) if c.name == "claude config"]
    assert claude.status == "warn" and str(real) in claude.detail
    assert f"MNEMEX_HOME={real}" in (claude.fix or "")
    monkeypatch.setenv("MNEMEX_HOME", str(real))
    (here,) = [c for c in client_configs(user_home, real) if c.name == "claude config"]
    assert here.status == "ok", here


def test_status_shows_a_pause_and_an_excluded_directory(user: dict[str, str], inside: Path) -> None:
    optout.save(Path(user["MNEMEX_HOME"]), optout.OptOut(paused=True))
    shown = runner.invoke(app, ["status"], env=user)
    assert "paused:" in shown.output and "mnemex resume" in shown.output
    assert "this directory is excluded" in shown.output
    report = json.loads(runner.invoke(app, ["status", "--json"], env=user).output)
    assert report["opt_out"]["paused"] is True and optout.MARKER_FILE in report["opt_out"]["here_excluded"]


def test_down_and_up_speak_json(user: dict[str, str]) -> None:
    stopped = json.loads(runner.invoke(app, ["down", "--json"], env=user).output)
    assert stopped["stopped"] is False and stopped["supervisor_pid"] is None and "not running" in stopped["message"]
    refused = runner.invoke(app, ["up", "--json"], env=user)
    assert refused.exit_code == 2 and "--json needs --detach" in refused.output


def test_a_taken_port_is_named_with_the_variable_that_chose_it(tmp_path: Path) -> None:
    import socket

    from kernel.config import Settings
    from mnemex.cli.output import CliFailure, err
    from mnemex.cli.stack_command import _refuse_taken_ports

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"MNEMEX_HOME": str(tmp_path / "data"), "MNEMEX_GATEWAY_PORT": str(port)}
        settings = Settings.from_env(env)
        before = dict(os.environ)
        os.environ.update(env)
        try:
            with pytest.raises(CliFailure) as refused:
                _refuse_taken_ports(settings, ["gateway"], err)
        finally:
            os.environ.clear()
            os.environ.update(before)
    message = refused.value.message
    assert f"127.0.0.1:{port} (gateway) is already in use" in message
    assert "set MNEMEX_GATEWAY_PORT to a free port" in message and "MNEMEX_GATEWAY_ADDR" not in message


def test_the_next_step_is_a_command_this_shell_can_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from mnemex.supervisor.foreground import next_step

    monkeypatch.setenv("PATH", "/nonexistent")
    beside = Path(sys.executable).parent / "mnemex"
    assert beside.exists()  # the console script of this installation
    shown = next_step()
    assert "init`" in shown and "`mnemex init`" not in shown and "mnemex init" in shown
    monkeypatch.setenv("PATH", str(beside.parent))
    assert "`mnemex init`" in next_step()


def test_init_and_uninit_speak_json_and_uninstall_names_the_model_cache_it_keeps(tmp_path: Path) -> None:
    user_home = tmp_path / "user"
    (user_home / ".claude").mkdir(parents=True)
    cache = tmp_path / "cache" / "mnemex"
    (cache / "onnx").mkdir(parents=True)
    env = {
        "HOME": str(user_home),
        "MNEMEX_HOME": str(tmp_path / "data"),
        "PATH": str(tmp_path / "no-binaries"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    planned = json.loads(runner.invoke(app, ["init", "--client", "claude", "--dry-run", "--json"], env=env).output)
    assert planned["action"] == "init" and planned["dry_run"] is True and planned["files"]
    assert all(f["client"] == "claude" for f in planned["files"]) and "diff" in planned
    done = json.loads(runner.invoke(app, ["init", "--client", "claude", "--json"], env=env).output)
    assert done["changed"] is True and any(f["path"].endswith("settings.json") for f in done["files"])
    undone = json.loads(runner.invoke(app, ["uninit", "--client", "claude", "--json"], env=env).output)
    assert undone["action"] == "uninit" and all("outcome" in f for f in undone["files"])
    kept = runner.invoke(app, ["uninstall", "--keep-data"], env=env)
    assert kept.exit_code == 0, kept.output
    assert f"the model cache in {cache}" in kept.output


def test_the_hook_files_init_writes_keep_the_home_private(tmp_path: Path) -> None:
    from mnemex.cli.doctor_checks import home_privacy

    user_home = tmp_path / "user"
    (user_home / ".claude").mkdir(parents=True)
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    env = {"HOME": str(user_home), "MNEMEX_HOME": str(data), "PATH": str(tmp_path / "no-binaries")}
    assert runner.invoke(app, ["init", "--client", "claude"], env=env).exit_code == 0
    assert (data / "client" / "hooks").is_dir()
    check = home_privacy(data)
    assert check.status == "ok", check


def test_status_says_when_the_disk_is_nearly_full(user: dict[str, str], tmp_path: Path) -> None:
    import subprocess

    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.fail(f"this test needs unprivileged mount namespaces (unshare): {probe.stderr.decode()[:200]}")
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=8m tmpfs {disk} && "
        f"MNEMEX_HOME={disk}/home MNEMEX_GATEWAY_ADDR=127.0.0.1:9 HOME={user['HOME']} "
        f"{sys.executable} -m mnemex.cli status --json"
    )
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script], capture_output=True, text=True
    )
    report = json.loads(done.stdout)
    assert report["disk_free_bytes"] is not None and report["disk_free_bytes"] < 64 * 1024 * 1024
