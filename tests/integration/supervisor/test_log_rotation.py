"""Logs rotate by size while their process runs (issue 27, defect 7: they rotated only when a service started).

The writer is a real child process holding its log the way the supervisor's
children do (stdout opened for appending, ``Supervisor._spawn``); ``rotate``
runs while it is alive, as the supervisor's loop calls it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from mnemex.supervisor.child_logs import rotate

WRITER = """
import sys
for n in range(2000):
    print(f"first {n:05d} " + "x" * 60)
sys.stdout.flush()
sys.stdin.readline()  # wait until the test has rotated the log
for n in range(10):
    print(f"second {n:05d}")
sys.stdout.flush()
"""


def test_a_running_process_log_is_rotated_and_its_next_lines_land_in_the_fresh_file(tmp_path: Path) -> None:
    log_path = tmp_path / "gateway.log"
    with open(log_path, "ab") as log:
        child = subprocess.Popen([sys.executable, "-c", WRITER], stdin=subprocess.PIPE, stdout=log)
    try:
        assert child.stdin is not None
        first = "".join(f"first {n:05d} " + "x" * 60 + "\n" for n in range(2000))
        deadline = time.monotonic() + 30
        while log_path.stat().st_size < len(first) and time.monotonic() < deadline:
            time.sleep(0.01)  # the child writes its first part at once
        assert rotate(log_path, limit=100_000)
        child.stdin.write(b"go\n")
        child.stdin.flush()
        assert child.wait(30) == 0
    finally:
        child.kill()
    assert (tmp_path / "gateway.log.1").read_text() == first  # nothing lost, nothing doubled
    assert log_path.read_bytes() == "".join(f"second {n:05d}\n" for n in range(10)).encode()  # no hole of NULs
    assert (tmp_path / "gateway.log.1").stat().st_mode & 0o077 == 0


def test_a_small_log_is_left_alone(tmp_path: Path) -> None:
    log_path = tmp_path / "kg.log"
    log_path.write_text("one line\n")
    assert not rotate(log_path, limit=100_000)
    assert log_path.read_text() == "one line\n" and not (tmp_path / "kg.log.1").exists()
