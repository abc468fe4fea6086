"""Backfill and ingest rates through the real gateway of a process stack.

    .venv/bin/python -m bench.bench_backfill [--exchanges 10000] [--book-chars 300000]

1. A synthetic history (short coding Q&A of a few hundred characters, one in
   three with tool uses, eight projects) posted to ``POST /api/backfill`` in
   batches of 256: exchanges/s, and peak RSS of the memory and embedding services.
   Beside it, the encoder's ceiling: the same texts (each exchange's stored text and
   its observations) embedded in-process by the service's encoder in one bulk call,
   with no gRPC, Chroma or kg, as exchanges/s. The pipeline can only approach it.
2. A book of ~1,000-character chunks through ``POST /api/ingest``, once with the
   per-sequence int8 batches and once with ``MNEMEX_EMBEDDING_INT8_BATCHING=0``
   (one text per encode call, the previous path): chunks/s side by side.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypedDict

import httpx

from bench.bench_get_context import DETAILS, TOPICS, VERBS, ProcessStack, machine_speed_ms
from kernel.json_values import JSONArray, JSONObject, objects_at, str_at

BATCH = 256
PROJECTS = 8
CHUNK_CHARS = 1_000  # books are chunked by the memory service; this is the target size of the text's paragraphs


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def history(n: int, root: Path, rng: random.Random) -> list[JSONObject]:
    projects = []
    for p in range(PROJECTS):
        path = root / f"proj{p}"
        (path / ".git").mkdir(parents=True, exist_ok=True)
        projects.append(str(path))
    start = datetime(2025, 1, 1, tzinfo=UTC)
    out: list[JSONObject] = []
    for i in range(n):
        topic, verb, detail = rng.choice(TOPICS), rng.choice(VERBS), rng.choice(DETAILS)
        cwd = projects[i % PROJECTS]
        user = f"How do I handle {topic} in module {i % 97}? The test_{i % 31} case fails with error E{i % 13}."
        answer = (
            f"I {verb} the {topic} issue {detail}. The failing case came from a stale config in "
            f"src/mod{i % 97}.py; after the change the suite passes and the {topic} path is covered by a new test."
        )
        tools: JSONArray = []
        if i % 3 == 0:
            tools = [
                {
                    "tool_name": "Edit",
                    "tool_input": {"file_path": f"{cwd}/src/mod{i % 97}.py", "old_string": "a", "new_string": "b"},
                    "tool_response": {"success": True},
                },
                {
                    "tool_name": "Bash",
                    "tool_input": {"command": f"pytest -q tests/test_{i % 31}.py"},
                    "tool_response": {"stdout": "1 passed", "exit_code": 0},
                },
            ]
        out.append(
            {
                "source_id": f"session{i // 20}:msg{i}",
                "client": "claude",
                "session_id": f"session{i // 20}",
                "cwd": cwd,
                "started_at": (start + timedelta(minutes=7 * i)).isoformat().replace("+00:00", "Z"),
                "user_text": user,
                "assistant_text": answer,
                "tool_uses": tools,
            }
        )
    return out


class BackfillRun(TypedDict):
    stored: int
    existing: int
    observations: int
    rate: float  # exchanges/s
    batch_median_s: float
    replay_existing: int
    replay_s: float
    memory_rss_mb: float
    embedding_rss_mb: float


def run_backfill(stack: ProcessStack, exchanges: list[JSONObject]) -> BackfillRun:
    totals = {"stored": 0, "existing": 0, "observations": 0}
    per_batch = []
    with httpx.Client(base_url=stack.url, timeout=600) as client:
        began = time.perf_counter()
        for s in range(0, len(exchanges), BATCH):
            t = time.perf_counter()
            reply = client.post("/api/backfill", json={"exchanges": exchanges[s : s + BATCH]})
            reply.raise_for_status()
            per_batch.append(time.perf_counter() - t)
            for key in totals:
                totals[key] += reply.json()[key]
        elapsed = time.perf_counter() - began
        t = time.perf_counter()
        replay = client.post("/api/backfill", json={"exchanges": exchanges[:BATCH]}).json()
        replay_s = time.perf_counter() - t
    return BackfillRun(
        stored=totals["stored"],
        existing=totals["existing"],
        observations=totals["observations"],
        rate=len(exchanges) / elapsed,
        batch_median_s=statistics.median(per_batch),
        replay_existing=replay["existing"],
        replay_s=replay_s,
        memory_rss_mb=peak_rss_mb(stack.procs["memory"].pid),
        embedding_rss_mb=peak_rss_mb(stack.procs["embedding"].pid),
    )


def encoder_ceiling(exchanges: list[JSONObject]) -> tuple[float, int, int]:
    """(exchanges/s, texts, median tokens) for embedding exactly what the memory service embeds, in-process."""
    from gateway.tool_observations import observe
    from kernel import offline
    from services.embedding.model import load_encoder
    from services.memory.usecases.turn_recording import exchange_text

    offline.apply()
    texts = []
    for e in exchanges:
        texts.append(exchange_text(str_at(e, "user_text"), str_at(e, "assistant_text")))
        seen = set()
        for use in objects_at(e, "tool_uses"):
            found = observe(str_at(use, "tool_name"), use.get("tool_input"), use.get("tool_response"), str_at(e, "cwd"))
            if found is not None and found.text not in seen:
                seen.add(found.text)
                texts.append(found.text)
    encoder = load_encoder()
    encoder.encode(texts[:64])
    began = time.perf_counter()
    for s in range(0, len(texts), 2048):  # the memory service's largest embed call
        encoder.encode(texts[s : s + 2048])
    elapsed = time.perf_counter() - began
    tokenizer = getattr(encoder, "_tokenizer", None)
    tokens = sorted(len(tokenizer.encode(t).ids) for t in texts[:: max(1, len(texts) // 500)]) if tokenizer else [0]
    return len(exchanges) / elapsed, len(texts), tokens[len(tokens) // 2]


def book(chars: int, rng: random.Random) -> str:
    paragraphs: list[str] = []
    while sum(len(p) for p in paragraphs) < chars:
        sentences = [
            f"The {rng.choice(TOPICS)} section was {rng.choice(VERBS)} {rng.choice(DETAILS)} in chapter {rng.randint(1, 40)}."
            for _ in range(12)
        ]
        paragraphs.append(" ".join(sentences)[:CHUNK_CHARS])
    return "\n\n".join(paragraphs)


def ingest_rate(batching: bool, text: str, tmp: Path) -> tuple[float, int]:
    home = tmp / ("rows" if batching else "single")
    (home / "project" / ".git").mkdir(parents=True)
    stack = ProcessStack.create(home)
    stack.env["MNEMEX_EMBEDDING_INT8_BATCHING"] = "1" if batching else "0"
    stack.start()
    try:
        with httpx.Client(base_url=stack.url, timeout=600) as client:
            client.post("/api/ingest", json={"title": "warm", "text": text[:3000], "cwd": str(home / "project")})
            began = time.perf_counter()
            reply = client.post("/api/ingest", json={"title": "bench", "text": text, "cwd": str(home / "project")})
            reply.raise_for_status()
            elapsed = time.perf_counter() - began
        chunks = int(reply.json().get("chunks", 0))
        return chunks / elapsed, chunks
    finally:
        stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=10_000)
    parser.add_argument("--book-chars", type=int, default=300_000, help="0 skips the ingest comparison")
    args = parser.parse_args()
    rng = random.Random(7)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mnemex-bench-backfill-") as tmp:
        root = Path(tmp)
        stack = ProcessStack.create(root / "data")
        (root / "data").mkdir()
        stack.start()
        try:
            result = run_backfill(stack, history(args.exchanges, root, rng))
        finally:
            stack.stop()
        print(
            f"backfill: {args.exchanges} exchanges in batches of {BATCH}: {result['rate']:.0f} exchanges/s "
            f"(batch p50 {result['batch_median_s']:.2f} s); stored {result['stored']}, "
            f"observations {result['observations']}; replay of one batch: {result['replay_existing']} existing "
            f"in {result['replay_s']:.2f} s"
        )
        print(
            f"peak RSS: memory service {result['memory_rss_mb']:.0f} MB, "
            f"embedding service {result['embedding_rss_mb']:.0f} MB"
        )
        sample = history(min(args.exchanges, 2_000), root / "ceiling", random.Random(7))
        ceiling, n_texts, median_tokens = encoder_ceiling(sample)
        print(
            f"encoder ceiling: the same texts ({n_texts} for {len(sample)} exchanges, median {median_tokens} tokens) "
            f"embedded in-process in bulk: {ceiling:.0f} exchanges/s; the pipeline ran at "
            f"{result['rate'] / ceiling:.2f} of it"
        )
        text = book(args.book_chars, rng)
        for batching in (False, True) if args.book_chars else ():
            rate, chunks = ingest_rate(batching, text, root)
            label = "per-sequence int8 batches" if batching else "one text per call (old)"
            print(f"ingest: {chunks} chunks of ~{CHUNK_CHARS} chars, {label}: {rate:.1f} chunks/s")
    print(
        f"machine speed: in-process fp32 encode of one 20-token prompt p50 {machine_speed_ms():.2f} ms "
        "(about 4.6 on a quiet 2-core machine here; a higher figure means every number above is inflated)"
    )


if __name__ == "__main__":
    main()
