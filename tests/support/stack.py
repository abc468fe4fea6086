"""Start the four real mnemex processes on free loopback ports (for e2e tests)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import JSONObject, parse_object, str_at

ROOT = Path(__file__).resolve().parents[2]
SERVICE_MODULES = {
    "embedding": "services.embedding",
    "memory": "services.memory",
    "kg": "services.kg",
    "gateway": "gateway",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Stack:
    home: Path
    env: dict[str, str]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def gateway_url(self) -> str:
        return f"http://{self.env['MNEMEX_GATEWAY_ADDR']}"

    def addr(self, name: str) -> str:
        return self.env[f"MNEMEX_{name.upper()}_ADDR"]

    def start(self, name: str) -> None:
        log = open(self.home / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        self.procs[name] = subprocess.Popen(
            [sys.executable, "-m", SERVICE_MODULES[name]],
            env=self.env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    # Gateway replies are JSON objects (a reply that is not one raises ValueError), read with kernel.json_values.
    def post(self, path: str, body: Mapping[str, object], timeout: float = 30.0) -> JSONObject:
        request = urllib.request.Request(
            self.gateway_url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return parse_object(reply.read())

    def get(self, path: str, timeout: float = 10.0) -> JSONObject:
        with urllib.request.urlopen(self.gateway_url + path, timeout=timeout) as reply:
            return parse_object(reply.read())

    def wait_healthy(self, timeout: float = 90.0) -> JSONObject:
        end = time.monotonic() + timeout
        last: object = None
        while time.monotonic() < end:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode}: {self.log_tail(name)}")
            try:
                health = self.get("/api/health", timeout=2)
                if str_at(health, "status") == "ok":
                    return health
                last = health
            except OSError as exc:
                last = exc
            time.sleep(0.2)
        raise TimeoutError(f"stack not healthy after {timeout}s: {last}")

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.home / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        stop_all(self.procs.values())


def stop_all(procs: Iterable[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every process still running, then wait for each (SIGKILL after 15 s)."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def make_stack(home: Path, **extra_env: str) -> Stack:
    env = dict(os.environ)
    env.update(
        MNEMEX_HOME=str(home),
        MNEMEX_USER="tester",
        MNEMEX_GATEWAY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_EMBEDDING_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_MEMORY_ADDR=f"127.0.0.1:{free_port()}",
        MNEMEX_KG_ADDR=f"127.0.0.1:{free_port()}",
        PYTHONUNBUFFERED="1",
    )
    env.pop("MNEMEX_TOKEN", None)
    env.update(extra_env)
    return Stack(home=home, env=env)
