"""Backups: as private as the original, and none left behind by an init/uninit round trip."""

from __future__ import annotations

import stat
from pathlib import Path

from mnemex.client_setup import init, uninit
from mnemex.client_setup.files import make_backup

GATEWAY = "http://127.0.0.1:27399"
ALL = ("claude", "cursor", "opencode")


def backups(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if ".mnemex-backup-" in p.name)


def write_user_configs(home: Path) -> None:
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}')
    (home / ".claude.json").write_text('{"numStartups": 3, "oauthAccount": {"token": "x"}}')
    (home / ".claude.json").chmod(0o600)
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {}}')
    (home / ".cursor" / "mcp.json").chmod(0o640)
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.json").write_text('{"theme": "dark",}')


def test_a_backup_keeps_the_originals_mode(tmp_path: Path) -> None:
    for mode in (0o600, 0o640, 0o644):
        original = tmp_path / f"config-{mode:o}.json"
        original.write_text("{}")
        original.chmod(mode)
        assert stat.S_IMODE(make_backup(original, "{}").stat().st_mode) == mode


def test_init_backs_up_claude_json_privately(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_user_configs(home)
    result = init(home, clients=ALL, gateway_url=GATEWAY)
    made = {b.name.split(".mnemex-backup-")[0]: b for b in result.backups}
    assert stat.S_IMODE(made[".claude.json"].stat().st_mode) == 0o600
    assert stat.S_IMODE(made["mcp.json"].stat().st_mode) == 0o640
    assert set(made) == {"settings.json", ".claude.json", "mcp.json", "opencode.json"}


def test_init_uninit_twice_leaves_no_backups_and_the_files_as_they_were(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_user_configs(home)
    original = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    for _ in range(2):
        init(home, clients=ALL, gateway_url=GATEWAY)
        init(home, clients=ALL, gateway_url=GATEWAY)  # a second init reuses the first backup
        assert len(backups(home)) == 4
        result = uninit(home)
        assert len(result.removed_backups) == 4
        assert backups(home) == []
        assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == original


def test_uninit_keeps_backups_when_the_file_was_edited_after_init(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_user_configs(home)
    init(home, gateway_url=GATEWAY)
    settings = home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"model": "opus"', '"model": "sonnet"'))
    before_uninit = settings.read_text()
    result = uninit(home)
    kept = [b for b in backups(home) if b.name.startswith("settings.json")]
    assert len(kept) == 2  # init's (the original) and uninit's (the file as it was just before)
    assert {b.read_text() for b in kept} == {'{"model": "opus"}', before_uninit}
    assert [b.name for b in result.removed_backups] == [
        b.name for b in result.removed_backups if b.name.startswith(".claude.json")
    ]
