"""KG routing vs uniform routing in an outcome-learning simulation.

    .venv/bin/python -m bench.bench_kg_routing [--turns 200] [--seed 7]

Real services on loopback: embedding (all-MiniLM-L6-v2), memory (Chroma
PersistentClient in a temp dir), kg (SQLite journal in the same dir).
Each scenario stores one corpus twice, in two scopes, and plays the same
200 prompts against both in the same run:

- uniform: memory Search with no collection weights (the memory service's
  own per-memory outcome learning is on in both arms);
- kg: ExtractConcepts + Route before each Search, collection_weights from
  Route, and RecordOutcome after each truthful scoring.

Corpus: 10 recurring questions, 8 helpful and 2 misleading memories each
(20% misleading). The simulated assistant scores truthfully: helpful ->
worked, misleading -> failed (other questions' memories are left alone).

Scenarios:
- correlated: each question's misleading memories sit in one collection
  (stale history for library questions, outdated books for team
  conventions) - the case collection routing is meant for;
- uncorrelated: misleading memories sit in the same collections as the
  helpful ones, so no collection is better than another.

Printed: precision@5 (all turns, first 50, last 100), the last turn a
misleading memory surfaced, and get-context-style latency (embed +
[extract + route] + search) p50/p95 for each arm, with ratios. First, the
in-process cost of the hot-path calls (extract, route over a graph with
5,000 learned concepts, facts_for_entities); ``--micro-only`` stops there.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from bench.common import percentile
from kernel import offline

offline.apply()

from protos.mnemex.common.v1 import common_pb2 as common_pb  # noqa: E402
from protos.mnemex.kg.v1 import kg_service_pb2 as kpb  # noqa: E402
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kpb_grpc  # noqa: E402
from protos.mnemex.memory.v1 import memory_service_pb2 as mpb  # noqa: E402
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as mpb_grpc  # noqa: E402

# (question paraphrases, subject, helpful facts, misleading facts, kind)
TOPICS: list[tuple[list[str], str, list[str], list[str], str]] = [
    (
        [
            "How do I share a pytest fixture across test modules?",
            "Where should shared pytest fixtures live?",
            "pytest fixture reuse between files",
        ],
        "pytest fixtures",
        [
            "put shared fixtures in conftest.py at the tests root",
            "conftest.py fixtures are discovered automatically",
            "use scope='session' for expensive pytest fixtures",
            "pytest fixtures in conftest.py need no import",
        ],
        ["copy the pytest fixture into every test module", "import pytest fixtures with from conftest import *"],
        "library",
    ),
    (
        [
            "How do I run blocking code from asyncio?",
            "asyncio blocking call in event loop",
            "Calling a sync function inside an asyncio coroutine",
        ],
        "asyncio blocking calls",
        [
            "use asyncio.to_thread for blocking calls",
            "run_in_executor offloads blocking work from the event loop",
            "never call time.sleep inside an asyncio coroutine",
            "asyncio.to_thread keeps the event loop responsive",
        ],
        [
            "call the blocking function directly, asyncio handles it",
            "wrap blocking code in async def and it runs concurrently",
        ],
        "library",
    ),
    (
        [
            "How do I pass embeddings to Chroma?",
            "Chroma add with precomputed vectors",
            "Avoid Chroma downloading a model",
        ],
        "Chroma embeddings",
        [
            "always pass embeddings explicitly to chroma collection add",
            "chroma query with query_embeddings avoids model downloads",
            "chroma get_collection without embedding function reattaches the default",
            "disable chroma telemetry with Settings",
        ],
        ["pass documents only, chroma computes embeddings offline", "query_texts in chroma never downloads anything"],
        "library",
    ),
    (
        [
            "How do I add server reflection to a grpc python server?",
            "grpc reflection python setup",
            "make grpcurl list my grpc services",
        ],
        "grpc reflection",
        [
            "call reflection.enable_server_reflection with the service names",
            "grpcio-reflection serves v1alpha for grpcurl",
            "register the health service before enabling grpc reflection",
            "buf curl needs server reflection to list services",
        ],
        [
            "grpc python servers expose reflection by default",
            "grpcurl reads the proto from the server without reflection",
        ],
        "library",
    ),
    (
        [
            "How do I pin torch to a CPU build?",
            "pip installs CUDA torch on a CPU machine",
            "avoid nvidia packages when installing sentence-transformers",
        ],
        "torch CPU install",
        [
            "pin torch==2.13.0 before installing sentence-transformers",
            "installing torch first avoids the CUDA build",
            "sentence-transformers accepts the already installed CPU torch",
            "check pip freeze for nvidia packages after install",
        ],
        [
            "pip install sentence-transformers picks the CPU torch automatically",
            "set CUDA_VISIBLE_DEVICES to get a CPU torch wheel",
        ],
        "library",
    ),
    (
        [
            "Which branch naming convention does the team use?",
            "what should I name my git branch",
            "team rule for branch names",
        ],
        "branch naming",
        [
            "team branches are named type/short-description",
            "branch names use feat/ fix/ and chore/ prefixes",
            "branch names are lowercase with hyphens",
            "the team deletes branches after merging",
        ],
        ["branches are named after the developer's initials", "branch names must include the ticket year"],
        "convention",
    ),
    (
        [
            "How long should pull requests be in this team?",
            "team size limit for a pull request",
            "how big can my PR be",
        ],
        "pull request size",
        [
            "the team keeps pull requests under 400 changed lines",
            "split pull requests larger than 400 lines",
            "each pull request needs one reviewer from the owning team",
            "pull requests include a test for every fix",
        ],
        ["pull requests have no size limit in this team", "the team prefers one large pull request per feature"],
        "convention",
    ),
    (
        [
            "What is our code review turnaround?",
            "how fast must reviews happen",
            "team expectation for code review time",
        ],
        "code review turnaround",
        [
            "reviews are answered within one working day",
            "blocking review comments are marked with must",
            "review turnaround is tracked in the weekly sync",
            "authors resolve review threads themselves",
        ],
        ["reviews may wait until the sprint ends", "only the tech lead can approve reviews"],
        "convention",
    ),
    (
        ["How do we write commit messages?", "team commit message style", "format of commit messages in this repo"],
        "commit messages",
        [
            "commit messages use the imperative mood",
            "commit subject lines stay under 72 characters",
            "commit bodies explain why, not what",
            "commit messages reference the issue number",
        ],
        ["commit messages are written in past tense", "commit messages must be a single word"],
        "convention",
    ),
    (
        ["When do we deploy to production?", "team deployment schedule", "is it ok to deploy on friday"],
        "deployment schedule",
        [
            "the team deploys to production Monday to Thursday",
            "no production deploys on Friday afternoons",
            "deploys go out after the staging smoke test passes",
            "hotfixes can deploy any day with two approvals",
        ],
        ["deploys only happen once per quarter", "production deploys are done on Friday evenings"],
        "convention",
    ),
]
PREFIXES = ["", "Note: "]


@dataclass
class Doc:
    text: str
    collection: str
    topic: int
    helpful: bool


@dataclass
class ArmResult:
    precision: list[float] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)
    last_misleading_turn: int = -1
    unidentified: int = 0  # results the simulation could not map back to a corpus doc


def corpus(scenario: str) -> list[Doc]:
    docs: list[Doc] = []
    for t, (_, subject, good, bad, kind) in enumerate(TOPICS):
        good_colls = ["books", "patterns"] if kind == "library" else ["memory_bank", "patterns"]
        for i, fact in enumerate(good):
            for j, prefix in enumerate(PREFIXES):
                docs.append(Doc(f"{prefix}{subject}: {fact}.", good_colls[(i + j) % 2], t, True))
        for i, fact in enumerate(bad):
            if scenario == "correlated":
                collection = "history" if kind == "library" else "books"
            else:
                collection = good_colls[i % 2]
            docs.append(Doc(f"{subject}: {fact}.", collection, t, False))
    return docs


async def store_corpus(
    memory: mpb_grpc.MemoryServiceAsyncStub, scope: common_pb.Scope, docs: list[Doc]
) -> dict[str, Doc]:
    by_id: dict[str, Doc] = {}
    for doc in docs:
        reply = await memory.Store(
            mpb.StoreRequest(scope=scope, collection=doc.collection, content=doc.text, allow_duplicate=True), timeout=60
        )
        by_id[reply.memory.id] = doc
    return by_id


async def play(
    arm: str,
    scope_name: str,
    docs: list[Doc],
    turns: int,
    seed: int,
    memory: mpb_grpc.MemoryServiceAsyncStub,
    kg: kpb_grpc.KnowledgeGraphServiceAsyncStub,
    embed: Callable[[str], Awaitable[bytes]],
) -> ArmResult:
    mscope = common_pb.Scope(user="bench", project=scope_name)
    kscope = common_pb.Scope(user="bench", project=scope_name)
    by_id = await store_corpus(memory, mscope, docs)
    # Scoring can move a memory to another collection under a new id; the
    # content identifies it whatever its id is now.
    by_text = {doc.text: doc for doc in docs}
    rng = random.Random(seed)
    result = ArmResult()
    for turn in range(turns):
        topic = turn % len(TOPICS)
        prompt = rng.choice(TOPICS[topic][0])
        started = time.perf_counter()
        vector = await embed(prompt)
        weights: dict[str, float] = {}
        concepts: list[str] = []
        if arm == "kg":
            extracted = await kg.ExtractConcepts(kpb.ExtractConceptsRequest(text=prompt), timeout=5)
            concepts = list(extracted.concepts)
            routed = await kg.Route(kpb.RouteRequest(scope=kscope, concepts=concepts), timeout=5)
            weights = dict(routed.weights)
        found = await memory.Search(
            mpb.SearchRequest(scope=mscope, query=prompt, query_vector=vector, limit=5, collection_weights=weights),
            timeout=30,
        )
        result.latency_s.append(time.perf_counter() - started)
        shown = [(m.id, by_id.get(m.id) or by_text.get(m.content.strip())) for m in found.memories]
        helpful = [(i, d) for i, d in shown if d is not None and d.topic == topic and d.helpful]
        misleading = [(i, d) for i, d in shown if d is not None and d.topic == topic and not d.helpful]
        result.precision.append(len(helpful) / 5)
        if misleading:
            result.last_misleading_turn = turn
        scores = {i: common_pb.OUTCOME_WORKED for i, _ in helpful} | {
            i: common_pb.OUTCOME_FAILED for i, _ in misleading
        }
        if scores:
            scored = await memory.Score(
                mpb.ScoreRequest(scope=mscope, session_id=f"{arm}-{turn}", memory_scores=scores), timeout=30
            )
            for item in scored.scored:
                if item.new_id and item.id in by_id:
                    by_id[item.new_id] = by_id[item.id]
        unknown = sum(1 for _, d in shown if d is None)
        result.unidentified += unknown
        if arm == "kg":
            for outcome, group in ((common_pb.OUTCOME_WORKED, helpful), (common_pb.OUTCOME_FAILED, misleading)):
                if group:
                    await kg.RecordOutcome(
                        kpb.RecordOutcomeRequest(
                            scope=kscope,
                            concepts=concepts,
                            collections=[d.collection for _, d in group],
                            doc_ids=[i for i, _ in group],
                            outcome=outcome,
                            problem=prompt,
                            context_type="coding",
                        ),
                        timeout=5,
                    )
    return result


def report(scenario: str, arms: dict[str, ArmResult]) -> None:
    print(f"\n== scenario: {scenario} ==")
    for name, r in arms.items():
        p = r.precision
        lat_ms = [s * 1000 for s in r.latency_s]
        print(
            f"  {name:<8} precision@5 all={statistics.mean(p):.3f} first50={statistics.mean(p[:50]):.3f} "
            f"last100={statistics.mean(p[-100:]):.3f}  last misleading at turn {r.last_misleading_turn}  "
            f"get-context p50 {statistics.median(lat_ms):.2f} ms p95 {percentile(lat_ms, 95):.2f} ms"
            f"  (unidentified results: {r.unidentified})"
        )
    kg, uni = arms["kg"], arms["uniform"]
    print(
        f"  ratio kg/uniform: precision@5 all {statistics.mean(kg.precision) / statistics.mean(uni.precision):.3f}, "
        f"last100 {statistics.mean(kg.precision[-100:]) / statistics.mean(uni.precision[-100:]):.3f}, "
        f"latency p50 {statistics.median(kg.latency_s) / statistics.median(uni.latency_s):.2f}x"
    )


def micro() -> None:
    from services.kg.extraction import extract
    from services.kg.graphs import ScopeGraphs
    from services.kg.keys import Outcome

    prompts = [q for topic in TOPICS for q in topic[0]]
    long_prompt = " ".join(prompts) * 3
    rng = random.Random(1)
    graphs = ScopeGraphs()
    words = [f"concept{i}" for i in range(5000)]
    for i in range(20000):
        graphs.routing.record(
            rng.sample(words, 4), [rng.choice(["books", "patterns", "history"])], rng.choice(list(Outcome)), float(i)
        )
    for i in range(2000):
        graphs.content.index_fact(f"fact{i}", [(w, "phrase") for w in rng.sample(words, 5)], [])
    from services.kg.problems import signature_for

    # 5,000 learned problems: three words of a 300-word vocabulary (in about 50 problems each) and one
    # specific word (an error code) each, as recurring errors look.
    vocabulary = [f"{a}{b}{c}" for a in "bcdfghjklm" for b in "aeiou" for c in "nprstz"]
    for i in range(5000):
        concepts = [*rng.sample(vocabulary, 3), f"e{i}"]
        graphs.problems.record(signature_for(concepts), [f"doc{i % 700}"], rng.choice(list(Outcome)), "", float(i))

    def timed(fn: Callable[[], object], n: int) -> list[float]:
        samples: list[float] = []
        for _ in range(n):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
        return samples

    rows = {
        f"extract (prompt, ~{statistics.mean(len(p) for p in prompts):.0f} chars)": timed(
            lambda: extract(rng.choice(prompts)), 2000
        ),
        f"extract ({len(long_prompt)} chars)": timed(lambda: extract(long_prompt), 50),
        "route (12 concepts, 5k-concept graph)": timed(lambda: graphs.routing.route(rng.sample(words, 12)), 2000),
        "facts_for_entities (8 entities)": timed(
            lambda: graphs.content.facts_for_entities(rng.sample(words, 8), 5), 2000
        ),
        "lessons (12 concepts, 5k problems)": timed(
            lambda: graphs.problems.lessons([*rng.sample(vocabulary, 11), f"e{rng.randrange(5000)}"], 6, 6), 2000
        ),
    }
    print("in-process hot path:")
    for name, samples in rows.items():
        us = [s * 1e6 for s in samples]
        print(f"  {name:<42} p50 {statistics.median(us):8.1f} us  p95 {percentile(us, 95):8.1f} us")


async def main(turns: int, seed: int) -> None:
    from kernel.embedding_client import EmbeddingClient
    from kernel.vectors import pack
    from services.embedding.embedding_servicer import create_server as create_embedding
    from services.embedding.model import load_encoder
    from services.embedding.settings import EmbeddingSettings
    from services.kg.kg_servicer import create_server as create_kg
    from services.kg.settings import KgSettings
    from services.memory.composition import create_server as create_memory
    from services.memory.settings import MemorySettings

    home = Path(tempfile.mkdtemp(prefix="mnemex-bench-kg-"))
    encoder = await asyncio.to_thread(load_encoder)
    emb = await create_embedding(
        EmbeddingSettings(address="127.0.0.1:0", model_path=None, device="cpu", backend="auto"), encoder=encoder
    )
    emb_addr = f"127.0.0.1:{emb.port}"
    mem_server = await create_memory(
        MemorySettings(address="127.0.0.1:0", home=home, embedding_addr=emb_addr, maintenance_interval_s=0)
    )
    mem_port = mem_server.port
    kg = await create_kg(KgSettings(address="127.0.0.1:0", home=home))
    channels = [grpc.aio.insecure_channel(a) for a in (emb_addr, f"127.0.0.1:{mem_port}", f"127.0.0.1:{kg.port}")]
    embedder = EmbeddingClient(channels[0])

    async def embed(text: str) -> bytes:
        return pack((await embedder.embed([text]))[:1])

    memory = mpb_grpc.MemoryServiceStub(channels[1])
    kg_stub = kpb_grpc.KnowledgeGraphServiceStub(channels[2])
    print(f"turns={turns} seed={seed} corpus={len(corpus('correlated'))} memories per scope, 20% misleading")
    try:
        for scenario in ("correlated", "uncorrelated"):
            docs = corpus(scenario)
            arms = {
                arm: await play(arm, f"{scenario}-{arm}", docs, turns, seed, memory, kg_stub, embed)
                for arm in ("uniform", "kg")
            }
            report(scenario, arms)
    finally:
        for ch in channels:
            await ch.close()
        await kg.stop(0)
        await mem_server.stop(0)
        await emb.stop(0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--micro-only", action="store_true", help="only the in-process hot-path timings")
    args = parser.parse_args()
    micro()
    if not args.micro_only:
        asyncio.run(main(args.turns, args.seed))
