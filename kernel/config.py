"""Settings read from the environment, once, at each process's entrypoint.

Every variable is prefixed ``MNEMEX_``. Tests pass their own ``environ`` dict.

| variable | default | meaning |
|---|---|---|
| MNEMEX_HOME | platform user data dir | where all state lives |
| MNEMEX_USER | OS user name | the user half of every scope |
| MNEMEX_GATEWAY_ADDR | 127.0.0.1:27300 | gateway listen address (HTTP) |
| MNEMEX_GATEWAY_PORT | 27300 | shorthand for the gateway port |
| MNEMEX_EMBEDDING_ADDR | 127.0.0.1:27301 | embedding service (listen and peers) |
| MNEMEX_MEMORY_ADDR | 127.0.0.1:27302 | memory service |
| MNEMEX_KG_ADDR | 127.0.0.1:27303 | knowledge-graph service |
| MNEMEX_TOKEN | (none) | shared secret; required to bind beyond loopback |
| MNEMEX_CHROMA_URL | (none) | use a Chroma server instead of embedded Chroma |
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

DEFAULT_GATEWAY_PORT = 27300
DEFAULT_PORTS = {"embedding": 27301, "memory": 27302, "kg": 27303}
SERVICE_NAMES = ("embedding", "memory", "kg")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("mnemex", appauthor=False))


def _safe_user(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", name).strip("._-")
    return cleaned or "default"


def split_host_port(addr: str, variable: str) -> tuple[str, int]:
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"{variable}={addr!r} is not HOST:PORT (example: 127.0.0.1:27302)")
    host = host.strip("[]") or "127.0.0.1"
    value = int(port)
    if not 0 <= value <= 65535:
        raise ConfigError(f"{variable}={addr!r}: port must be 0..65535")
    return host, value


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_token_for(host: str, token: str | None, what: str) -> None:
    """Refuse to listen beyond loopback without a shared token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to bind {what} to {host}: listening beyond loopback exposes "
            "every memory to the network. Set MNEMEX_TOKEN to a long random secret "
            "(clients send it as a bearer token), or bind 127.0.0.1."
        )


def service_settings_or_exit(load: Callable[[], T], address: Callable[[T], str], env_name: str, what: str) -> T:
    """Load a service's settings and check its bind address before any heavy start-up work.

    A bad setting ends the process with one line on stderr and exit code 2,
    not a traceback after the model or the data has been loaded."""
    try:
        settings = load()
        host, _ = split_host_port(address(settings), env_name)
        require_token_for(host, getattr(settings, "token", None), what)
    except ConfigError as exc:
        print(f"mnemex {what}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return settings


@dataclass(frozen=True)
class Settings:
    home: Path
    user: str
    gateway_addr: str
    embedding_addr: str
    memory_addr: str
    kg_addr: str
    token: str | None = None
    chroma_url: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        home = Path(env["MNEMEX_HOME"]).expanduser() if env.get("MNEMEX_HOME") else default_home()
        try:
            user = env.get("MNEMEX_USER") or getpass.getuser()
        except (KeyError, OSError):
            user = "default"
        gateway_addr = env.get("MNEMEX_GATEWAY_ADDR", "")
        if not gateway_addr:
            port = env.get("MNEMEX_GATEWAY_PORT", str(DEFAULT_GATEWAY_PORT))
            if not port.isdigit():
                raise ConfigError(f"MNEMEX_GATEWAY_PORT={port!r} must be a port number")
            gateway_addr = f"127.0.0.1:{port}"
        addrs = {
            name: env.get(f"MNEMEX_{name.upper()}_ADDR") or f"127.0.0.1:{DEFAULT_PORTS[name]}" for name in SERVICE_NAMES
        }
        split_host_port(gateway_addr, "MNEMEX_GATEWAY_ADDR")
        for name, addr in addrs.items():
            if not addr.startswith(("dns:", "ipv4:", "unix:")):
                split_host_port(addr, f"MNEMEX_{name.upper()}_ADDR")
        return cls(
            home=home,
            user=_safe_user(user),
            gateway_addr=gateway_addr,
            embedding_addr=addrs["embedding"],
            memory_addr=addrs["memory"],
            kg_addr=addrs["kg"],
            token=env.get("MNEMEX_TOKEN") or None,
            chroma_url=env.get("MNEMEX_CHROMA_URL") or None,
        )

    def addr_of(self, service: str) -> str:
        return {
            "embedding": self.embedding_addr,
            "memory": self.memory_addr,
            "kg": self.kg_addr,
            "gateway": self.gateway_addr,
        }[service]

    @property
    def gateway_url(self) -> str:
        host, port = split_host_port(self.gateway_addr, "MNEMEX_GATEWAY_ADDR")
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        return f"http://{host}:{port}"
