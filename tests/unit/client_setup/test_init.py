"""`mnemex init` / `uninit` against a temporary HOME: real files, no mocks."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from mnemex.client_setup import SetupError, init, manifest_path, uninit
from mnemex.client_setup.client_entries import CLAUDE_HOOKS, CURSOR_HOOKS, TOOL_NAMES
from mnemex.client_setup.result import SetupResult
from tests.support.json_read import json_at, json_list, json_object, json_str, parse_json_object, read_json_object

GATEWAY = "http://127.0.0.1:27399"
PYTHON = "/opt/py env/bin/python3"  # a space, to prove commands are quoted
HOOK_PYTHON = "/usr/local/bin/python 3.11"  # the base interpreter the hooks run with
EXISTING_SETTINGS = (
    '{"model": "opus",\n "env": {"FOO": "1"},\n'
    ' "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},\n'
    ' "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(.env)"]}}\n'
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


def run_init(home: Path, *, cursor: bool = False, opencode: bool = False, dry_run: bool = False) -> SetupResult:
    return init(
        home,
        python=PYTHON,
        hook_python=HOOK_PYTHON,
        gateway_url=GATEWAY,
        cursor=cursor,
        opencode=opencode,
        dry_run=dry_run,
    )


def snapshot(root: Path) -> dict[str, str]:
    """Every file under root (except our backups) with its content."""
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mnemex-backup-" not in p.name
    }


def test_init_writes_valid_json_with_hooks_mcp_and_permissions(home: Path) -> None:
    result = run_init(home)
    assert result.changed
    settings = read_json_object(home / ".claude" / "settings.json")
    assert set(json_object(settings, "hooks")) == set(CLAUDE_HOOKS)
    for event, (script, timeout, matcher) in CLAUDE_HOOKS.items():
        (group,) = json_list(settings, "hooks", event)
        (hook,) = json_list(group, "hooks")
        argv = shlex.split(json_str(hook, "command"))
        assert argv[0] == HOOK_PYTHON and argv[1] == "-S"
        assert Path(argv[2]).is_absolute() and argv[2].endswith(f"client/hooks/{script}")
        assert Path(argv[2]).exists(), "init must point at the hook scripts it copied"
        assert json_at(hook, "timeout") == timeout and json_object(group).get("matcher") == matcher
    assert json_at(settings, "permissions", "allow") == [f"mcp__mnemex__{t}" for t in TOOL_NAMES]
    server = json_object(read_json_object(home / ".claude.json"), "mcpServers", "mnemex")
    assert server["command"] == PYTHON and server["args"] == ["-m", "mnemex.cli", "mcp"]
    assert set(json_object(server, "env")) == {"MNEMEX_CONNECTION_FILE"}
    assert Path(json_str(server, "env", "MNEMEX_CONNECTION_FILE")).is_file()


def test_existing_keys_are_preserved_and_a_backup_is_written_first(home: Path) -> None:
    settings_path = home / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text(EXISTING_SETTINGS)
    (home / ".claude.json").write_text('{"numStartups": 7, "mcpServers": {"git": {"command": "uvx"}}}')
    result = run_init(home)
    settings = read_json_object(settings_path)
    assert settings["model"] == "opus" and settings["env"] == {"FOO": "1"}
    assert json_at(settings, "permissions", "deny") == ["Read(.env)"]
    assert json_at(settings, "permissions", "allow", 0) == "Bash(ls:*)"
    assert json_at(settings, "hooks", "Stop", 0) == {"hooks": [{"type": "command", "command": "say done"}]}
    assert len(json_list(settings, "hooks", "Stop")) == 2
    claude = read_json_object(home / ".claude.json")
    assert claude["numStartups"] == 7 and json_at(claude, "mcpServers", "git") == {"command": "uvx"}
    backups = {b.name.split(".mnemex-backup-")[0]: b.read_text() for b in result.backups}
    assert backups["settings.json"] == EXISTING_SETTINGS
    assert parse_json_object(backups[".claude.json"])["numStartups"] == 7


def test_running_init_twice_changes_nothing(home: Path) -> None:
    run_init(home, cursor=True, opencode=True)
    before = snapshot(home)
    again = run_init(home, cursor=True, opencode=True)
    assert not again.changed and not again.backups
    assert snapshot(home) == before
    assert "nothing to do" in again.summary()


def test_dry_run_writes_nothing_and_shows_a_diff(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(EXISTING_SETTINGS)
    before = snapshot(home)
    result = run_init(home, cursor=True, opencode=True, dry_run=True)
    assert snapshot(home) == before
    assert not manifest_path(home).exists()
    diff = result.diff()
    assert "+++ " + str(home / ".claude" / "settings.json") in diff
    assert '+      "mcp__mnemex__score_response"' in diff
    assert "--- /dev/null" in diff and str(home / ".cursor" / "hooks.json") in diff
    assert "would change" in result.render()


def test_uninit_restores_the_original_files_byte_for_byte(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(EXISTING_SETTINGS)
    (home / ".claude.json").write_text('{"numStartups": 7}')
    original = snapshot(home)
    run_init(home, cursor=True, opencode=True)
    assert snapshot(home) != original
    result = uninit(home)
    assert result.changed
    assert snapshot(home) == original
    leftovers = {str(p.relative_to(home)) for p in home.rglob("*") if ".mnemex-backup-" not in p.name}
    assert leftovers == {".claude", ".claude/settings.json", ".claude.json"}, "created files and dirs are removed"
    assert not uninit(home).changed


def test_uninit_removes_only_what_was_added_when_the_user_edited_since(home: Path) -> None:
    run_init(home)
    settings_path = home / ".claude" / "settings.json"
    settings = read_json_object(settings_path)
    settings["theme"] = "dark"  # a change of the user's after init
    json_list(settings, "permissions", "allow").append("Bash(git status)")
    settings_path.write_text(json.dumps(settings))
    uninit(home)
    assert read_json_object(settings_path) == {"theme": "dark", "permissions": {"allow": ["Bash(git status)"]}}
    assert not (home / ".claude.json").exists()


def test_a_value_the_user_already_had_is_not_removed_by_uninit(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["mcp__mnemex__search_memory"]}}')
    run_init(home)
    uninit(home)
    assert read_json_object(home / ".claude" / "settings.json") == {
        "permissions": {"allow": ["mcp__mnemex__search_memory"]}
    }


def test_changed_interpreter_replaces_the_entries_instead_of_adding_more(home: Path) -> None:
    run_init(home)
    init(home, python="/usr/bin/python3", hook_python="/usr/bin/python3", gateway_url=GATEWAY)
    settings = read_json_object(home / ".claude" / "settings.json")
    for event in CLAUDE_HOOKS:
        (group,) = json_list(settings, "hooks", event)
        assert json_str(group, "hooks", 0, "command").startswith("/usr/bin/python3 -S ")
    assert json_at(read_json_object(home / ".claude.json"), "mcpServers", "mnemex", "command") == "/usr/bin/python3"
    uninit(home)
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()


def test_cursor_gets_mcp_and_its_own_hooks_marked_as_cursor(home: Path) -> None:
    run_init(home, cursor=True)
    hooks = read_json_object(home / ".cursor" / "hooks.json")
    assert hooks["version"] == 1
    assert set(json_object(hooks, "hooks")) == set(CURSOR_HOOKS) >= {"sessionStart", "stop"}
    for event, (script, _) in CURSOR_HOOKS.items():
        argv = shlex.split(json_str(hooks, "hooks", event, 0, "command"))
        assert argv[2].endswith(f"hooks/{script}") and argv[-2:] == ["--client", "cursor"]
    settings = read_json_object(home / ".claude" / "settings.json")
    assert all(
        json_str(g, "hooks", 0, "command").endswith("--client claude")
        for e in CLAUDE_HOOKS
        for g in json_list(settings, "hooks", e)
    )
    server = json_object(read_json_object(home / ".cursor" / "mcp.json"), "mcpServers", "mnemex")
    assert server["args"] == ["-m", "mnemex.cli", "mcp"]
    claude = read_json_object(home / ".claude.json")
    connection_file = json_str(claude, "mcpServers", "mnemex", "env", "MNEMEX_CONNECTION_FILE")
    assert server["env"] == {"MNEMEX_CONNECTION_FILE": connection_file, "MNEMEX_PROJECT_DIR": "${workspaceFolder}"}


def test_opencode_gets_plugin_and_mcp_entry(home: Path) -> None:
    config = home / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.json").write_text('{"$schema": "https://opencode.ai/config.json", "theme": "tokyonight"}')
    run_init(home, opencode=True)
    plugin = (config / "plugins" / "mnemex.ts").read_text()
    assert GATEWAY in plugin and "__MNEMEX_GATEWAY_URL__" not in plugin
    assert "experimental.chat.messages.transform" in plugin and "session.idle" in plugin
    data = read_json_object(config / "opencode.json")
    assert data["theme"] == "tokyonight"
    connection_file = str(Path(os.environ["MNEMEX_HOME"]) / "client" / "connection.json")
    assert json_at(data, "mcp", "mnemex") == {
        "type": "local",
        "command": [PYTHON, "-m", "mnemex.cli", "mcp"],
        "enabled": True,
        "environment": {"MNEMEX_CONNECTION_FILE": connection_file},
    }
    assert json.dumps(connection_file)[1:-1] in plugin and "__MNEMEX_CONNECTION_FILE__" not in plugin


def test_edited_plugin_is_left_in_place_by_uninit(home: Path) -> None:
    run_init(home, opencode=True)
    plugin = home / ".config" / "opencode" / "plugins" / "mnemex.ts"
    plugin.write_text(plugin.read_text() + "\n// my tweak\n")
    result = uninit(home)
    assert plugin.exists() and "my tweak" in plugin.read_text()
    assert any("edited" in note for note in result.notes)


def test_invalid_json_is_refused_without_touching_anything(home: Path) -> None:
    (home / ".claude").mkdir()
    broken = '{"model": "opus", // a comment\n}'
    (home / ".claude" / "settings.json").write_text(broken)
    with pytest.raises(SetupError, match="not valid JSON"):
        run_init(home)
    assert (home / ".claude" / "settings.json").read_text() == broken
    assert not (home / ".claude.json").exists()


def test_wrong_shape_is_refused_with_a_fix(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": ["old style"]}')
    with pytest.raises(SetupError, match="hooks"):
        run_init(home)


def test_file_permissions_are_kept(home: Path) -> None:
    path = home / ".claude.json"
    path.write_text("{}")
    os.chmod(path, 0o600)
    run_init(home)
    assert path.stat().st_mode & 0o777 == 0o600
