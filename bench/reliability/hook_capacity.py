"""The hook path keeps its own room (issue 36, item 6): streams, slow bodies and busy MCP clients.

One real stack (the four processes). Three attacks, all from loopback (which
the per-address ceiling exempts, so nothing but the gateway's own admission
stands between them and the hooks):

- **held streams and slow bodies**: 300 ``GET /mcp`` event-stream requests
  held open, plus 300 request bodies trickled a byte at a time (half to
  ``/mcp``, half to the hook path's own ``/api/hooks/stop``), each reopened as
  soon as the gateway closes it, so the pressure stays steady. Meanwhile
  get-context is probed four times a second; ``failed`` counts probes that were
  not answered 200 plus one when their p95 passes 200 ms.
- **busy MCP clients**: 100 MCP clients call ``search_memory`` in a loop (over
  plain HTTP JSON-RPC, as a client in stateless mode does) while get-context is
  probed; ``failed`` counts probes not answered 200 or slower than the hooks'
  give-up (1.8 s), plus one when p99 is not under it.
- **a 50 MB chunked body to /mcp**: answered 413, not 500.

Before the fix, 256 held streams turned 52 of 58 probes into 503s and 100 MCP
clients pushed get-context's max to 3.0 s.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import multiprocessing.queues
import multiprocessing.synchronize
import os
import queue
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

import httpx

from bench.reliability import Row

FAMILY = "hook capacity"
P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
Stop = multiprocessing.synchronize.Event  # set by the probe when the attacker should stop
HELD_STREAMS = 300
SLOW_BODIES = 300
MCP_CLIENTS = 100
PROBE_S = 20.0
PROBE_EVERY_S = 0.25
GET_CONTEXT_P95_MS = 200.0
HOOK_GIVE_UP_MS = 1800.0
PROJECT = "capacity-probe"
REOPEN_AFTER_S = 1.0  # an attacker reopens what the gateway closed, a second later: steady pressure, not a flood


@dataclass
class Pressure:
    """What an attack kept up: connections opened, closed by the server, and the most held at once."""

    opened: int = 0
    closed_by_server: int = 0
    held: int = 0
    most_held: int = 0
    statuses: dict[str, int] = field(default_factory=dict)

    def hold(self) -> None:
        self.opened += 1
        self.held += 1
        self.most_held = max(self.most_held, self.held)

    def release(self, by_server: bool) -> None:
        self.held -= 1
        self.closed_by_server += int(by_server)

    def status(self, line: bytes) -> None:
        parts = line.split()
        key = parts[1].decode("ascii", "replace") if len(parts) > 1 else "closed"
        self.statuses[key] = self.statuses.get(key, 0) + 1


def _host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


Attempt = Callable[[asyncio.StreamReader, asyncio.StreamWriter, str, Pressure, asyncio.Event], Awaitable[bool]]


async def _keep_reopening(url: str, attempt: Attempt, pressure: Pressure, stop: asyncio.Event) -> None:
    """Open a connection and run ``attempt`` on it (True: the server closed it), then again a moment after
    it ends, until ``stop``: the pressure stays steady however the gateway answers."""
    host, port = _host_port(url)
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            await asyncio.sleep(0.2)
            continue
        pressure.hold()
        by_server = False
        try:
            by_server = await attempt(reader, writer, f"{host}:{port}", pressure, stop)
        except OSError:
            by_server = True
        finally:
            pressure.release(by_server)
            writer.close()
        await asyncio.sleep(REOPEN_AFTER_S)


def held_stream(headers: dict[str, str]) -> Attempt:
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())

    async def attempt(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, pressure: Pressure, stop: asyncio.Event
    ) -> bool:
        writer.write(f"GET /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
        await writer.drain()
        first = await _until_stop(reader.readline(), stop)
        if first is None:
            return False
        pressure.status(first)
        while not stop.is_set():  # hold it: read whatever comes until the server closes
            chunk = await _until_stop(reader.read(4096), stop)
            if chunk is None:
                return False
            if not chunk:
                return True
        return False

    return attempt


def slow_body(path: str, headers: dict[str, str]) -> Attempt:
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())

    async def attempt(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, pressure: Pressure, stop: asyncio.Event
    ) -> bool:
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n{extra}\r\n{{".encode()
        )
        await writer.drain()
        while not stop.is_set():
            got = await _until_stop(reader.read(4096), stop, timeout=0.5)
            if got == b"":
                return True
            if got:
                pressure.status(got.split(b"\r\n", 1)[0])
                return True
            writer.write(b" ")  # one byte every half second: a body that never ends
            await writer.drain()
        return False

    return attempt


async def _until_stop(awaitable: Awaitable[T], stop: asyncio.Event, timeout: float | None = None) -> T | None:
    """The awaitable's result; ``None`` when ``stop`` is set first or ``timeout`` passes."""
    task = asyncio.ensure_future(awaitable)
    stopper = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({task, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    stopper.cancel()
    if task in done:
        return task.result()
    task.cancel()
    return None


@contextmanager
def in_another_process(
    attack: Callable[Concatenate[Stop, multiprocessing.queues.Queue[R], P], None], *args: P.args, **kwargs: P.kwargs
) -> Iterator[list[R]]:
    """Run ``attack(stop, report, *args)`` in a process of its own while the block runs (so the attacker's
    own CPU work never sits in the probe's interpreter); the list receives what it reported when it ended."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    reports: multiprocessing.queues.Queue[R] = context.Queue()
    process = context.Process(target=attack, args=(stop, reports, *args), kwargs=kwargs, daemon=True)
    process.start()
    got: list[R] = []
    try:
        yield got
    finally:
        stop.set()
        try:
            got.append(reports.get(timeout=60))
        except queue.Empty:
            pass
        process.join(30)
        if process.is_alive():
            process.kill()


def streams_and_bodies(
    stop: Stop,
    report: multiprocessing.queues.Queue[tuple[Pressure, Pressure]],
    url: str,
    headers: dict[str, str],
    streams: int,
    bodies: int,
) -> None:
    """The attack process: held streams and slow bodies until ``stop``; reports both ``Pressure``s."""
    pressure = (Pressure(), Pressure())

    async def attack() -> None:
        ended = asyncio.Event()
        streaming = held_stream(headers)
        tasks = [asyncio.ensure_future(_keep_reopening(url, streaming, pressure[0], ended)) for _ in range(streams)]
        for number in range(bodies):  # opened at a steady pace, as the probe did
            path = "/mcp" if number % 2 else "/api/hooks/stop"
            tasks.append(asyncio.ensure_future(_keep_reopening(url, slow_body(path, headers), pressure[1], ended)))
            await asyncio.sleep(0.01)
        while not stop.is_set():
            await asyncio.sleep(0.2)
        ended.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(attack())
    report.put(pressure)


def probe_get_context(
    url: str, headers: dict[str, str], seconds: float, every_s: float = PROBE_EVERY_S
) -> tuple[list[int], list[float]]:
    """get-context as the hook sends it, every ``every_s``: (statuses, latencies in ms)."""
    statuses: list[int] = []
    latencies: list[float] = []
    body = {"session_id": "capacity-probe", "prompt": "why does the deploy script fail", "cwd": f"/tmp/{PROJECT}"}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            with httpx.Client(timeout=10, headers=headers) as client:  # a new connection, as each hook run makes
                status = client.post(f"{url}/api/hooks/get-context", json=body).status_code
        except httpx.HTTPError:
            status = 0
        latencies.append((time.monotonic() - started) * 1000)
        statuses.append(status)
        time.sleep(max(0.0, every_s - (time.monotonic() - started)))
    return statuses, latencies


def quantile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def mcp_clients(
    stop: Stop, report: multiprocessing.queues.Queue[list[int]], url: str, headers: dict[str, str], clients: int
) -> None:
    """The attack process: ``clients`` MCP clients calling ``search_memory`` back to back until ``stop``;
    reports [answered, not answered]."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_memory", "arguments": {"query": "deploy script fails on staging", "limit": 5}},
    }
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **headers}
    counts = [0, 0]

    async def client_loop() -> None:
        async with httpx.AsyncClient(timeout=60, headers=sent) as client:
            while not stop.is_set():
                try:
                    reply = await client.post(f"{url}/mcp", content=json.dumps(request))
                    counts[0 if reply.status_code == 200 else 1] += 1
                except httpx.HTTPError:
                    counts[1] += 1

    async def attack() -> None:
        await asyncio.gather(*(client_loop() for _ in range(clients)))

    asyncio.run(attack())
    report.put(counts)


