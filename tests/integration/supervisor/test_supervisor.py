"""The supervisor on real processes: ready, status, crash restart with backoff, clean stop.

These run real services as children but only the quick-starting ones
(``--only kg --only gateway``): the whole stack, embedding model included,
is started by the CLI tests' shared fixture.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.config import Settings
from kernel.json_values import JSONObject, int_at, object_at
from mnemex.supervisor.control import ensure_running, stack_ready
from tests.support.json_read import json_int, json_object, json_str
from tests.support.supervisor import ROOT, alive, cli, log_tails, service_state, stack_env, state, wait_for

pytestmark = pytest.mark.slow


def healthy_after(home: Path, name: str, restarts: int) -> JSONObject | None:
    """The service's state once it restarted ``restarts`` times and is healthy again, else None."""
    service = service_state(home, name)
    return service if service["restarts"] == restarts and service["status"] == "healthy" else None


def restarted_pid(home: Path, name: str, restarts: int) -> int | None:
    """The service's new pid once it restarted ``restarts`` times, else None."""
    service = service_state(home, name)
    return (int_at(service, "pid") or None) if service["restarts"] == restarts else None


def test_up_restarts_a_killed_service_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = stack_env(home)
    up = subprocess.Popen(
        [sys.executable, "-m", "mnemex.cli", "up", "--only", "kg", "--only", "gateway"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: object_at(state(home), "supervisor").get("ready_at"), 120, "ready")
        report = json.loads(cli(env, "status", "--json").stdout)
        assert report["running"] and report["supervisor"]["pid"] == up.pid
        assert report["services"]["kg"]["healthy"] and report["services"]["gateway"]["healthy"]
        assert report["services"]["kg"]["address"] == env["MNEMEX_KG_ADDR"]
        first_pid = report["services"]["kg"]["pid"]
        gateway_pid = report["services"]["gateway"]["pid"]

        os.kill(first_pid, signal.SIGKILL)
        after = wait_for(lambda: healthy_after(home, "kg", 1), 120, "the kg service to be restarted and healthy")
        assert after["last_exit"] == -signal.SIGKILL and after["pid"] != first_pid
        report = json.loads(cli(env, "status", "--json").stdout)
        assert report["services"]["kg"]["restarts"] == 1 and report["healthy"]
        assert report["services"]["gateway"]["restarts"] == 0
        human = cli(env, "status")
        assert human.returncode == 0 and "killed by SIGKILL" in human.stdout

        # Two crashes in a row back off longer: 0.5 s, then 1.0 s.
        os.kill(gateway_pid, signal.SIGKILL)
        restarted = wait_for(lambda: restarted_pid(home, "gateway", 1), 30, "the gateway to be restarted")
        os.kill(restarted, signal.SIGKILL)
        gateway = wait_for(
            lambda: healthy_after(home, "gateway", 2), 120, "the gateway to come back after a second crash"
        )
        gateway_pid = json_int(gateway, "pid")

        up.send_signal(signal.SIGTERM)
        assert up.wait(30) == 0
    except BaseException:
        up.kill()
        print(log_tails(home))
        raise
    stdout = up.stdout.read() if up.stdout else ""
    stderr = up.stderr.read() if up.stderr else ""
    assert "mnemex is ready" in stdout
    assert "kg exited (killed by SIGKILL); restarting in 0.5 s" in stderr
    assert "gateway exited (killed by SIGKILL); restarting in 0.5 s" in stderr
    assert "gateway exited (killed by SIGKILL); restarting in 1.0 s" in stderr
    children = [json_int(after, "pid"), gateway_pid]
    wait_for(lambda: not any(alive(pid) for pid in children), 5, "children to exit")
    final = state(home)
    assert json_str(final, "supervisor", "status") == "stopped"
    assert {json_str(s, "status") for s in json_object(final, "services").values()} == {"stopped"}
    assert cli(env, "status").returncode == 1


def test_detach_refuses_a_second_supervisor_and_down_stops_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = stack_env(home)
    started = cli(env, "up", "--detach", "--only", "gateway")
    try:
        assert started.returncode == 0, started.stdout + started.stderr + log_tails(home)
        assert "mnemex is ready" in started.stdout
        supervisor_pid = json_int(state(home), "supervisor", "pid")
        gateway_pid = json_int(state(home), "services", "gateway", "pid")
        again = cli(env, "up", "--detach", "--only", "gateway")
        assert again.returncode == 0 and f"already running (supervisor pid {supervisor_pid})" in again.stdout
        foreground = cli(env, "up", "--only", "gateway")
        assert foreground.returncode == 0 and "already running" in foreground.stderr
        assert (home / "logs" / "supervisor.log").exists() and (home / "logs" / "gateway.log").exists()
    finally:
        stopped = cli(env, "down")
    assert stopped.returncode == 0 and f"pid {supervisor_pid}" in stopped.stdout
    wait_for(lambda: not alive(supervisor_pid) and not alive(gateway_pid), 10, "the stack to exit")
    assert "not running" in cli(env, "down").stdout


def test_ensure_running_starts_a_detached_stack_and_killing_the_supervisor_takes_children_down(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    env = stack_env(home)
    settings = Settings.from_env(env)
    assert not stack_ready(settings, ["gateway"])
    assert ensure_running(settings, timeout=120, only=["gateway"]), log_tails(home)
    assert ensure_running(settings, timeout=1, only=["gateway"])  # already up: returns at once
    supervisor_pid = json_int(state(home), "supervisor", "pid")
    gateway_pid = json_int(state(home), "services", "gateway", "pid")
    os.kill(supervisor_pid, signal.SIGKILL)
    wait_for(lambda: not alive(gateway_pid), 10, "the orphaned gateway to exit")
    assert cli(env, "status").returncode == 1


def test_a_port_held_by_another_program_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = stack_env(home)
    with socket.socket() as foreign:
        host, port = env["MNEMEX_GATEWAY_ADDR"].split(":")
        foreign.bind((host, int(port)))
        foreign.listen()
        result = cli(env, "up", "--only", "gateway")
    assert result.returncode == 1
    assert f"{env['MNEMEX_GATEWAY_ADDR']} (gateway) is already in use" in result.stderr
    assert "MNEMEX_GATEWAY_ADDR" in result.stderr
