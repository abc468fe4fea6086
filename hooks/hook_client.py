"""POST to the gateway from a hook: fast, bounded, and failing open.

Standard library only, and not even ``http.client`` (it pulls in ``email``
and ``ssl``, ~30 ms) or ``socket`` (``enum``, ~9 ms): a loopback HTTP/1.1
POST over the C-level ``_socket``.

- ``Circuit``: after ``MNEMEX_HOOK_FAILURES`` (3) timeouts or server errors in a row (a refused
  connection costs ~1 ms and does not count) the hook
  skips the gateway for ``MNEMEX_HOOK_COOLDOWN`` seconds (30, doubling up to
  5 minutes while it stays down), so a dead stack costs each prompt only the
  interpreter start. State is one small JSON file.
- ``maybe_start_stack``: when the gateway refuses connections, spawn the
  stack's start command detached (from the user's home directory), at most
  once per ``MNEMEX_HOOK_START_INTERVAL`` seconds (60), guarded by a lock
  file. ``MNEMEX_HOOK_AUTOSTART=0`` turns it off; ``MNEMEX_HOOK_START_CMD``
  replaces the command.
- ``apply_connection`` (run on import): ``mnemex init`` copies these scripts
  into ``<mnemex home>/client/hooks/`` and writes ``../connection.json``
  beside them, recording the stack's ``MNEMEX_*`` settings (home, ports,
  token) and its start command. Clients start hooks with their own
  environment, so the file is how a hook reaches the stack ``init`` was run
  for. Same rule as ``kernel.connection``: it applies only when
  ``MNEMEX_HOME`` is unset, and a variable already set still wins.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

import hook_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hook_json import JSONObject, JSONValue

DEFAULT_URL = "http://127.0.0.1:27300"
MAX_RESPONSE_BYTES = 1024 * 1024
CONNECTION_FILE = "connection.json"
NOT_RECORDED = ("MNEMEX_CONNECTION_FILE", "MNEMEX_PROJECT_DIR", "MNEMEX_LOG_LEVEL")


def connection_path(env: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """MNEMEX_CONNECTION_FILE, else ``connection.json`` in the folder above this script's (``<home>/client``)."""
    return env.get("MNEMEX_CONNECTION_FILE") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), CONNECTION_FILE
    )


def apply_connection(env: dict[str, str] | os._Environ[str] = os.environ, path: str | None = None) -> list[str]:
    """Fill unset MNEMEX_* variables of ``env`` from the connection file; return its start command ([] if none)."""
    if env.get("MNEMEX_HOME"):
        return []  # an environment that names its own stack is never mixed with the file
    try:
        with open(path or connection_path(env), encoding="utf-8") as handle:
            data: JSONValue = hook_json.loads(handle.read(65536))
    except (OSError, ValueError):
        return []  # no file (a checkout run, or never initialised), or a broken one: the defaults apply
    if not isinstance(data, dict):
        return []
    recorded = data.get("env")
    if isinstance(recorded, dict):
        for key, value in recorded.items():
            if isinstance(key, str) and key.startswith("MNEMEX_") and key not in NOT_RECORDED and not env.get(key):
                env[key] = str(value)
    command = data.get("start_command")
    return [str(part) for part in command] if isinstance(command, list) else []


START_COMMAND = apply_connection()


