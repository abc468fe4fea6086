"""`mnemex init` records the stack it runs under; MCP servers and hooks find it again (real files, no mocks)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernel import connection
from kernel.config import Settings
from mnemex.client_setup import init, uninit
from mnemex.client_setup.hook_install import HOOK_FILES, base_interpreter, start_command
from tests.support.json_read import json_at, json_list, json_str, json_str_map, read_json_object

GATEWAY = "http://127.0.0.1:27399"
STACK = {"MNEMEX_GATEWAY_PORT": "31999", "MNEMEX_TOKEN": "s3cret-token", "MNEMEX_MEMORY_ADDR": "127.0.0.1:31998"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def stack_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shell `mnemex init` runs in: a stack with its own home, gateway port and token."""
    data = tmp_path / "stack-home"
    data.mkdir()
    monkeypatch.setenv("MNEMEX_HOME", str(data))
    for key, value in STACK.items():
        monkeypatch.setenv(key, value)
    return data


def test_init_records_the_shells_stack_in_a_private_connection_file(home: Path, stack_home: Path) -> None:
    init(home, clients=("claude", "cursor", "opencode"), gateway_url=GATEWAY)
    path = stack_home / "client" / "connection.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    recorded = read_json_object(path)
    assert json_at(recorded, "env", "MNEMEX_HOME") == str(stack_home)
    for key, value in STACK.items():
        assert json_at(recorded, "env", key) == value
    assert json_list(recorded, "start_command")[-2:] == ["up", "--detach"]
    assert recorded["start_command"] == list(start_command())
    # every MCP entry names the file, and none carries a secret or another MNEMEX_* setting
    claude = json_at(read_json_object(home / ".claude.json"), "mcpServers", "mnemex", "env")
    cursor = json_at(read_json_object(home / ".cursor" / "mcp.json"), "mcpServers", "mnemex", "env")
    opencode_config = read_json_object(home / ".config" / "opencode" / "opencode.json")
    opencode = json_at(opencode_config, "mcp", "mnemex", "environment")
    assert claude == opencode == {"MNEMEX_CONNECTION_FILE": str(path)}
    assert cursor == {"MNEMEX_CONNECTION_FILE": str(path), "MNEMEX_PROJECT_DIR": "${workspaceFolder}"}
    for config in (home / ".claude.json", home / ".cursor" / "mcp.json", home / ".config/opencode/opencode.json"):
        assert "s3cret-token" not in config.read_text()


def test_start_command_is_the_installed_console_script() -> None:
    command = start_command()
    beside = Path(sys.executable).parent / "mnemex"
    if beside.exists():
        assert command == (str(beside), "up", "--detach")
    assert Path(command[0]).exists()


def test_hooks_are_copied_and_run_by_the_base_interpreter(home: Path, stack_home: Path) -> None:
    init(home, gateway_url=GATEWAY)
    hooks = stack_home / "client" / "hooks"
    repo_hooks = Path(__file__).resolve().parents[3] / "hooks"
    expected = sorted(p.name for p in repo_hooks.glob("*.py") if p.name != "__init__.py")
    assert set(HOOK_FILES) <= set(expected)
    assert sorted(p.name for p in hooks.iterdir()) == expected
    for name in expected:
        assert (hooks / name).read_bytes() == (repo_hooks / name).read_bytes()
    settings = read_json_object(home / ".claude" / "settings.json")
    command = json_str(settings, "hooks", "UserPromptSubmit", 0, "hooks", 0, "command")
    assert command.split(" -S ")[0] == base_interpreter()
    assert ".venv" not in command and str(repo_hooks) not in command
    assert sys.prefix == sys.base_prefix or not base_interpreter().startswith(sys.prefix)


def test_init_again_rewrites_a_changed_hook_copy(home: Path, stack_home: Path) -> None:
    init(home, gateway_url=GATEWAY)
    script = stack_home / "client" / "hooks" / "hook_main.py"
    original = script.read_text()
    script.write_text("broken")
    result = init(home, gateway_url=GATEWAY)
    assert result.changed and script.read_text() == original


