"""Child wrapper: ``python -m mnemex.supervisor.child <module> [args...]``.

Before running ``<module>`` as ``__main__`` it makes sure the child never
outlives the supervisor, whichever way the supervisor ends:

- it asks Linux to send SIGTERM when the parent dies (``PR_SET_PDEATHSIG``),
  so even a ``kill -9`` of the supervisor stops the child gracefully at once;
- it watches the *lifeline*, the read end of a pipe whose only write end the
  supervisor holds (``MNEMEX_SUPERVISOR_LIFELINE`` names the descriptor): when
  the supervisor is gone the read returns end-of-file, and a child still
  running ``LIFELINE_GRACE`` seconds later (its graceful stop hung, say on a
  full disk) is killed. The watch is one thread blocked in ``read``: no polling.

Elsewhere than Linux it simply runs the module.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import runpy
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
PARENT_ENV = "MNEMEX_SUPERVISOR_PID"
LIFELINE_ENV = "MNEMEX_SUPERVISOR_LIFELINE"
LIFELINE_GRACE = 15.0  # seconds: more than the supervisor's own stop grace (10 s) before SIGKILL


def die_with_parent(expected_parent: int | None) -> None:
    if expected_parent is None or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != expected_parent:  # the parent died before prctl took effect
        sys.exit(0)


def _wait_for_end(fd: int, grace: float) -> None:
    with contextlib.suppress(OSError):
        while os.read(fd, 1):  # the supervisor never writes: any return is its end (b"") or an error
            pass
    time.sleep(grace)
    os.kill(os.getpid(), signal.SIGKILL)


def watch_lifeline(value: str, grace: float = LIFELINE_GRACE) -> threading.Thread | None:
    """Start the watch on the lifeline descriptor ``value`` (from ``LIFELINE_ENV``); None without one."""
    if not value.isdigit():
        return None
    fd = int(value)
    try:
        os.set_inheritable(fd, False)  # the service's own subprocesses must not keep it open
    except OSError:
        return None  # not an open descriptor: started by hand with a stale variable
    watcher = threading.Thread(target=_wait_for_end, args=(fd, grace), name="supervisor-lifeline", daemon=True)
    watcher.start()
    return watcher


def main() -> None:
    if len(sys.argv) < 2:
        sys.stderr.write("usage: python -m mnemex.supervisor.child MODULE [ARGS...]\n")
        sys.exit(2)
    parent = os.environ.get(PARENT_ENV, "")
    die_with_parent(int(parent) if parent.isdigit() else None)
    watch_lifeline(os.environ.pop(LIFELINE_ENV, ""))
    module = sys.argv[1]
    sys.argv = [module, *sys.argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
