"""``init`` then ``uninstall`` on a temporary HOME with a running stack, through the real CLI and supervisor."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.e2e_user import snapshot
from tests.support.json_read import json_at, json_int, json_object
from tests.support.supervisor import alive, cli, stack_env, state, wait_for

pytestmark = pytest.mark.slow


def test_uninstall_stops_everything_and_leaves_the_clients_as_before_init(tmp_path: Path) -> None:
    data, home = tmp_path / "data", tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"theme": "dark"}\n')
    (home / ".cursor").mkdir()
    (home / ".config" / "opencode").mkdir(parents=True)
    before = snapshot(home)
    env = {**stack_env(data), "HOME": str(home), "PATH": str(Path(os.__file__).parent)}  # no client binaries
    up = cli(env, "up", "--detach", "--only", "kg")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        services = json_object(state(data), "services")
        pids = [json_int(state(data), "supervisor", "pid")]
        pids += [json_int(s, "pid") for s in services.values() if json_at(s, "pid") is not None]
        assert pids and all(alive(pid) for pid in pids)
        init = cli(env, "init")
        assert init.returncode == 0, init.stdout + init.stderr
        assert all(f"{client}: connected" in init.stdout for client in ("claude", "cursor", "opencode")), init.stdout
        assert snapshot(home) != before
        done = cli(env, "uninstall", "--keep-data", "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        report = json.loads(done.stdout)
        assert report["stopped"] == pids[0] and report["data"] == "kept"
    finally:
        cli(env, "down", timeout=60)
    wait_for(lambda: not any(alive(pid) for pid in pids), 30, f"the stack's processes {pids} to exit")
    assert snapshot(home) == before
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == [
        ".claude",
        ".claude/settings.json",
        ".config",
        ".config/opencode",
        ".cursor",
    ]
    assert (data / "kg").is_dir()  # the data folder stays when it is kept
