"""init finds the clients; uninstall undoes init byte for byte; projects --exclude and pause (real files, CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernel import optout
from mnemex.cli import app

runner = CliRunner()


@pytest.fixture
def user(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "user"
    home.mkdir()
    return {"HOME": str(home), "MNEMEX_HOME": str(tmp_path / "data"), "PATH": str(tmp_path / "no-binaries")}


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_connects_every_client_it_finds_and_lists_the_others(user: dict[str, str]) -> None:
    home = Path(user["HOME"])
    (home / ".claude").mkdir()
    (home / ".config" / "opencode").mkdir(parents=True)
    result = runner.invoke(app, ["init"], env=user)
    assert result.exit_code == 0, result.output
    assert "claude: connected (found ~/.claude)" in result.output
    assert "opencode: connected (found ~/.config/opencode)" in result.output
    assert "cursor: not found" in result.output and "--client cursor" in result.output
    assert (home / ".config" / "opencode" / "plugins" / "mnemex.ts").is_file()
    assert not (home / ".cursor").exists()


def test_init_after_a_finished_backfill_does_not_offer_it_again(user: dict[str, str]) -> None:
    home, data = Path(user["HOME"]), Path(user["MNEMEX_HOME"])
    session = home / ".claude" / "projects" / "-src-app" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text('{"type": "user"}\n')
    first = runner.invoke(app, ["init"], env=user)
    assert "import them with: mnemex backfill" in first.output
    checkpoint = data / "backfill" / "checkpoint.json"
    checkpoint.parent.mkdir(parents=True)
    entry = {"fingerprint": "f", "size": 17, "filters": "", "sent": 1, "complete": True}
    checkpoint.write_text(json.dumps({"version": 1, "sources": {str(session): entry}}))
    again = runner.invoke(app, ["init"], env=user)
    assert "already imported" in again.output and "import them with" not in again.output


def test_uninstall_leaves_every_client_file_as_before_init_and_keeps_only_the_data(user: dict[str, str]) -> None:
    home, data = Path(user["HOME"]), Path(user["MNEMEX_HOME"])
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{\n  "model": "opus"\n}\n')
    (home / ".cursor").mkdir()
    opencode = home / ".config" / "opencode"
    opencode.mkdir(parents=True)
    (opencode / ".gitignore").write_text("mine\n")  # the user's own: it must stay
    before = files_under(home)
    assert runner.invoke(app, ["init"], env=user).exit_code == 0
    assert files_under(home) != before
    # What OpenCode does on its next start because of mnemex's plugin.
    (opencode / "package.json").write_text('{"dependencies": {"@opencode-ai/plugin": "1.0.0"}}')
    (opencode / "node_modules" / "@opencode-ai" / "plugin").mkdir(parents=True)
    (opencode / "node_modules" / "@opencode-ai" / "plugin" / "index.js").write_text("export {}")
    (opencode / "bun.lock").write_text("{}")
    (data / "memory").mkdir(parents=True)
    (data / "memory" / "store.bin").write_bytes(b"kept")

    result = runner.invoke(app, ["uninstall", "--keep-data", "--json"], env=user)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["data"] == "kept" and report["stopped"] is None
    assert str(opencode / "node_modules") in " ".join(report["notes"])
    assert files_under(home) == before
    assert sorted(p.name for p in home.rglob("*")) == sorted(
        ["settings.json", ".claude", ".cursor", ".config", "opencode", ".gitignore"]
    )
    assert (data / "memory" / "store.bin").read_bytes() == b"kept"


def test_uninstall_with_delete_data_removes_the_data_folder(user: dict[str, str], tmp_path: Path) -> None:
    data = Path(user["MNEMEX_HOME"])
    env = {**user, "MNEMEX_MODEL_CACHE": str(tmp_path / "cache")}
    assert runner.invoke(app, ["init"], env=env).exit_code == 0
    (tmp_path / "cache").mkdir()
    result = runner.invoke(app, ["uninstall", "--delete-data", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["data"] == "deleted"
    assert not data.exists() and not (tmp_path / "cache").exists()
    assert list(Path(user["HOME"]).iterdir()) == []


def test_projects_exclude_and_include_write_the_file_the_hooks_read(user: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "secret-project"
    project.mkdir()
    data = Path(user["MNEMEX_HOME"])
    excluded = runner.invoke(app, ["projects", "--exclude", str(project)], env=user)
    assert excluded.exit_code == 0 and "excluded" in excluded.output
    record = optout.load(data)
    assert record.excluded == [str(project.resolve())]
    assert optout.exclusion_reason(str(project / "src"), record) is not None
    assert optout.exclusion_reason(str(tmp_path), record) is None
    assert runner.invoke(app, ["projects", "--include", str(project)], env=user).exit_code == 0
    assert not optout.optout_path(data).exists()
    again = runner.invoke(app, ["projects", "--include", str(project)], env=user)
    assert again.exit_code == 1 and "is not excluded" in again.output


def test_marker_file_excludes_the_tree_below_it(tmp_path: Path) -> None:
    (tmp_path / "repo" / "pkg" / "deep").mkdir(parents=True)
    (tmp_path / "repo" / optout.MARKER_FILE).write_text("")
    reason = optout.exclusion_reason(str(tmp_path / "repo" / "pkg" / "deep"), optout.OptOut())
    assert reason is not None and ".mnemex-ignore" in reason
    assert optout.exclusion_reason(str(tmp_path), optout.OptOut()) is None


def test_pause_and_resume_one_session_or_all(user: dict[str, str]) -> None:
    data = Path(user["MNEMEX_HOME"])
    assert runner.invoke(app, ["pause", "--session", "s-1"], env=user).exit_code == 0
    assert optout.is_paused("s-1", optout.load(data)) and not optout.is_paused("s-2", optout.load(data))
    assert runner.invoke(app, ["pause"], env=user).exit_code == 0
    assert optout.is_paused("s-2", optout.load(data))
    assert runner.invoke(app, ["resume"], env=user).exit_code == 0
    assert not optout.is_paused("s-1", optout.load(data)) and not optout.optout_path(data).exists()
    missing = runner.invoke(app, ["resume", "--session", "s-9"], env=user)
    assert missing.exit_code == 1 and "is not paused" in missing.output


def test_doctor_shows_what_is_excluded_and_paused(tmp_path: Path) -> None:
    from mnemex.cli.doctor_checks import opt_outs

    assert opt_outs(tmp_path, str(tmp_path)).detail == "no project excluded, nothing paused"
    project = tmp_path / "work"
    project.mkdir()
    optout.save(tmp_path, optout.OptOut(excluded=[str(project)], paused_sessions=["s-7"]))
    detail = opt_outs(tmp_path, str(project)).detail
    assert f"excluded: {project}" in detail and "paused sessions: s-7" in detail
    assert "this directory is excluded with `mnemex projects --exclude" in detail
