"""Child wrapper: ``python -m mnemex.supervisor.child <module> [args...]``.

Before running ``<module>`` as ``__main__`` it asks Linux to send SIGTERM when
the parent (the supervisor) dies, so even a ``kill -9`` of the supervisor
takes its children down. Elsewhere it simply runs the module.
"""

from __future__ import annotations

import ctypes
import os
import runpy
import signal
import sys

PR_SET_PDEATHSIG = 1


PARENT_ENV = "MNEMEX_SUPERVISOR_PID"


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


def main() -> None:
    if len(sys.argv) < 2:
        sys.stderr.write("usage: python -m mnemex.supervisor.child MODULE [ARGS...]\n")
        sys.exit(2)
    parent = os.environ.get(PARENT_ENV, "")
    die_with_parent(int(parent) if parent.isdigit() else None)
    module = sys.argv[1]
    sys.argv = [module, *sys.argv[2:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
