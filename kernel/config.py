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
| MNEMEX_TOKEN | (none) | shared secret, required beyond loopback; unset: <home>/secrets/internal-token |
| MNEMEX_CHROMA_URL | (none) | use a Chroma server instead of embedded Chroma |
| MNEMEX_MEMORY_SHARDS | MNEMEX_MEMORY_ADDR | gateway: the memory shards' addresses, comma-separated, in shard order |
| MNEMEX_KG_SHARDS | MNEMEX_KG_ADDR | gateway: the kg shards' addresses, likewise |
| MNEMEX_SHARD | (none) | memory / kg: INDEX/COUNT, which users this process owns (kernel/sharding.py) |
| MNEMEX_USER_TOKENS | (none) | gateway: a file of per-user tokens (gateway/user_tokens.py) |
| MNEMEX_ALLOWED_HOSTS | (none) | gateway: host names it answers to beyond loopback (gateway/web_guard.py) |
"""

from __future__ import annotations

import dataclasses
import getpass
import ipaddress
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from kernel.sharding import SHARD_ENV, Shard

T = TypeVar("T")

DEFAULT_GATEWAY_PORT = 27300
DEFAULT_PORTS = {"embedding": 27301, "memory": 27302, "kg": 27303}
SERVICE_NAMES = ("embedding", "memory", "kg")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("mnemex", appauthor=False))


def home_id(home: Path) -> str:
    """A short fingerprint of a home's absolute path: the gateway sends it with every reply
    (``X-Mnemex-Home``), so a CLI pointed at one home can tell when another home's stack answered."""
    import hashlib

    return hashlib.sha256(str(home.expanduser().absolute()).encode("utf-8")).hexdigest()[:16]


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


MIN_TOKEN_CHARS = 24  # secrets.token_urlsafe(18); the suggested token_urlsafe(32) gives 43
MIN_TOKEN_DISTINCT_CHARS = 8
MAKE_A_TOKEN = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


def weak_token_reason(token: str) -> str | None:
    """Why ``token`` is too weak to guard a listener beyond loopback, or None when it is strong enough."""
    if any(ch.isspace() for ch in token):
        return "it contains whitespace"
    if len(token) < MIN_TOKEN_CHARS:
        return f"it has {len(token)} characters, fewer than {MIN_TOKEN_CHARS}"
    if len(set(token)) < MIN_TOKEN_DISTINCT_CHARS:
        return f"it uses only {len(set(token))} distinct characters (at least {MIN_TOKEN_DISTINCT_CHARS})"
    return None


def require_token_for(host: str, token: str | None, what: str) -> None:
    """Refuse to listen beyond loopback without a shared token, or with a guessable one."""
    if is_loopback(host):
        return
    if not token:
        raise ConfigError(
            f"refusing to bind {what} to {host}: listening beyond loopback exposes "
            "every memory to the network. Set MNEMEX_TOKEN to a long random secret "
            f"(clients send it as a bearer token; make one with: {MAKE_A_TOKEN}), or bind 127.0.0.1."
        )
    weak = weak_token_reason(token)
    if weak is not None:
        raise ConfigError(
            f"refusing to bind {what} to {host}: MNEMEX_TOKEN is too weak to guard a network listener "
            f"({weak}). Use a long random secret, made with: {MAKE_A_TOKEN}; or bind 127.0.0.1."
        )


def _shard_addresses(env: Mapping[str, str], variable: str) -> tuple[str, ...]:
    raw = env.get(variable, "").strip()
    if not raw:
        return ()
    addresses = tuple(part.strip() for part in raw.split(","))
    for address in addresses:
        split_host_port(address, variable)
    if len(set(addresses)) != len(addresses):
        raise ConfigError(f"{variable}={raw!r} lists an address twice: give each shard once, in shard order")
    return addresses


def _shard(env: Mapping[str, str]) -> Shard | None:
    raw = env.get(SHARD_ENV, "").strip()
    if not raw:
        return None
    try:
        return Shard.parse(raw)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


_HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\]")


def _allowed_hosts(raw: str) -> tuple[str, ...]:
    """MNEMEX_ALLOWED_HOSTS: comma-separated host names (no scheme, no port), lower-cased."""
    names = tuple(part.strip().lower() for part in raw.split(",") if part.strip())
    for name in names:
        if not _HOST_NAME.fullmatch(name):
            raise ConfigError(
                f"MNEMEX_ALLOWED_HOSTS: {name!r} is not a host name; list names only, comma-separated "
                "(example: mnemex.internal,10.0.0.5), without scheme or port"
            )
    return names


def with_internal_token(settings: T, home: Path | None) -> T:
    """``settings`` with its ``token`` set to the stack's internal credential when ``MNEMEX_TOKEN`` left it unset.

    Every service started as the stack starts it (``python -m services.<name>``,
    so also by the supervisor) requires that credential on each gRPC call; see
    ``kernel/internal_token.py``. ``home`` is the service's home, or None for
    one that keeps no data (the embedding service), which uses ``MNEMEX_HOME``.
    """
    if getattr(settings, "token", "") is not None or not dataclasses.is_dataclass(settings):
        return settings
    from kernel.internal_token import ensure_token

    token = ensure_token(home if home is not None else Settings.from_env().home)
    return dataclasses.replace(settings, token=token)  # type: ignore[type-var]  # a dataclass instance, checked above


def service_settings_or_exit(load: Callable[[], T], address: Callable[[T], str], env_name: str, what: str) -> T:
    """Load a service's settings and check its bind address before any heavy start-up work.

    A bad setting ends the process with one line on stderr and exit code 2,
    not a traceback after the model or the data has been loaded."""
    try:
        settings = load()
        host, _ = split_host_port(address(settings), env_name)
        require_token_for(host, getattr(settings, "token", None), what)
        from kernel.home_safety import private_umask, protect_home

        home = getattr(settings, "home", None)
        if isinstance(home, Path):
            protect_home(home)
        elif getattr(settings, "token", "") is None:
            # A service that keeps no data (embedding) still writes the internal token into
            # MNEMEX_HOME: that home is checked like the others' first (another user's is refused).
            # Its data is not its to tighten, so the folder alone is checked, not walked.
            protect_home(Settings.from_env().home, fix_modes=False)
        else:
            private_umask()  # MNEMEX_TOKEN set: this process never opens the home
        settings = with_internal_token(settings, home if isinstance(home, Path) else None)
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
    # MNEMEX_KG_CONTEXT=0: get-context asks the knowledge graph nothing (no routing, facts or lessons).
    kg_context: bool = True
    memory_shards: tuple[str, ...] = ()  # empty: the one memory_addr
    kg_shards: tuple[str, ...] = ()
    shard: Shard | None = None
    user_tokens_file: Path | None = None
    # MNEMEX_ALLOWED_HOSTS: host names (beyond loopback) the gateway answers to; see gateway/web_guard.py.
    allowed_hosts: tuple[str, ...] = ()

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
            kg_context=env.get("MNEMEX_KG_CONTEXT", "1").strip().lower() not in ("0", "false", "no", "off"),
            memory_shards=_shard_addresses(env, "MNEMEX_MEMORY_SHARDS"),
            kg_shards=_shard_addresses(env, "MNEMEX_KG_SHARDS"),
            shard=_shard(env),
            user_tokens_file=Path(env["MNEMEX_USER_TOKENS"]).expanduser() if env.get("MNEMEX_USER_TOKENS") else None,
            allowed_hosts=_allowed_hosts(env.get("MNEMEX_ALLOWED_HOSTS", "")),
        )

    def shards_of(self, service: str) -> tuple[str, ...]:
        """The addresses of ``service``'s shards in shard order (one, its address, when unsharded)."""
        listed = {"memory": self.memory_shards, "kg": self.kg_shards}.get(service, ())
        return listed or (self.addr_of(service),)

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