def busy_mcp_clients(url: str, headers: dict[str, str], clients: int, seconds: float) -> Row:
    with in_another_process(mcp_clients, url, headers, clients) as reported:
        time.sleep(3.0)  # every client busy before the first probe
        statuses, latencies = probe_get_context(url, headers, seconds)
    counts = reported[0] if reported else [0, 0]
    slow = sum(1 for ms in latencies if ms >= HOOK_GIVE_UP_MS)
    bad = sum(1 for s in statuses if s != 200)
    p99 = quantile(latencies, 0.99)
    return Row(
        FAMILY,
        f"{clients} MCP clients searching -> get-context p99 under the hooks' 1.8 s give-up",
        len(statuses),
        bad + slow + int(p99 >= HOOK_GIVE_UP_MS) + int(counts[1] > 0),
        note=(
            f"get-context p50 {quantile(latencies, 0.5):.0f} / p95 {quantile(latencies, 0.95):.0f} / p99 {p99:.0f}"
            f" / max {max(latencies):.0f} ms; MCP calls: {counts[0]} answered, {counts[1]} not (each must be);"
            f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        ),
    )


def held_streams_row(url: str, headers: dict[str, str]) -> Row:
    with in_another_process(streams_and_bodies, url, headers, HELD_STREAMS, SLOW_BODIES) as reported:
        time.sleep(5.0)  # every body opened, every stream requested
        statuses, latencies = probe_get_context(url, headers, PROBE_S)
    streams, bodies = reported[0] if reported else (Pressure(), Pressure())
    p95 = quantile(latencies, 0.95)
    bad = sum(1 for s in statuses if s != 200)
    return Row(
        FAMILY,
        f"{HELD_STREAMS} held GET /mcp streams + {SLOW_BODIES} slow bodies (loopback) -> get-context 200, p95 <= 200 ms",
        len(statuses),
        bad + int(p95 > GET_CONTEXT_P95_MS),
        note=(
            f"{len(statuses) - bad}/{len(statuses)} answered 200"
            + (f" (others: {dict(Counter(s for s in statuses if s != 200))})" if bad else "")
            + f", p50 {quantile(latencies, 0.5):.0f} / p95 {p95:.0f}"
            f" / max {max(latencies):.0f} ms; streams: {streams.opened} opened, statuses {streams.statuses};"
            f" slow bodies: {bodies.opened} opened, {bodies.closed_by_server} closed by the gateway,"
            f" at most {bodies.most_held} held at once, statuses {bodies.statuses}"
        ),
    )


