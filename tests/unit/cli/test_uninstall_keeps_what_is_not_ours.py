"""`mnemex uninstall` removes only what mnemex made, says what it did, and leaves no backups (real files, CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemex.cli import app

runner = CliRunner()


@pytest.fixture
def user(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "user"
    home.mkdir()
    return {
        "HOME": str(home),
        "MNEMEX_HOME": str(tmp_path / "data"),
        "MNEMEX_MODEL_CACHE": str(tmp_path / "cache"),
        "PATH": str(tmp_path / "no-binaries"),
    }


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def install_package(config: Path, name: str, version: str) -> None:
    """What `bun add` leaves in OpenCode's config folder: the package in node_modules, package.json, the lock."""
    package = config / "node_modules" / name
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": name, "version": version}))
    (package / "index.js").write_text("export default function () {}\n")
    manifest = config / "package.json"
    data = json.loads(manifest.read_text()) if manifest.exists() else {}
    data.setdefault("dependencies", {})[name] = version
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    (config / "bun.lock").write_text(json.dumps({"packages": sorted(data["dependencies"])}))


def test_uninstall_delete_data_leaves_a_plugin_added_after_init_with_its_dependencies(user: dict[str, str]) -> None:
    home = Path(user["HOME"])
    config = home / ".config" / "opencode"
    config.mkdir(parents=True)
    assert runner.invoke(app, ["init", "--client", "opencode"], env=user).exit_code == 0
    ours = config / "plugins" / "mnemex.ts"
    assert ours.is_file()
    # OpenCode's next start installs its plugin package for mnemex's plugin ...
    install_package(config, "@opencode-ai/plugin", "1.18.33")
    (config / ".gitignore").write_text("node_modules\npackage.json\nbun.lock\n.gitignore\n")
    # ... then the user adds a plugin of their own, with a dependency of its own.
    (config / "plugins" / "audit.ts").write_text('import pad from "left-pad"\nexport const Audit = async () => ({})\n')
    install_package(config, "left-pad", "1.3.0")
    mnemexs = ("plugins/mnemex.ts", "opencode.json")  # both created by init
    foreign = {name: data for name, data in files_under(config).items() if name not in mnemexs}

    result = runner.invoke(app, ["uninstall", "--delete-data", "--json"], env=user)
    assert result.exit_code == 0, result.output
    assert not ours.exists()
    assert files_under(config) == foreign, "the other plugin, package.json, the lock and node_modules stay as they were"
    report = json.loads(result.stdout)
    assert not any(path.startswith(str(config / "node_modules")) for path in report["removed"])
    assert any("audit.ts" in note and "node_modules" in note for note in report["notes"]), report["notes"]


def test_uninstall_still_removes_the_packages_that_served_only_mnemexs_plugin(user: dict[str, str]) -> None:
    home = Path(user["HOME"])
    config = home / ".config" / "opencode"
    config.mkdir(parents=True)
    assert runner.invoke(app, ["init", "--client", "opencode"], env=user).exit_code == 0
    install_package(config, "@opencode-ai/plugin", "1.18.33")
    result = runner.invoke(app, ["uninstall", "--delete-data"], env=user)
    assert result.exit_code == 0, result.output
    assert list(config.iterdir()) == []


def test_uninstall_says_it_took_mnemexs_entries_out_of_a_file_it_did_not_create(user: dict[str, str]) -> None:
    home = Path(user["HOME"])
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}')
    assert runner.invoke(app, ["init", "--client", "claude"], env=user).exit_code == 0
    result = runner.invoke(app, ["uninstall", "--keep-data"], env=user)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"removed mnemex's hooks and tool permissions from {settings}" in lines, result.output
    assert f"removed {settings}" not in lines, "the file itself is still there"
    assert f"removed {home / '.claude.json'} (mnemex created it)" in lines
    report = json.loads(runner.invoke(app, ["uninstall", "--keep-data", "--json"], env=user).stdout)
    assert report["removed"] == [] and report["cleaned"] == []  # a second run has nothing left to do
    assert json.loads(settings.read_text()) == {"model": "opus"}


def test_uninstall_leaves_no_backup_behind_even_after_the_user_edited_the_files(user: dict[str, str]) -> None:
    home = Path(user["HOME"])
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}')
    (home / ".claude.json").write_text('{"numStartups": 3}')
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {}}')
    init = runner.invoke(app, ["init", "--client", "claude,cursor"], env=user)
    assert init.exit_code == 0, init.output
    made = sorted(p for p in home.rglob("*") if ".mnemex-backup-" in p.name)
    assert len(made) == 3 and all(str(b) in init.output for b in made), "init says where each backup is"
    for name, key in ((".claude/settings.json", "model"), (".claude.json", "numStartups")):
        data = json.loads((home / name).read_text())
        data[key] = "edited after init"
        (home / name).write_text(json.dumps(data))

    result = runner.invoke(app, ["uninstall", "--keep-data"], env=user)
    assert result.exit_code == 0, result.output
    assert [p for p in home.rglob("*") if ".mnemex-backup-" in p.name] == []
    assert all(f"removed {b}" in result.output for b in made), result.output
    assert json.loads((home / ".claude" / "settings.json").read_text()) == {"model": "edited after init"}
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": "edited after init"}
