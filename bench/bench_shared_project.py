"""A shared project under load: N clients send stops (store an exchange) to ONE project at once.

    .venv/bin/python -m bench.bench_shared_project [--clients 16] [--seconds 60] [--url URL]

Without --url it starts the four real processes (``tests/support/stack.py``)
on free loopback ports in a temporary MNEMEX_HOME. Every client is a thread
with its own keep-alive HTTP connection (standard library, as the hooks use) and its own session; all of them work in the same
cwd, so every exchange lands in one project's working memory. Each stop
carries an exchange of three sentences drawn at random, so near-duplicate
refreshes are as rare as in real use. It prints stop
p50/p95/p99, throughput, errors, and checks afterwards that every
acknowledged exchange can be read back (``lost``). A stop is acknowledged
once its exchange is journaled (``services/memory/usecases/exchange_intake.py``):
under this load some are stored after their reply, so the read-back retries
until all are found or none appeared for ``SETTLE_S``, and prints how long
after the load the last one became readable.

Before/after: run this same file from a worktree of the previous commit, so
the stack runs that commit's services::

    git worktree add ../mnemex-before HEAD~1
    cp bench/bench_shared_project.py ../mnemex-before/bench/
    (cd ../mnemex-before && ../main/.venv/bin/python -m bench.bench_shared_project)
    git worktree remove ../mnemex-before

Exit status 1 on any error or lost exchange.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from kernel import offline

SETTLE_S = 60.0  # the read-back gives up on exchanges when none appeared for this long

TOPICS = [
    "the billing service deploy",
    "the flaky integration test for uploads",
    "the postgres connection pool size",
    "the GraphQL schema for invoices",
    "the nightly search reindex job",
    "the S3 retry policy",
    "the feature flag for the new checkout",
    "the alembic migration that adds tenants",
    "the Grafana dashboard for queue depth",
    "the pnpm workspace layout",
]
SENTENCES = [
    "The retry now lives in the worker, so the request handler returns at once.",
    "I read the stack trace in Loki and found a missing index on the orders table.",
    "The batch size went down to 200 rows, which keeps each transaction short.",
    "Pinning the HTTP client to 3.9 removed the intermittent TLS handshake errors.",
    "The timeout is 30 seconds now, long enough for the slowest upstream call.",
    "Caching the tenant lookup for five minutes cut the database load in half.",
    "The migration adds a nullable column first and backfills it in a second step.",
    "Helm values for staging moved into their own file under deploy/staging.",
    "A fixture now starts the postgres container once per test session.",
    "Feature flags are evaluated on the server; the browser only sees the result.",
    "The reindex job runs at 02:00 UTC and writes its progress to Redis.",
    "Queue depth alerts fire above 5,000 messages for ten minutes.",
    "pnpm install must run at the repository root, never inside a package.",
    "The schema generator ignores fields marked deprecated in the SDL.",
    "Uploads larger than 100 MB go through the multipart endpoint instead.",
    "The connection pool holds 20 connections per pod, with a 5 second checkout wait.",
    "Secrets come from the external-secrets operator; nothing is committed.",
    "I renamed the misleading settings key and kept the old name as an alias.",
    "The flaky test depended on dictionary order; sorting the keys fixed it.",
    "Log lines now carry the request id, so one request can be followed end to end.",
    "The CLI prints JSON with --json, which the release script reads.",
    "A circuit breaker stops calls to the payment provider after five failures.",
    "The dashboard shows p95 latency per route instead of the average.",
    "The worker drains its queue before shutting down on SIGTERM.",
    "Invoices are rounded half-even, as the accounting team asked.",
    "The docker image is built in two stages and ships without compilers.",
    "Rate limits are per API key, 100 requests per minute by default.",
    "The cron schedule moved from the host into a Kubernetes CronJob.",
    "Tests for the importer use recorded fixtures instead of the live API.",
    "The service reads its config once at start and logs every value it used.",
    "Slow queries over 200 ms are logged with their plan.",
    "The mobile client retries with jitter so it does not stampede after an outage.",
]


def exchange(client: int, turn: int, rng: random.Random) -> tuple[str, str]:
    """A prompt and an answer of three sentences drawn at random: near-duplicates are rare, as in real use."""
    topic = rng.choice(TOPICS)
    prompt = f"what did we change in {topic}? (client {client}, turn {turn})"
    answer = " ".join(rng.sample(SENTENCES, 3)) + f" Ticket MX-{client:02d}{turn:05d} has the details."
    return prompt, answer


@dataclass
class SharedLoadReport:
    clients: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)  # exchange ids the gateway returned
    errors: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    visible_after_s: float = 0.0  # after the load ended, until the last acknowledged exchange could be read

    def quantile(self, q: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        if len(self.latencies_ms) == 1:
            return self.latencies_ms[0]
        return statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[int(q * 100) - 1]

    def summary(self) -> str:
        return (
            f"{self.clients} clients, one project, {self.seconds:.0f} s: {len(self.latencies_ms)} stops, "
            f"{len(self.latencies_ms) / self.seconds:.1f} stops/s; stop p50 {self.quantile(0.50):.0f} ms, "
            f"p95 {self.quantile(0.95):.0f} ms, p99 {self.quantile(0.99):.0f} ms; "
            f"errors {len(self.errors)}, lost {len(self.lost)} of {len(self.acknowledged)} acknowledged "
            f"(all readable {self.visible_after_s:.1f} s after the load); "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )


class _Http:
    """A keep-alive HTTP/1.1 client on the standard library (light, as the hooks are); reconnects when needed."""

    def __init__(self, url: str, headers: dict[str, str] | None, timeout: float = 30.0) -> None:
        parts = urlsplit(url)
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self._headers = {"Content-Type": "application/json", **(headers or {})}
        self._timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Mapping[str, object] | None = None) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
            try:
                payload = json.dumps(body).encode() if body is not None else None
                self._conn.request(method, path, body=payload, headers=self._headers)
                reply = self._conn.getresponse()
                return reply.status, reply.read()
            except (ConnectionError, http.client.HTTPException):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def run_shared_load(
    url: str, cwd: str, *, clients: int = 16, seconds: float = 60.0, headers: dict[str, str] | None = None
) -> SharedLoadReport:
    """``clients`` threads send stops to one project for ``seconds``; then every acknowledged id is read back."""
    report = SharedLoadReport(clients, seconds)
    lock = threading.Lock()
    start = threading.Barrier(clients)
    deadline_box: list[float] = []

    def client(number: int) -> None:
        rng = random.Random(number)
        session = f"shared-{number:02d}-{rng.getrandbits(32):08x}"
        http = _Http(url, headers)
        start.wait()
        if not deadline_box:
            deadline_box.append(time.monotonic() + seconds)
        turn = 0
        while time.monotonic() < deadline_box[0]:
            prompt, answer = exchange(number, turn, rng)
            body = {"session_id": session, "cwd": cwd, "user_text": prompt, "assistant_text": answer}
            began = time.perf_counter()
            try:
                status, raw = http.request("POST", "/api/hooks/stop", body)
            except OSError as exc:
                with lock:
                    report.errors.append(f"client {number}: {type(exc).__name__}: {exc}")
                continue
            took = (time.perf_counter() - began) * 1000
            exchange_id = json.loads(raw).get("exchange_id") if status == 200 else None
            with lock:
                if exchange_id:
                    report.latencies_ms.append(took)
                    report.acknowledged.append(exchange_id)
                else:
                    report.errors.append(f"client {number}: {status} {raw[:200]!r}")
            turn += 1
        http.close()

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report.seconds = max(time.monotonic() - began, 1e-6)
    report.lost = _read_back(url, cwd, report, headers)
    return report


def _read_back(url: str, cwd: str, report: SharedLoadReport, headers: dict[str, str] | None) -> list[str]:
    """Acknowledged ids that cannot be read back. A stop is acknowledged once journaled; an exchange
    still on its way from the intake journal is read again until none is left or none arrived for
    ``SETTLE_S`` (``report.visible_after_s``: how long after the load the last one appeared)."""
    reader = _Http(url, headers)
    missing = list(dict.fromkeys(report.acknowledged))
    ended = last_progress = time.monotonic()
    try:
        while missing:
            still = []
            for memory_id in missing:
                status, _ = reader.request("GET", f"/api/memories/{quote(memory_id)}?{urlencode({'cwd': cwd})}")
                if status != 200:
                    still.append(f"{memory_id}: {status}")
            if len(still) < len(missing):
                last_progress = time.monotonic()
                report.visible_after_s = last_progress - ended
            missing = [entry.split(":", 1)[0] for entry in still]
            if not missing or time.monotonic() - last_progress > SETTLE_S:
                return still
            time.sleep(1.0)
    finally:
        reader.close()
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--url", help="a running gateway (default: start a stack)")
    parser.add_argument(
        "--cwd",
        default=str(Path(tempfile.gettempdir()) / "mnemex-bench-shared-project"),
        help="the project directory every client works in (a project id; nothing is written there)",
    )
    args = parser.parse_args()
    offline.apply()
    from tests.support.procstack import start_stack

    stack = None
    home = Path(tempfile.mkdtemp(prefix="mnemex-bench-shared-"))
    url = args.url
    try:
        if not url:
            stack = start_stack(home / "home")
            url = stack.gateway_url
        report = run_shared_load(url, args.cwd, clients=args.clients, seconds=args.seconds)
    finally:
        if stack is not None:
            stack.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(report.summary())
    for error in report.errors[:10]:
        print("  error:", error)
    for lost in report.lost[:10]:
        print("  lost:", lost)
    raise SystemExit(1 if report.errors or report.lost else 0)


if __name__ == "__main__":
    main()
