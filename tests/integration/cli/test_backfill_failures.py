"""`mnemex backfill` failures (issue 27, defect 11): --json prints a JSON error, Ctrl-C exits 130.

The real CLI runs as a process; no stack is needed: a stopped stack, and a
gateway address that accepts the connection but never answers, are the faults.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.supervisor import ROOT, free_port, stack_env


def backfill_process(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mnemex.cli", "backfill", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_backfill_json_prints_a_json_error_when_the_stack_is_down(tmp_path: Path) -> None:
    env = {**stack_env(tmp_path / "home"), "HOME": str(tmp_path)}
    env["MNEMEX_GATEWAY_ADDR"] = f"127.0.0.1:{free_port()}"  # nothing listens there
    proc = backfill_process(env, "--json")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stderr
    answer = json.loads(stdout)
    assert answer["exit_code"] == 1
    assert "mnemex up" in answer["error"] or "not running" in answer["error"], answer
    assert "error:" in stderr  # people still read the same message on stderr


def test_ctrl_c_during_backfill_exits_130_with_a_json_error(tmp_path: Path) -> None:
    env = {**stack_env(tmp_path / "home"), "HOME": str(tmp_path)}
    with socket.socket() as silent:  # accepts the health request, never answers it
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env["MNEMEX_GATEWAY_ADDR"] = f"127.0.0.1:{silent.getsockname()[1]}"
        proc = backfill_process(env, "--json")
        silent.settimeout(120)
        connection, _ = silent.accept()  # the CLI is now waiting for the answer
        with connection:
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    answer = json.loads(stdout)
    assert answer["exit_code"] == 130 and "interrupted" in answer["error"]
    assert "Traceback" not in stderr
