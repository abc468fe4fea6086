"""What keeps a home from leaving processes behind (issue 36, item 4), each part on real processes.

- the lifeline: a child whose supervisor is gone dies even when it ignores SIGTERM;
- ``home_processes`` finds a home's processes by their environment, and only that home's;
- ``unsupervised`` tells a supervisor's service from one its dead supervisor left;
- ``stop_processes`` stops one that ignores SIGTERM;
- the lock's holder is found when the pid file is gone;
- a state file that cannot be written is said once and written again later, never raised.

The whole story on a real full disk is ``tests/reliability/test_full_disk.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from mnemex.supervisor.child import LIFELINE_ENV
from mnemex.supervisor.home_processes import alive, home_processes, stop_processes, unsupervised
from mnemex.supervisor.state import RunPaths, SupervisorState, running_supervisor_pid
from mnemex.supervisor.supervisor_loop import Supervisor, quiet
from tests.support.supervisor import ROOT, wait_for

IGNORES_TERM = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "


def service_like(home: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``python -m mnemex.supervisor.child http.server`` of ``home`` on a free loopback port."""
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "mnemex.supervisor.child", "http.server", "--bind", "127.0.0.1", "0", *extra],
        env={**os.environ, "PYTHONPATH": str(ROOT), "MNEMEX_HOME": str(home), **(env or {})},
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_child_whose_supervisor_is_gone_dies_even_if_it_ignores_sigterm() -> None:
    read_end, write_end = os.pipe()
    code = (
        IGNORES_TERM + "import sys; from mnemex.supervisor.child import watch_lifeline; "
        "watch_lifeline(sys.argv[1], grace=0.2); time.sleep(60)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(read_end)], cwd=ROOT, pass_fds=(read_end,), env={**os.environ}
    )
    os.close(read_end)
    try:
        time.sleep(1.0)
        assert child.poll() is None, "the child must live while the lifeline is open"
        os.close(write_end)  # what the kernel does when the supervisor dies, however it dies
        assert child.wait(10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()


def test_a_stale_lifeline_variable_is_ignored() -> None:
    code = "from mnemex.supervisor.child import watch_lifeline; print(watch_lifeline('987'), watch_lifeline(''))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["None", "None"]


def test_home_processes_finds_only_this_homes_and_stop_processes_stops_them(tmp_path: Path) -> None:
    mine, other = tmp_path / "mine", tmp_path / "other"
    ours = service_like(mine, env={LIFELINE_ENV: ""})
    theirs = service_like(other)
    try:
        found = wait_for(lambda: home_processes(mine), 30, "the process of the home")
        assert [(p.pid, p.role, p.name) for p in found] == [(ours.pid, "service", "http.server")]
        # the other home's process may still be starting on a loaded machine: wait for it too
        assert [p.pid for p in wait_for(lambda: home_processes(other), 30, "the other home's process")] == [theirs.pid]

        stopped = stop_processes(found, grace=5.0)
        assert [p.pid for p in stopped] == [ours.pid]
        ours.wait(15)
        assert home_processes(mine) == [] and theirs.poll() is None
    finally:
        for proc in (ours, theirs):
            proc.kill()
            proc.wait(10)


def test_a_service_is_unsupervised_once_its_supervisor_is_gone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # A stand-in supervisor of the home (``-m mnemex.supervisor`` in its argv) that starts one service.
    code = (
        "import subprocess, sys, time; child = subprocess.Popen([sys.executable, '-m', 'mnemex.supervisor.child', "
        "'http.server', '--bind', '127.0.0.1', '0'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "print(child.pid, flush=True); time.sleep(60)"
    )
    supervisor = subprocess.Popen(
        [sys.executable, "-c", code, "-m", "mnemex.supervisor"],
        env={**os.environ, "PYTHONPATH": str(ROOT), "MNEMEX_HOME": str(home)},
        cwd=home,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert supervisor.stdout is not None
    service = int(supervisor.stdout.readline())
    try:
        found = wait_for(lambda: procs if len(procs := home_processes(home)) == 2 else None, 30, "both processes")
        assert {(p.role, p.pid) for p in found} == {("supervisor", supervisor.pid), ("service", service)}
        assert unsupervised(found) == []
        supervisor.kill()
        supervisor.wait(10)
        left = wait_for(lambda: unsupervised(home_processes(home)), 30, "the service to be left behind")
        assert [p.pid for p in left] == [service]
    finally:
        supervisor.kill()
        supervisor.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.kill(service, signal.SIGKILL)


def test_stop_processes_kills_one_that_ignores_sigterm(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    code = IGNORES_TERM + "print('ignoring', flush=True); time.sleep(60)"
    # Looks like a supervisor of the home (``-m mnemex.supervisor`` with its MNEMEX_HOME) to the scan.
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "-m", "mnemex.supervisor"],
        env={**os.environ, "MNEMEX_HOME": str(home)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ignoring"
        found = home_processes(home)
        assert [p.role for p in found] == ["supervisor"]
        started = time.monotonic()
        assert [p.pid for p in stop_processes(found, grace=0.5)] == [proc.pid]
        assert proc.wait(5) == -signal.SIGKILL and time.monotonic() - started < 5
        assert not alive(proc.pid)
    finally:
        proc.kill()
        proc.wait(10)


def test_the_lock_holder_is_found_when_the_pid_file_is_gone(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / "home")
    code = (
        "import sys, time; from pathlib import Path; from mnemex.supervisor.state import RunPaths, SupervisorLock; "
        "lock = SupervisorLock(RunPaths(Path(sys.argv[1]))); assert lock.acquire(); print('held', flush=True); "
        "time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(paths.home)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        paths.pid_file.unlink()
        assert running_supervisor_pid(paths) == holder.pid
    finally:
        holder.kill()
        holder.wait(10)
    assert running_supervisor_pid(paths) is None


def test_a_state_file_that_cannot_be_written_is_said_once_and_written_later(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / "home")
    paths.home.mkdir()
    paths.run_dir.write_text("a file where the run folder should be")  # every write of the state fails
    said: list[str] = []
    info = SupervisorState(pid=os.getpid(), home=str(paths.home), gateway_url="http://127.0.0.1:1")
    supervisor = Supervisor([], info, paths, {}, report=said.append)
    supervisor.save()
    supervisor.save()
    assert supervisor.state_unwritten is not None
    assert len(said) == 1 and "could not write" in said[0] and str(paths.state_file) in said[0]
    assert not paths.state_file.exists()

    paths.run_dir.unlink()
    supervisor.save()
    assert supervisor.state_unwritten is None and paths.state_file.exists()
    assert said[-1].endswith("is written again")
    assert [p.name for p in paths.run_dir.iterdir()] == ["state.json"]  # no temporary file left behind


def test_a_report_that_cannot_be_written_is_dropped() -> None:
    def full_disk(message: str) -> None:
        raise OSError(28, "No space left on device")

    quiet(full_disk)("the supervisor goes on")
