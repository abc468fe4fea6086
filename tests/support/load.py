"""Concurrent sessions through the gateway: get-context, stop, score, and an audit of every score.

Shared by ``test_load.py`` (a small run) and ``bench/bench_load.py`` (8 x 200).
Each session is a thread with its own HTTP client doing, per turn:

1. ``/api/hooks/get-context`` with a realistic prompt (timed);
2. ``/api/hooks/stop`` with the answer;
3. ``/api/record-outcome`` (``worked`` / ``partial`` / ``unknown``: never a
   deletion) with per-memory scores for what was injected.

Every ``scored`` entry the gateway acknowledges is counted per memory *uid*
(a promotion changes the id's prefix, never its uid). At the end each
memory's ``uses`` must equal its acknowledged count: no lost update, no
double count. Errors are any non-200 reply or transport failure.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from kernel.json_values import JSONObject, as_object, objects_at, str_at
from tests.support.json_read import json_str

FACTS = [
    "The billing service deploys with Helm to the staging cluster every weekday at 10:00",
    "Integration tests need the postgres container from docker-compose.test.yml running",
    "The upload worker retries failed S3 writes three times with exponential backoff",
    "Feature flags are read from LaunchDarkly; the SDK key lives in the vault path kv/web",
    "Use ruff format and ruff check before pushing; CI fails on lint errors",
    "The mobile app talks to the GraphQL gateway, never directly to the REST services",
    "Database migrations run with alembic upgrade head from the ops container",
    "The search index is rebuilt nightly by the indexer cron job in the jobs namespace",
    "Production logs go to Loki; query them from the Grafana explore view",
    "The payments service must stay on Python 3.11 until the SDK supports 3.12",
    "Secrets are injected by the external-secrets operator, not committed to the repo",
    "The frontend uses pnpm workspaces; run pnpm install at the repository root",
]
PROMPTS = [
    "how do I deploy the billing service to staging?",
    "the integration tests fail to connect to postgres, what do I need?",
    "why do uploads to S3 sometimes take so long?",
    "where do the feature flags come from?",
    "what should I run before pushing?",
    "how does the mobile app reach the backend?",
    "how do I run the database migrations?",
    "when is the search index rebuilt?",
    "where can I read the production logs?",
    "can we move payments to Python 3.12?",
    "how are secrets provided to the services?",
    "how do I install the frontend dependencies?",
]
OUTCOMES = ("worked", "worked", "partial", "unknown")


@dataclass
class LoadReport:
    sessions: int
    turns: int
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    degraded: int = 0
    context_latencies: list[float] = field(default_factory=list)
    scored_by_uid: Counter[str] = field(default_factory=Counter)
    final_ids: dict[str, str] = field(default_factory=dict)
    lost_updates: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0

    @property
    def p50_ms(self) -> float:
        return statistics.median(self.context_latencies) * 1000 if self.context_latencies else float("nan")

    @property
    def p95_ms(self) -> float:
        ordered = sorted(self.context_latencies)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000 if ordered else float("nan")

    def summary(self) -> str:
        return (
            f"{self.sessions} sessions x {self.turns} turns: {self.requests} requests in {self.wall_seconds:.1f} s, "
            f"{len(self.errors)} errors, {self.degraded} degraded get-context, "
            f"get-context p50 {self.p50_ms:.0f} ms p95 {self.p95_ms:.0f} ms, "
            f"{sum(self.scored_by_uid.values())} score updates on {len(self.scored_by_uid)} memories, "
            f"{len(self.lost_updates)} lost"
        )


def uid_of(memory_id: str) -> str:
    return memory_id.rsplit("_", 1)[-1]


def seed_facts(url: str, cwd: str, headers: dict[str, str] | None = None) -> list[str]:
    with httpx.Client(base_url=url, timeout=60, headers=headers or {}) as client:
        ids = []
        for fact in FACTS:
            reply = client.post("/api/memory-bank/add", json={"content": fact, "cwd": cwd})
            reply.raise_for_status()
            ids.append(reply.json()["memory"]["id"])
        return ids


def _session(
    url: str,
    cwd: str,
    name: str,
    turns: int,
    seed: int,
    report: LoadReport,
    lock: threading.Lock,
    headers: dict[str, str],
) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=url, timeout=60, headers=headers) as client:

        def post(path: str, body: Mapping[str, object]) -> JSONObject | None:
            try:
                reply = client.post(path, json=body)
            except httpx.HTTPError as exc:
                with lock:
                    report.requests += 1
                    report.errors.append(f"{path}: {type(exc).__name__}: {exc}")
                return None
            with lock:
                report.requests += 1
                if reply.status_code != 200:
                    report.errors.append(f"{path}: {reply.status_code} {reply.text[:200]}")
                    return None
            return as_object(reply.json())

        for turn in range(turns):
            prompt = rng.choice(PROMPTS) + f" (turn {turn})"
            started = time.perf_counter()
            context = post("/api/hooks/get-context", {"session_id": name, "prompt": prompt, "cwd": cwd})
            elapsed = time.perf_counter() - started
            if context is None:
                continue
            with lock:
                report.context_latencies.append(elapsed)
                if context.get("degraded"):
                    report.degraded += 1
            post(
                "/api/hooks/stop",
                {
                    "session_id": name,
                    "cwd": cwd,
                    "assistant_text": f"Answer {turn} of {name}: follow the runbook for that step.",
                },
            )
            injected = [json_str(m, "id") for m in objects_at(context, "memories")]
            scores = {i: rng.choice(OUTCOMES) for i in injected[:3]}
            scored = post(
                "/api/record-outcome",
                {"session_id": name, "cwd": cwd, "outcome": rng.choice(OUTCOMES), "memory_scores": scores},
            )
            if scored is None:
                continue
            with lock:
                for item in objects_at(scored, "scored"):
                    report.scored_by_uid[uid_of(json_str(item, "id"))] += 1
                    report.final_ids[uid_of(json_str(item, "id"))] = str_at(item, "new_id") or json_str(item, "id")


def run_load(url: str, cwd: str, *, sessions: int, turns: int, headers: dict[str, str] | None = None) -> LoadReport:
    report = LoadReport(sessions, turns)
    lock = threading.Lock()
    started = time.monotonic()
    threads = [
        threading.Thread(
            target=_session, args=(url, cwd, f"load-{i}", turns, 1000 + i, report, lock, headers or {}), daemon=True
        )
        for i in range(sessions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report.wall_seconds = time.monotonic() - started
    audit_scores(url, cwd, report, headers or {})
    return report


def audit_scores(url: str, cwd: str, report: LoadReport, headers: dict[str, str]) -> None:
    """Each scored memory's ``uses`` must equal the acknowledged score updates for it."""
    with httpx.Client(base_url=url, timeout=60, headers=headers) as client:
        for uid, expected in report.scored_by_uid.items():
            reply = client.post("/api/search", json={"id": report.final_ids[uid], "cwd": cwd})
            if reply.status_code != 200:
                report.lost_updates.append(f"{report.final_ids[uid]}: not found after the run ({reply.status_code})")
                continue
            memory = reply.json()["memories"][0]
            if memory["uses"] != expected:
                report.lost_updates.append(f"{memory['id']}: uses {memory['uses']} != {expected} acknowledged")
