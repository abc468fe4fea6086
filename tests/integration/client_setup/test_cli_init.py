"""`mnemex init` / `mnemex uninit` as commands, with HOME pointing at a temporary directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def mnemex(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMEX_")}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), MNEMEX_HOME=str(home / "data"), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "mnemex.cli", *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_init_twice_then_uninit_through_the_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    original = '{"model": "sonnet", "permissions": {"allow": ["Bash(make test)"]}}\n'
    (home / ".claude" / "settings.json").write_text(original)

    dry = mnemex(home, "init", "--cursor", "--opencode", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "mcp__mnemex__search_memory" in dry.stdout and "would change" in dry.stdout
    assert (home / ".claude" / "settings.json").read_text() == original and not (home / ".cursor").exists()

    first = mnemex(home, "init", "--cursor", "--opencode")
    assert first.returncode == 0, first.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "sonnet" and "UserPromptSubmit" in settings["hooks"]
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["mnemex"]["args"][-1] == "mcp"
    assert (home / ".cursor" / "hooks.json").exists() and (
        home / ".config" / "opencode" / "plugins" / "mnemex.ts"
    ).exists()

    second = mnemex(home, "init", "--cursor", "--opencode")
    assert second.returncode == 0 and "nothing to do" in second.stdout

    removed = mnemex(home, "uninit")
    assert removed.returncode == 0, removed.stderr
    assert (home / ".claude" / "settings.json").read_text() == original
    assert not (home / ".claude.json").exists() and not (home / ".cursor").exists()
    assert not (home / ".config" / "opencode").exists()


def test_unparseable_settings_fail_with_a_fix_and_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{not json")
    result = mnemex(home, "init")
    assert result.returncode == 1
    assert "not valid JSON" in result.stdout + result.stderr


def test_unknown_client_exits_2_naming_the_valid_ones_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for command in ("init", "uninit"):
        result = mnemex(home, command, "--client", "claude,vscode")
        assert result.returncode == 2, result.stdout + result.stderr
        assert "vscode" in result.stderr and "claude, cursor, opencode" in result.stderr
    assert list(home.iterdir()) == []


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_client_option_installs_and_removes_only_the_named_clients(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert mnemex(home, "init", "--client", "opencode").returncode == 0
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    assert mnemex(home, "init", "--client", "claude,cursor").returncode == 0
    keep = {k: v for k, v in snapshot(home).items() if not k.startswith(".cursor")}
    removed = mnemex(home, "uninit", "--client", "cursor")
    assert removed.returncode == 0, removed.stderr
    assert not (home / ".cursor").exists()
    after = snapshot(home)
    manifest = ".config/mnemex/client-setup.json"
    assert {k: v for k, v in after.items() if k != manifest} == {k: v for k, v in keep.items() if k != manifest}
    assert (home / "data" / "client" / "connection.json").exists()
    assert mnemex(home, "uninit").returncode == 0
    assert not (home / "data" / "client").exists()


def test_a_commented_opencode_config_is_set_up_with_its_comments_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "opencode" / "opencode.jsonc"
    config.parent.mkdir(parents=True)
    config.write_text('{\n  // mine\n  "theme": "dark",\n}\n')
    result = mnemex(home, "init", "--client", "claude,opencode")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "opencode: connected" in result.stdout
    text = config.read_text()
    assert text.startswith('{\n  // mine\n  "theme": "dark",\n') and '"mnemex": {' in text
    assert mnemex(home, "uninit").returncode == 0
    assert config.read_text() == '{\n  // mine\n  "theme": "dark",\n}\n'


def test_a_broken_opencode_config_is_reported_once_with_a_next_step_that_works(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "opencode" / "opencode.jsonc"
    config.parent.mkdir(parents=True)
    broken = '{\n  // mine\n  "theme": "dark"\n  "url": "x"\n}\n'
    config.write_text(broken)
    result = mnemex(home, "init", "--client", "claude,opencode")
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert output.count("opencode.jsonc") == 1, output
    assert "line 4, column 3" in output and "mnemex init --client claude" in output
    assert mnemex(home, "init", "--client", "claude").returncode == 0, "the suggested command works"
    assert config.read_text() == broken
