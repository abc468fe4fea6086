"""Backups: as private as the original, and none left behind by an init/uninit round trip."""

from __future__ import annotations

import json
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


def test_uninit_writes_no_backup_and_removes_inits_when_it_took_out_all_of_mnemex(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_user_configs(home)
    init(home, clients=ALL, gateway_url=GATEWAY)
    settings = home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"model": "opus"', '"model": "sonnet"'))
    result = uninit(home)
    assert result.backups == [], "uninit only takes mnemex's entries out: nothing of the user's to back up"
    assert backups(home) == [], "init's backups go once mnemex is out of every file"
    assert len(result.removed_backups) == 4
    assert json.loads(settings.read_text()) == {"model": "sonnet"}, "the user's edit after init stays"


def test_uninit_keeps_inits_backup_and_names_it_when_a_mnemex_entry_was_edited(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_user_configs(home)
    init(home, gateway_url=GATEWAY)
    (made,) = [b for b in backups(home) if b.name.startswith("settings.json")]
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 30  # the user tuned mnemex's hook: it stays
    settings.write_text(json.dumps(data))
    result = uninit(home)
    assert [b for b in backups(home) if b.name.startswith("settings.json")] == [made]
    assert any(str(made) in note and str(settings) in note for note in result.notes), result.notes
    assert result.backups == []