class GatewayDown(Exception):
    """Refused, timed out, or answered with a server error."""

    def __init__(self, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


def gateway_address(env: dict[str, str] | os._Environ[str] = os.environ) -> tuple[str, int, str]:
    """(host, port, scheme) from MNEMEX_GATEWAY_URL, MNEMEX_GATEWAY_ADDR or MNEMEX_GATEWAY_PORT, else the default."""
    url = env.get("MNEMEX_GATEWAY_URL") or ""
    if not url and env.get("MNEMEX_GATEWAY_ADDR"):
        url = "http://" + env["MNEMEX_GATEWAY_ADDR"].replace("0.0.0.0", "127.0.0.1")
    if not url:
        port = env.get("MNEMEX_GATEWAY_PORT") or "27300"
        url = f"http://127.0.0.1:{port}"
    scheme, _, rest = url.partition("://")
    hostport = rest.split("/", 1)[0]
    host, sep, port_text = hostport.rpartition(":")
    if not sep or not port_text.isdigit():
        host, port_text = hostport, ("443" if scheme == "https" else "80")
    return host.strip("[]") or "127.0.0.1", int(port_text), scheme


def state_dir(env: dict[str, str] | os._Environ[str] = os.environ) -> str:
    home = env.get("MNEMEX_HOME")
    if home:
        return os.path.join(home, "run")
    base = env.get("TMPDIR") or env.get("TEMP") or ("/tmp" if os.name != "nt" else ".")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(base, f"mnemex-hooks-{uid}")


def _decode_chunked(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2 :]
    return bytes(out)


def _connect(host: str, port: int, timeout: float) -> _socket.socket:
    last: OSError = OSError(f"cannot resolve {host}")
    for family, kind, proto, _name, address in _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM):
        sock = _socket.socket(family, kind, proto)
        sock.settimeout(timeout)
        try:
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last


