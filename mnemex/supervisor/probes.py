"""Health probes: grpc.health.v1 Check for the services, GET /api/health for the gateway.

A probe answers "is this process up and serving?" quickly and never raises.
gRPC channels are cached per address and configured to reconnect fast, so a
service that has just started is seen within ~100 ms rather than after the
channel's default one-second reconnect backoff.
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kernel.config import split_host_port
from kernel.json_values import JSONValue, parse_value
from kernel.store_health import HEALTH_PROBLEM_KEY
from mnemex.supervisor.specs import HEALTH_PATH, ServiceSpec

_FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
]


def _connect_host(address: str) -> tuple[str, int]:
    host, port = split_host_port(address, "address")
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return host, port


def port_accepts(address: str, timeout: float = 0.3) -> bool:
    """True when something accepts TCP connections at ``address``."""
    try:
        host, port = _connect_host(address)
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def http_url(address: str, path: str = HEALTH_PATH) -> str:
    host, port = _connect_host(address)
    return f"http://{host}:{port}{path}"


def http_get_json(url: str, timeout: float, token: str | None = None) -> tuple[int | None, JSONValue]:
    """(status, parsed body) or (None, error text) when nothing answered."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (OSError, ValueError) as exc:
        return None, str(exc)
    try:
        return status, parse_value(raw or b"null")
    except ValueError:
        return status, raw.decode("utf-8", "replace")


class Prober:
    """Probes supervised processes; holds one cached gRPC channel per address."""

    def __init__(self) -> None:
        self._channels: dict[str, grpc.Channel] = {}

    def _channel(self, address: str) -> grpc.Channel:
        chan = self._channels.get(address)
        if chan is None:
            host, port = _connect_host(address)
            chan = grpc.insecure_channel(f"{host}:{port}", options=_FAST_RECONNECT)
            self._channels[address] = chan
        return chan

    def grpc_status(self, address: str, service: str = "", timeout: float = 0.5) -> str:
        """``SERVING``, ``NOT_SERVING``, ... or ``DOWN`` when the call failed."""
        return self.grpc_check(address, service, timeout)[0]

    def grpc_check(self, address: str, service: str = "", timeout: float = 0.5) -> tuple[str, str | None]:
        """(status, what is broken): a NOT_SERVING answer names its broken store (``HEALTH_PROBLEM_KEY``)."""
        if not port_accepts(address, timeout=min(timeout, 0.3)):
            return "DOWN", None
        stub = health_pb2_grpc.HealthStub(self._channel(address))
        try:
            reply, call = stub.Check.with_call(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError:
            return "DOWN", None
        problem = next((str(v) for k, v in call.trailing_metadata() or () if k == HEALTH_PROBLEM_KEY), None)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)), problem

    def check(self, spec: ServiceSpec, timeout: float = 0.5, strict: bool = False) -> tuple[bool, str | None]:
        """(serving?, what is broken or None). For the gateway: any HTTP answer, or with ``strict`` a 200."""
        if spec.kind == "grpc":
            status, problem = self.grpc_check(spec.address, "", timeout)
            return status == "SERVING", problem
        code, _ = http_get_json(http_url(spec.address), timeout)
        return (code == 200 if strict else code is not None), None

    def healthy(self, spec: ServiceSpec, timeout: float = 0.5, strict: bool = False) -> bool:
        """Serving? For the gateway: any HTTP answer, or with ``strict`` a 200 (all backends serve)."""
        return self.check(spec, timeout, strict)[0]

    def close(self) -> None:
        for chan in self._channels.values():
            chan.close()
        self._channels.clear()
