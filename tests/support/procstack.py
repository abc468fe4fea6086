"""The four real processes (``tests.support.stack``) plus what fault tests need:
SIGKILL one, restart it on the same port, wait for it, read its listening sockets.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kernel.json_values import JSONValue, parse_value
from tests.support.stack import Stack, make_stack

NAMES = ("embedding", "memory", "kg", "gateway")
FAST_RECONNECT = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 300)]


def start_stack(home: Path, **extra_env: str) -> Stack:
    home.mkdir(parents=True, exist_ok=True)
    env = {"MNEMEX_GET_CONTEXT_BUDGET_MS": "5000", "MNEMEX_MEMORY_MAINTENANCE_INTERVAL_S": "0", **extra_env}
    stack = make_stack(home, **env)
    for name in NAMES:
        stack.start(name)
    try:
        stack.wait_healthy(180)
    except BaseException:
        tails = {n: stack.log_tail(n, 1500) for n in NAMES}
        stack.stop()
        raise RuntimeError(f"stack did not start: {tails}") from None
    return stack


def kill9(stack: Stack, name: str) -> int:
    proc = stack.procs[name]
    pid = proc.pid
    os.kill(pid, signal.SIGKILL)
    proc.wait(10)
    return pid


def grpc_serving(address: str, timeout: float = 0.5) -> bool:
    with grpc.insecure_channel(address, options=FAST_RECONNECT) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def gateway_answers(stack: Stack, timeout: float = 0.5) -> bool:
    try:
        with urllib.request.urlopen(stack.gateway_url + "/api/health", timeout=timeout):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def wait_up(stack: Stack, name: str, timeout: float = 120.0) -> float:
    """Seconds until ``name`` itself serves (probed directly, not through the gateway)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        proc = stack.procs[name]
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}: {stack.log_tail(name, 1500)}")
        ok = gateway_answers(stack) if name == "gateway" else grpc_serving(stack.addr(name))
        if ok:
            return time.monotonic() - started
        time.sleep(0.05)
    raise TimeoutError(f"{name} not serving after {timeout} s: {stack.log_tail(name, 1500)}")


def restart(stack: Stack, name: str, timeout: float = 120.0) -> float:
    stack.start(name)
    return wait_up(stack, name, timeout)


def post(stack: Stack, path: str, body: Mapping[str, object], timeout: float = 30.0) -> tuple[int, JSONValue]:
    """POST without raising on HTTP errors: (status, parsed JSON or text)."""
    request = urllib.request.Request(
        stack.gateway_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    try:
        return status, parse_value(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def listening_addresses(pid: int) -> list[tuple[str, int]]:
    """(ip, port) of every listening TCP socket the process owns (Linux /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table, width in (("tcp", 8), ("tcp6", 32)):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state != "0A" or inode not in inodes:  # 0A = LISTEN
                continue
            hex_ip, hex_port = local.split(":")
            found.append((_ip(hex_ip, width), int(hex_port, 16)))
    return found


def _ip(hex_ip: str, width: int) -> str:
    import ipaddress

    raw = bytes.fromhex(hex_ip)
    if width == 8:
        return str(ipaddress.IPv4Address(raw[::-1]))
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    return str(ipaddress.IPv6Address(words))