def post_json(
    host: str, port: int, path: str, payload: JSONObject, deadline: float, token: str = ""
) -> tuple[int, JSONValue]:
    """One POST with Connection: close; raises GatewayDown on any transport failure."""
    body = hook_json.dumps(payload).encode("utf-8")
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nUser-Agent: mnemex-hook\r\n"
    )
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise GatewayDown("no time left")
    try:
        sock = _connect(host, port, remaining)
    except ConnectionRefusedError as exc:
        raise GatewayDown(f"refused: {exc}", refused=True) from None
    except OSError as exc:
        raise GatewayDown(f"connect: {exc}") from None
    chunks: list[bytes] = []
    try:
        sock.sendall(head.encode("latin-1") + b"\r\n" + body)
        received = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise GatewayDown("timed out")
            sock.settimeout(remaining)
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            received += len(chunk)
            if received > MAX_RESPONSE_BYTES:
                break
    except OSError as exc:
        raise GatewayDown(f"io: {exc}") from None
    finally:
        sock.close()
    raw = b"".join(chunks)
    header_blob, _, content = raw.partition(b"\r\n\r\n")
    lines = header_blob.split(b"\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        raise GatewayDown("malformed response") from None
    if any(line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower() for line in lines[1:]):
        content = _decode_chunked(content)
    if status >= 500:
        raise GatewayDown(f"status {status}")
    try:
        return status, hook_json.loads(content.decode("utf-8")) if content else None
    except ValueError:
        return status, None


class Circuit:
    def __init__(self, path: str, threshold: int = 3, cooldown: float = 30.0, max_cooldown: float = 300.0) -> None:
        self.path = path
        self.threshold = threshold
        self.cooldown = cooldown
        self.max_cooldown = max_cooldown

    def _load(self) -> dict[str, float]:
        """State file: one line "open_until failures trips" (no json on the fast path)."""
        try:
            with open(self.path, encoding="ascii") as handle:
                fields = handle.read(200).split()
            return {"open_until": float(fields[0]), "failures": float(fields[1]), "trips": float(fields[2])}
        except (OSError, ValueError, IndexError):
            return {}

    def _save(self, data: dict[str, float]) -> None:
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = f"{self.path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="ascii") as handle:
                handle.write(
                    f"{data.get('open_until', 0.0)} {int(data.get('failures', 0))} {int(data.get('trips', 0))}\n"
                )
            os.replace(tmp, self.path)
        except OSError:
            pass

    def is_open(self, now: float | None = None) -> bool:
        return self._load().get("open_until", 0.0) > (time.time() if now is None else now)

    def record_success(self) -> None:
        if os.path.exists(self.path):
            try:
                os.remove(self.path)
            except OSError:
                pass

    def record_failure(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        data = self._load()
        failures = int(data.get("failures", 0)) + 1
        data["failures"] = failures
        if failures >= self.threshold:
            trips = int(data.get("trips", 0))
            data["open_until"] = now + min(self.cooldown * (2**trips), self.max_cooldown)
            data["trips"] = trips + 1
            data["failures"] = 0
        self._save(data)


def _start_directory(env: dict[str, str] | os._Environ[str]) -> str:
    """The user's home: it exists outside any checkout, so the stack never starts in a deleted folder."""
    home = env.get("HOME") or os.path.expanduser("~")
    return home if os.path.isdir(home) else "/"


def start_command(env: dict[str, str] | os._Environ[str] = os.environ) -> list[str]:
    """MNEMEX_HOOK_START_CMD, else the connection file's start command, else ``<python> -m mnemex.cli up --detach``."""
    custom = env.get("MNEMEX_HOOK_START_CMD")
    if custom:
        import shlex

        return shlex.split(custom)
    if START_COMMAND and not env.get("MNEMEX_PYTHON"):
        return list(START_COMMAND)
    return [env.get("MNEMEX_PYTHON") or sys.executable, "-m", "mnemex.cli", "up", "--detach"]


def maybe_start_stack(directory: str, env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Spawn the stack in the background unless disabled or done recently. Never blocks."""
    if env.get("MNEMEX_HOOK_AUTOSTART", "1").lower() in ("0", "false", "no", "off"):
        return False
    interval = float(env.get("MNEMEX_HOOK_START_INTERVAL") or 60)
    lock = os.path.join(directory, "autostart.lock")
    try:
        os.makedirs(directory, exist_ok=True)
        try:
            if time.time() - os.path.getmtime(lock) < interval:
                return False
            os.remove(lock)
        except FileNotFoundError:
            pass
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
    except OSError:
        return False  # another hook won the race, or the dir is not writable
    import subprocess

    try:
        subprocess.Popen(
            start_command(env),
            cwd=_start_directory(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True


OPTOUT_FILE = "optout.json"  # written by ``mnemex projects --exclude`` / ``mnemex pause`` (kernel.optout)
MARKER_FILE = ".mnemex-ignore"
MAX_MARKER_LEVELS = 40


def optout_path(env: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """``<mnemex home>/client/optout.json``: beside the connection file (or under MNEMEX_HOME for a checkout run)."""
    if env.get("MNEMEX_HOME") and not env.get("MNEMEX_CONNECTION_FILE"):
        return os.path.join(env["MNEMEX_HOME"], "client", OPTOUT_FILE)
    return os.path.join(os.path.dirname(connection_path(env)), OPTOUT_FILE)


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _marker_above(cwd: str) -> bool:
    current = os.path.abspath(cwd)
    for _ in range(MAX_MARKER_LEVELS):
        if os.path.isfile(os.path.join(current, MARKER_FILE)):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent
    return False


def opted_out(cwd: str, session_id: str, env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """True when this session is paused or ``cwd`` is in an excluded project: local files only, no network."""
    try:
        with open(optout_path(env), encoding="utf-8") as handle:
            data: JSONValue = hook_json.loads(handle.read(262144))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict):
        if data.get("paused") is True:
            return True
        sessions = data.get("paused_sessions")
        if session_id and isinstance(sessions, list) and session_id in sessions:
            return True
        excluded = data.get("excluded")
        if cwd and isinstance(excluded, list):
            real, plain = os.path.realpath(cwd), os.path.abspath(cwd)
            for directory in excluded:
                if isinstance(directory, str) and (_within(real, directory) or _within(plain, directory)):
                    return True
    return bool(cwd) and _marker_above(cwd)


def missing_install(command: list[str]) -> str:
    """The interpreter of the recorded start command when it no longer exists (mnemex was uninstalled), else ''."""
    if command and os.path.isabs(command[0]) and not os.path.exists(command[0]):
        return command[0]
    return ""


def notice_missing_install(directory: str, command: list[str], write: Callable[[str], object] | None = None) -> bool:
    """Say once (per client folder) on stderr that the install is gone, with the clean-up command."""
    gone = missing_install(command)
    if not gone:
        return False
    flag = os.path.join(directory, "install-gone-noticed")
    try:
        os.makedirs(directory, exist_ok=True)
        fd = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except OSError:
        return False  # said before (or nowhere to remember it): stay quiet
    message = (
        f"mnemex: the installation these hooks belong to is gone ({gone} is missing). "
        "To remove its hooks and MCP entries, reinstall mnemex the way you installed it and run: "
        "mnemex uninstall (or run: mnemex init to reconnect them to the new install).\n"
    )
    (write or sys.stderr.write)(message)
    return True
