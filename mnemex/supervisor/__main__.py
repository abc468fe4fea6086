"""The detached supervisor: ``python -m mnemex.supervisor [--only NAME] [--ready-timeout S]``.

``mnemex up --detach`` starts this in a new session with its output in
``$MNEMEX_HOME/logs/supervisor.log``; use ``mnemex up`` to run in the foreground.
"""

from __future__ import annotations

import sys
from datetime import datetime

from kernel import offline
from kernel.config import ConfigError, Settings
from mnemex.supervisor.launch import StackOptions, run_stack, stack_arguments


def timestamped(message: str) -> None:
    stamp = datetime.now().astimezone().isoformat(timespec="seconds")
    for line in message.splitlines() or [""]:
        print(f"{stamp} {line}", flush=True)


def main(argv: list[str] | None = None) -> int:
    offline.apply()
    only, ready_timeout = stack_arguments("python -m mnemex.supervisor", __doc__, argv)
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        timestamped(f"configuration error: {exc}")
        return 1

    def ready(supervisor: object) -> None:
        timestamped(f"mnemex is ready; gateway {settings.gateway_url}")

    options = StackOptions(only=only, detached=True, ready_timeout=ready_timeout)
    return run_stack(settings, options, report=timestamped, on_ready=ready)


if __name__ == "__main__":
    sys.exit(main())
