"""An idle supervisor sleeps until a probe is due, yet sees a crash at once.

The steady-state loop no longer ticks twice a second: it sleeps for a whole
probe period (30 s by default) and a watcher thread per child wakes it when
that child exits. Here the probe period is 60 s, so a restart seen within a
few seconds can only come from the exit wake-up.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mnemex.supervisor.backoff import RestartPolicy
from mnemex.supervisor.specs import ServiceSpec
from mnemex.supervisor.state import RunPaths, SupervisorState
from mnemex.supervisor.supervisor_loop import Supervisor, Timing
from tests.support.stack import free_port

# A stand-in service: answers 200 to any GET, as the gateway's /api/health does when its backends serve.
HEALTHY_HTTP = """
import http.server, sys
class Ok(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"{}")
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Ok).serve_forever()
"""


@dataclass(frozen=True)
class ScriptSpec(ServiceSpec):
    """The supervised process is a small script instead of a mnemex service."""

    def command(self, python: str | None = None) -> list[str]:
        return [python or sys.executable, "-c", HEALTHY_HTTP, self.address.rsplit(":", 1)[1]]


@pytest.fixture
def supervising(tmp_path: Path) -> Iterator[tuple[Supervisor, threading.Thread]]:
    spec = ScriptSpec(name="gateway", module="-", address=f"127.0.0.1:{free_port()}", kind="http")
    supervisor = Supervisor(
        [spec],
        SupervisorState(pid=os.getpid(), home=str(tmp_path), gateway_url=f"http://{spec.address}"),
        RunPaths(tmp_path),
        dict(os.environ),
        policy=RestartPolicy(),
        timing=Timing(probe_interval=60.0),
    )
    supervisor.start()
    assert supervisor.wait_ready(30) is None
    loop = threading.Thread(target=supervisor.run, daemon=True)
    loop.start()
    try:
        yield supervisor, loop
    finally:
        supervisor.request_stop()
        loop.join(10)
        supervisor.stop()
    assert not loop.is_alive()


def test_a_crash_is_restarted_long_before_the_next_probe(supervising: tuple[Supervisor, threading.Thread]) -> None:
    child = supervising[0].children["gateway"]
    first = child.state.pid
    assert first is not None
    time.sleep(0.5)  # the loop is now asleep until the next probe, 60 s away
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (child.state.restarts == 1 and child.state.status == "healthy"):
        time.sleep(0.05)
    assert child.state.restarts == 1
    assert child.state.last_exit == -signal.SIGKILL
    assert child.state.pid not in (None, first)
    assert child.state.status == "healthy"


def test_a_stop_request_wakes_the_sleeping_loop(supervising: tuple[Supervisor, threading.Thread]) -> None:
    supervisor, loop = supervising
    time.sleep(0.3)  # asleep until the next probe, 60 s away
    supervisor.request_stop()
    loop.join(10)
    assert not loop.is_alive()