def test_apply_fills_a_minimal_environment_from_the_file(home: Path, stack_home: Path) -> None:
    """What `mnemex mcp` does first: an SDK-started server (HOME, PATH, ...) resolves the recorded stack."""
    init(home, gateway_url=GATEWAY)
    entry_env = json_str_map(read_json_object(home / ".claude.json"), "mcpServers", "mnemex", "env")
    minimal = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh", "TERM": "dumb", **entry_env}
    assert connection.apply(minimal) is not None
    settings = Settings.from_env(minimal)
    assert settings.home == stack_home
    assert settings.gateway_url == "http://127.0.0.1:31999"
    assert minimal["MNEMEX_TOKEN"] == "s3cret-token" and minimal["MNEMEX_MEMORY_ADDR"] == "127.0.0.1:31998"


def test_apply_rules_own_home_is_never_mixed_and_set_variables_win(tmp_path: Path) -> None:
    path = tmp_path / "connection.json"
    path.write_text(connection.Connection({"MNEMEX_HOME": "/recorded", "MNEMEX_GATEWAY_PORT": "1"}).to_json())
    own = {"MNEMEX_CONNECTION_FILE": str(path), "MNEMEX_HOME": "/mine"}
    assert connection.apply(own) is None and "MNEMEX_GATEWAY_PORT" not in own
    partial = {"MNEMEX_CONNECTION_FILE": str(path), "MNEMEX_GATEWAY_PORT": "2"}
    connection.apply(partial)
    assert partial["MNEMEX_GATEWAY_PORT"] == "2" and partial["MNEMEX_HOME"] == "/recorded"
    path.write_text("{broken")
    assert connection.apply({"MNEMEX_CONNECTION_FILE": str(path)}) is None


def test_mnemex_mcp_applies_the_connection_file_before_reading_settings(
    home: Path, stack_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.mcp import stdio
    from mnemex.cli import app

    init(home, gateway_url=GATEWAY)
    file = stack_home / "client" / "connection.json"
    seen: list[Settings] = []
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update({"HOME": str(home), "PATH": saved.get("PATH", ""), "MNEMEX_CONNECTION_FILE": str(file)})
        monkeypatch.setattr(stdio, "run", lambda start_stack=None: seen.append(Settings.from_env()))
        result = CliRunner().invoke(app, ["mcp"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert result.exit_code == 0, result.output
    (settings,) = seen
    assert settings.home == stack_home and settings.gateway_url == "http://127.0.0.1:31999"


def test_hook_client_reads_the_file_with_the_same_rule(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "hooks"))
    try:
        import hook_client
    finally:
        sys.path.pop(0)
    assert set(hook_client.NOT_RECORDED) == set(connection.NOT_RECORDED)
    path = tmp_path / "connection.json"
    path.write_text(
        connection.Connection({"MNEMEX_TOKEN": "t", "MNEMEX_GATEWAY_PORT": "9"}, ("/opt/mnemex", "up")).to_json()
    )
    env: dict[str, str] = {"MNEMEX_GATEWAY_PORT": "7"}
    assert hook_client.apply_connection(env, str(path)) == ["/opt/mnemex", "up"]
    assert env == {"MNEMEX_GATEWAY_PORT": "7", "MNEMEX_TOKEN": "t"}
    own: dict[str, str] = {"MNEMEX_HOME": "/x"}
    assert hook_client.apply_connection(own, str(path)) == [] and own == {"MNEMEX_HOME": "/x"}
    assert hook_client.apply_connection({}, str(tmp_path / "missing.json")) == []


def test_last_uninit_removes_the_connection_file_and_hook_copies(home: Path, stack_home: Path) -> None:
    init(home, clients=("claude", "cursor"), gateway_url=GATEWAY)
    client_dir = stack_home / "client"
    uninit(home, clients=("claude",))
    assert (client_dir / "connection.json").exists() and (client_dir / "hooks" / "stop.py").exists()
    (client_dir / "hooks" / "__pycache__").mkdir()
    (client_dir / "hooks" / "__pycache__" / "hook_main.cpython-311.pyc").write_bytes(b"x")
    uninit(home, clients=("cursor",))
    assert not client_dir.exists()
    assert stack_home.exists(), "the stack's own home is left alone"
