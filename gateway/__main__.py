"""``python -m gateway``: serve the gateway with uvicorn on MNEMEX_GATEWAY_ADDR.

Refuses to listen beyond loopback unless MNEMEX_TOKEN is set (then every
endpoint but GET /api/health needs ``Authorization: Bearer <token>``).
MNEMEX_GET_CONTEXT_BUDGET_MS (default 1500) bounds one get-context; keep it
below the hooks' MNEMEX_HOOK_TIMEOUT (2 s).
"""

from __future__ import annotations

import os
import sys

from kernel import logs, offline
from kernel.config import ConfigError, Settings, require_token_for, split_host_port


def main() -> None:
    offline.apply()
    logs.configure()  # no request data in log lines or tracebacks
    try:
        settings = Settings.from_env()
        budget_ms = os.environ.get("MNEMEX_GET_CONTEXT_BUDGET_MS", "1500")
        if not budget_ms.isdigit() or not 50 <= int(budget_ms) <= 60_000:
            raise ConfigError(f"MNEMEX_GET_CONTEXT_BUDGET_MS={budget_ms!r}: use milliseconds from 50 to 60000")
        host, port = split_host_port(settings.gateway_addr, "MNEMEX_GATEWAY_ADDR")
        require_token_for(host, settings.token, "the gateway")
        from kernel.home_safety import protect_home

        protect_home(settings.home)  # umask 077, a private home (see kernel/home_safety.py)
    except ConfigError as exc:
        print(f"mnemex gateway: {exc}", file=sys.stderr)
        raise SystemExit(2) from None

    import signal

    # uvicorn drains requests on SIGTERM/SIGINT, then re-raises the signal with the
    # handler that was installed before it started: make that a clean exit 0.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(0))

    from gateway.app import create_app
    from gateway.prompt_context import Deadlines
    from gateway.serving import serve, server_config
    from gateway.user_tokens import TokensFileError

    try:
        app = create_app(settings, deadlines=Deadlines.within(int(budget_ms) / 1000))
    except TokensFileError as exc:  # a missing or malformed MNEMEX_USER_TOKENS file: one line, not a traceback
        print(f"mnemex gateway: {exc} (fix the file, or add tokens with `mnemex tokens add USER`)", file=sys.stderr)
        raise SystemExit(2) from None
    serve(server_config(app, host, port), on_exit=app.state.gateway.activity.close)


if __name__ == "__main__":
    main()
