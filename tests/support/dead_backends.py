"""Settings whose backends are all down: every gRPC address is a closed loopback port."""

from __future__ import annotations

import socket
from pathlib import Path

from kernel.config import Settings


def closed_port() -> int:
    """A loopback port nothing listens on (bound, read, and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dead_settings(home: Path, token: str | None = None) -> Settings:
    """Settings for user `tester` under `home`, with embedding, memory and kg on closed ports."""
    env = {
        "MNEMEX_HOME": str(home),
        "MNEMEX_USER": "tester",
        "MNEMEX_EMBEDDING_ADDR": f"127.0.0.1:{closed_port()}",
        "MNEMEX_MEMORY_ADDR": f"127.0.0.1:{closed_port()}",
        "MNEMEX_KG_ADDR": f"127.0.0.1:{closed_port()}",
    }
    if token:
        env["MNEMEX_TOKEN"] = token
    return Settings.from_env(env)