def chunked_mcp_row(url: str, headers: dict[str, str]) -> Row:
    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_memory", "x": "'
        for _ in range(50):
            yield b"a" * (1024 * 1024)
        yield b'"}}'

    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **headers}
    with httpx.Client(timeout=60, headers=sent) as client:
        try:
            status = client.post(f"{url}/mcp", content=chunks()).status_code
        except httpx.HTTPError as exc:
            status = 0
            note = f"{type(exc).__name__}"
        else:
            note = f"status {status}"
    return Row(FAMILY, "50 MB chunked body to /mcp -> 413", 1, int(status != 413), note=note)


def _seed(url: str, headers: dict[str, str]) -> None:
    with httpx.Client(timeout=60, headers=headers) as client:
        for n in range(6):
            client.post(
                f"{url}/api/hooks/stop",
                json={
                    "session_id": "capacity-seed",
                    "cwd": f"/tmp/{PROJECT}",
                    "user_text": f"the deploy script fails on staging, attempt {n}",
                    "assistant_text": f"The deploy failed because the staging key rotated; rerun with --refresh ({n}).",
                    "turn_key": f"seed-{n}",
                },
            )


def run(workdir: Path) -> list[Row]:
    from tests.support.procstack import start_stack

    stack = start_stack(workdir / "home")
    headers: dict[str, str] = {}
    try:
        url = stack.gateway_url
        _seed(url, headers)
        rows = [held_streams_row(url, headers)]
        rows.append(busy_mcp_clients(url, headers, MCP_CLIENTS, PROBE_S))
        rows.append(chunked_mcp_row(url, headers))
    finally:
        stack.stop()
    return rows
