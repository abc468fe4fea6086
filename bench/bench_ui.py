"""The web viewer's pages at 10k memories: server time per page, through the gateway over real HTTP.

    .venv/bin/python -m bench.bench_ui [--size 10000] [--requests 40]

Starts the four processes as `mnemex up` does (fresh MNEMEX_HOME), bulk-loads N
memories (bench_get_context.populate: vectors from the embedding service, the
memory service's Import stream), then plays sessions through the hook endpoints
(get-context, stop, record-outcome) so the sessions, outcome and graph pages have
data, adds facts of this project and of another one (which no page of this
project may show or count), and imports sessions through ``POST /api/backfill``
(the "imported" sessions). Every viewer page is then requested ``--requests``
times, one at a time, on a keep-alive client, after two warm-up requests: the
overview and the landing page, all projects, the memories list (each sort, a
collection, a kind, archived ones, with a search and a search sorted by Wilson),
one memory, the sessions list, a session, an imported session, the knowledge
graph (whole, around a concept, routing sorted), books, and the preview with a
prompt. Server time is the gateway's own ``Server-Timing: app;dur=`` header
(request in to answer start); wall time is what the client saw. Target (issue
38): every page's server p95 <= 150 ms.

The live activity feed (issue 38): with the sessions page's stream open
(``/ui/live/events``), ``FEED_PROMPTS`` prompts through get-context; each one's
delay is the time from get-context's reply to its event reaching the stream
(negative: the event came first). Target: <= 1 s.

A machine-speed line (the fp32 encoder on one prompt, as the other benchmarks
print it, and the load average) comes first: the machine is shared, so compare
two runs only beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import threading
import time
from dataclasses import dataclass

import httpx

from bench.bench_get_context import TOPICS, machine_speed_ms, populate, temporary_stack
from bench.common import percentile

PAGE_TARGET_MS = 150.0
FEED_TARGET_MS = 1000.0
FEED_PROMPTS = 30
SESSIONS = 8
TURNS_PER_SESSION = 5
IMPORTED_SESSIONS = 4
IMPORTED_EXCHANGES = 10


@dataclass
class Timing:
    page: str
    server_ms: list[float]
    wall_ms: list[float]
    target_ms: float

    def row(self) -> str:
        p50, p95 = statistics.median(self.server_ms), percentile(self.server_ms, 95)
        wall95 = percentile(self.wall_ms, 95)
        verdict = "ok" if p95 <= self.target_ms else "OVER"
        return f"{self.page:<34} {p50:8.1f} {p95:8.1f} {wall95:9.1f} {self.target_ms:7.0f}  {verdict}"


def play_sessions(client: httpx.Client, cwd: str, other_cwd: str, rng: random.Random) -> str:
    """Sessions of scored turns through the hook endpoints; returns one session id."""
    for s in range(SESSIONS):
        session = f"bench-ui-{s}"
        for _ in range(TURNS_PER_SESSION):
            prompt = f"how did we handle {rng.choice(TOPICS)}?"
            client.post(
                "/api/hooks/get-context", json={"session_id": session, "prompt": prompt, "cwd": cwd}
            ).raise_for_status()
            client.post(
                "/api/hooks/stop", json={"session_id": session, "cwd": cwd, "assistant_text": "Done that way."}
            ).raise_for_status()
            outcome = rng.choice(["worked", "worked", "partial", "failed"])
            client.post(
                "/api/record-outcome", json={"session_id": session, "cwd": cwd, "outcome": outcome}
            ).raise_for_status()
    for topic in TOPICS[:10]:
        client.post(
            "/api/memory-bank/add",
            json={"content": f"The team standard for {topic} is documented in the wiki", "cwd": cwd},
        ).raise_for_status()
        client.post(  # another project's fact: never shown nor counted on this project's pages
            "/api/memory-bank/add",
            json={"content": f"The other team runs {topic} on its own cluster", "cwd": other_cwd},
        ).raise_for_status()
    return "bench-ui-0"


def import_sessions(client: httpx.Client, cwd: str, rng: random.Random) -> str:
    """Past sessions through ``POST /api/backfill`` (exchanges, no turns); returns one session id."""
    exchanges = [
        {
            "source_id": f"bench-import-{s}-{n}",
            "client": "claude",
            "session_id": f"bench-imported-{s}",
            "cwd": cwd,
            "started_at": f"2026-01-{s + 1:02d}T10:{n:02d}:00+00:00",
            "user_text": f"how should we set up {rng.choice(TOPICS)}?",
            "assistant_text": "Pin the version and keep the settings in the repository.",
        }
        for s in range(IMPORTED_SESSIONS)
        for n in range(IMPORTED_EXCHANGES)
    ]
    client.post("/api/backfill", json={"exchanges": exchanges}).raise_for_status()
    return "bench-imported-0"


def server_ms(reply: httpx.Response) -> float:
    match = re.search(r"app;dur=([0-9.]+)", reply.headers.get("server-timing", ""))
    if reply.status_code != 200 or match is None:
        raise RuntimeError(f"{reply.request.url}: {reply.status_code} {reply.text[:300]}")
    return float(match.group(1))


def time_page(client: httpx.Client, name: str, urls: list[str], requests: int, target: float) -> Timing:
    for url in urls[:2]:
        server_ms(client.get(url))
    timing = Timing(name, [], [], target)
    for i in range(requests):
        started = time.perf_counter()
        reply = client.get(urls[i % len(urls)])
        timing.wall_ms.append((time.perf_counter() - started) * 1000)
        timing.server_ms.append(server_ms(reply))
    return timing


def feed_delays(url: str, project: str, cwd: str, prompts: int = FEED_PROMPTS) -> list[float]:
    """ms from each get-context reply to its event on an open feed stream (see the module doc)."""
    arrived: dict[str, float] = {}
    ready = threading.Event()

    def listen() -> None:
        with (
            httpx.Client(base_url=url, timeout=None) as reader,
            reader.stream("GET", "/ui/live/events", params={"project": project}) as stream,
        ):
            ready.set()
            for line in stream.iter_lines():
                match = re.search(r'"session_id":"(bench-feed-[0-9]+)"', line)
                if line.startswith("data:") and '"kind":"prompt"' in line and match:
                    arrived.setdefault(match.group(1), time.perf_counter())
                    if len(arrived) == prompts:
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ready.wait(10)
    time.sleep(0.2)
    returned: dict[str, float] = {}
    with httpx.Client(base_url=url, timeout=60) as client:
        for n in range(prompts):
            session = f"bench-feed-{n}"
            body = {"session_id": session, "prompt": f"how did we handle {TOPICS[n % len(TOPICS)]}?", "cwd": cwd}
            client.post("/api/hooks/get-context", json=body).raise_for_status()
            returned[session] = time.perf_counter()
            time.sleep(0.05)
    listener.join(10)
    missing = sorted(set(returned) - set(arrived))
    if missing:
        raise RuntimeError(f"{len(missing)} prompt(s) never reached the feed: {missing[:5]}")
    return [(arrived[s] - returned[s]) * 1000 for s in returned]


def viewer_pages(name: str, memory_id: str, session: str, imported: str) -> list[tuple[str, list[str]]]:
    """(page, the URLs it is timed on, in turn): every page of the viewer."""
    p = f"project={name}"
    searches = [f"/ui/memories?{p}&q={t.replace(' ', '+')}" for t in TOPICS]
    return [
        ("overview", [f"/ui?{p}"]),
        ("landing (/ui, most active project)", ["/ui"]),
        ("all projects", ["/ui/projects"]),
        ("memories (all, newest)", [f"/ui/memories?{p}"]),
        ("memories (by score, page 3)", [f"/ui/memories?{p}&sort=score&page=3"]),
        ("memories (by Wilson, history)", [f"/ui/memories?{p}&sort=wilson&collection=history"]),
        ("memories (by uses)", [f"/ui/memories?{p}&sort=uses"]),
        ("memories (facts)", [f"/ui/memories?{p}&kind=fact"]),
        ("memories (archived)", [f"/ui/memories?{p}&archived=archived"]),
        ("memories with a search", searches),
        ("search sorted by Wilson", [u + "&sort=wilson" for u in searches]),
        ("one memory", [f"/ui/memories/{memory_id}?{p}"]),
        ("sessions", [f"/ui/sessions?{p}"]),
        ("one session", [f"/ui/session?{p}&id={session}"]),
        ("imported session", [f"/ui/session?{p}&id={imported}"]),
        ("knowledge graph", [f"/ui/graph?{p}"]),
        ("graph around a concept, 2 hops", [f"/ui/graph?{p}&find={t.split()[0]}&hops=2" for t in TOPICS]),
        ("graph routing sorted, page 2", [f"/ui/graph?{p}&rsort=-rate&rpage=2"]),
        ("books", [f"/ui/books?{p}"]),
        ("preview", [f"/ui/preview?{p}&prompt={t.replace(' ', '+')}" for t in TOPICS]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    rng = random.Random(7)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine speed: in-process fp32 encode of one 20-token prompt p50 {machine_speed_ms():.2f} ms; load {load}")
    with temporary_stack("mnemex-bench-ui-") as (stack, project):
        from kernel import projects

        other = project.parent / "other-project"
        (other / ".git").mkdir(parents=True)
        started = time.monotonic()
        asyncio.run(populate(stack, str(project), args.size))
        print(f"loaded {args.size} memories in {time.monotonic() - started:.0f} s")
        name = projects.resolve(str(project), stack.home)
        with httpx.Client(base_url=stack.url, timeout=60) as client:
            session = play_sessions(client, str(project), str(other), rng)
            imported = import_sessions(client, str(project), rng)
            memory_id = client.post("/api/search", json={"query": TOPICS[0], "cwd": str(project), "limit": 1}).json()[
                "memories"
            ][0]["id"]
            print(f"\n{args.size} memories, {args.requests} requests per page (server time from Server-Timing)")
            print(f"{'page':<34} {'p50 ms':>8} {'p95 ms':>8} {'wall p95':>9} {'target':>7}")
            over = []
            for page, urls in viewer_pages(name, memory_id, session, imported):
                timing = time_page(client, page, urls, args.requests, PAGE_TARGET_MS)
                print(timing.row(), flush=True)
                if percentile(timing.server_ms, 95) > PAGE_TARGET_MS:
                    over.append(page)
            print(
                f"\nevery page within {PAGE_TARGET_MS:.0f} ms (p95)"
                if not over
                else f"\n{len(over)} page(s) over {PAGE_TARGET_MS:.0f} ms (p95): {', '.join(over)}"
            )
        delays = feed_delays(stack.url, name, str(project))
        p50, p95, worst = statistics.median(delays), percentile(delays, 95), max(delays)
        verdict = "ok" if worst <= FEED_TARGET_MS else "OVER"
        print(
            f"\nlive feed: {len(delays)} prompts, event after the hook's reply p50 {p50:.1f} ms, "
            f"p95 {p95:.1f} ms, max {worst:.1f} ms (target <= {FEED_TARGET_MS:.0f} ms)  {verdict}"
        )
        load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"load at the end {load}")


if __name__ == "__main__":
    main()
