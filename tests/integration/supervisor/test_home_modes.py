"""MNEMEX_HOME is private (issue 27, defects 8 and 11): folders 0700, files 0600, no start on a shared or read-only home.

The real CLI and supervisor run the quick kg service; the read-only case mounts
a read-only tmpfs (root only: root writes through any file mode).
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.supervisor import cli, stack_env

pytestmark = pytest.mark.slow


def modes(home: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(home.stat().st_mode)}
    for root, folders, files in os.walk(home):
        for name in folders + files:
            path = Path(root, name)
            if not path.is_symlink():
                found[str(path.relative_to(home))] = stat.S_IMODE(path.stat().st_mode)
    return found


def test_up_makes_an_old_readable_home_private_and_creates_only_private_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    previous = os.umask(0o022)  # what an older version (and most shells) left behind
    try:
        (home / "kg").mkdir(parents=True)
        (home / "kg" / "kg.sqlite3").write_bytes(b"")
        (home / "notes.txt").write_text("private\n")
    finally:
        os.umask(previous)
    assert modes(home)["kg/kg.sqlite3"] == 0o644 and modes(home)["."] == 0o755
    env = stack_env(home)
    try:
        up = cli(env, "up", "--detach", "--only", "kg")
        assert up.returncode == 0, up.stdout + up.stderr
        found = modes(home)
        assert {"logs/kg.log", "logs/supervisor.log", "run/state.json", "kg/kg.sqlite3"} <= set(found)
        loose = {path: oct(mode) for path, mode in found.items() if mode & 0o077}
        assert loose == {}
        assert found["."] == 0o700 and found["kg"] == 0o700 and found["kg/kg.sqlite3"] == 0o600
    finally:
        cli(env, "down", timeout=60)


def test_up_refuses_a_home_others_can_write_and_says_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o777)
    up = cli(stack_env(home), "up", "--detach", "--only", "kg")
    said = " ".join((up.stdout + up.stderr).split())
    assert up.returncode == 1, said
    assert f"chmod 700 {home}" in said and "Traceback" not in said
    assert not (home / "run").exists()  # nothing started, nothing written


@pytest.fixture()
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a read-only file system needs root")
    home = tmp_path / "ro-home"
    home.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m,mode=0700", "tmpfs", str(home)], check=False)
    if mounted.returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        yield home
    finally:
        subprocess.run(["umount", str(home)], check=False)


def test_up_on_a_read_only_home_prints_one_line_with_the_path_and_the_fix(read_only_home: Path) -> None:
    env = stack_env(read_only_home)
    for args in (("up", "--detach", "--only", "kg"), ("up", "--only", "kg")):
        up = cli(env, *args)
        assert up.returncode == 1, up.stdout + up.stderr
        assert "Traceback" not in up.stderr and "OSError" not in up.stderr
        said = " ".join(up.stderr.split())
        assert str(read_only_home) in said and "read-only file system" in said
        assert "set MNEMEX_HOME to a writable folder" in said
