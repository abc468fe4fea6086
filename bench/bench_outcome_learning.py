"""Outcome learning: do misleading memories stop surfacing once the assistant scores truthfully?

    .venv/bin/python -m bench.bench_outcome_learning [--turns 200] [--seed 1] [--json]

Setup, all through the real memory service API (in-process gRPC server on
loopback, real Chroma PersistentClient in a temp dir, real MiniLM embeddings):

- 20 recurring developer questions. Each has 8 helpful memories (the right
  answer, phrased 8 ways) and 2 misleading ones (a plausible wrong answer about
  the same subject): 20% of the 200 question memories mislead. 100 unrelated
  notes sit alongside as distractors. Everything is stored in ``history``.
- Each round of 20 turns asks every question once, in a new random order and
  a random paraphrase (so by turn 100 each question has come up 5 times),
  takes the top 5 of Search (query text + vector, as get-context does) and
  records the injection. precision@5 = helpful memories among the 5 injected / 5.
- Learning on: the simulated assistant scores truthfully with Score
  ``memory_scores``: helpful -> worked, misleading -> failed; distractors are
  left out (``related=[]``), as an assistant that did not use them would.
- Learning off: the same corpus in a second scope, the same turns, never scored.

Prints precision@5 per 20-turn window for both, the precision over turns
81-100, and the last turn on which a misleading memory was injected.
Target (issue 3): precision@5 >= 0.9 by turn 100 with learning on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TypeVar

import grpc
import numpy as np
import numpy.typing as npt

from kernel import offline
from protos.mnemex.common.v1.common_pb2 import Scope
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub

T = TypeVar("T")

USER = "bench"
TOP_K = 5
WINDOW = 20

# (subject, right answer, wrong answer, question paraphrases)
TOPICS = [
    (
        "running the test suite",
        "run `make test`, which wraps pytest with the test env vars",
        "run `python setup.py test`",
        ["How do I run the test suite?", "What's the command for running the tests?", "how to run our test suite"],
    ),
    (
        "database migrations",
        "use `alembic upgrade head` inside the api container",
        "edit the tables by hand in psql",
        [
            "How do I apply database migrations?",
            "how to run the db migrations",
            "What's the database migration command?",
        ],
    ),
    (
        "deploying to staging",
        "merge to main and the GitHub Actions deploy job ships staging",
        "scp the build to the staging box",
        [
            "How do we deploy to staging?",
            "what's the process for deploying to staging",
            "How does a deploy to staging work?",
        ],
    ),
    (
        "local environment setup",
        "run `uv sync` then `pre-commit install`",
        "pip install packages globally with sudo",
        [
            "How do I set up my local environment?",
            "local dev environment setup steps?",
            "How do I get a local environment running?",
        ],
    ),
    (
        "the flaky integration test",
        "it needs the Redis container; start it with `docker compose up redis`",
        "mark it skip and ignore it",
        [
            "Why does the integration test fail randomly?",
            "the integration test is flaky, what do I do",
            "how to fix the flaky integration test",
        ],
    ),
    (
        "API authentication",
        "send the JWT from /auth/token as a Bearer header",
        "put the password in the query string",
        [
            "How do I authenticate API calls?",
            "how does API authentication work",
            "What do I need for API authentication?",
        ],
    ),
    (
        "logging configuration",
        "set LOG_LEVEL and logs go through structlog as JSON",
        "edit logging.ini in site-packages",
        [
            "How do I change the logging configuration?",
            "how is logging configured",
            "Where do I configure the log level?",
        ],
    ),
    (
        "feature flags",
        "add the flag in flags.yaml and read it with `flags.enabled()`",
        "comment out the code paths",
        ["How do I add a feature flag?", "how do feature flags work here", "Where are feature flags defined?"],
    ),
    (
        "the cache TTL",
        "the Redis cache TTL is 300 seconds, set in settings.CACHE_TTL",
        "the cache never expires",
        ["What is the cache TTL?", "how long is the cache TTL", "When do cache entries expire, what's the TTL?"],
    ),
    (
        "code formatting",
        "run `ruff format` and `ruff check --fix`",
        "format files manually in the editor",
        [
            "How should I do code formatting?",
            "what tool do we use for code formatting",
            "How do I fix code formatting issues?",
        ],
    ),
    (
        "the background job queue",
        "jobs run on Celery with RabbitMQ; start workers with `make worker`",
        "jobs run in cron on the web server",
        [
            "How does the background job queue work?",
            "how to start the background job workers",
            "What runs our background jobs?",
        ],
    ),
    (
        "secrets management",
        "secrets live in Vault and are injected as env vars at deploy",
        "commit secrets to the .env file in git",
        ["How does secrets management work?", "where do we keep secrets", "How do I add a new secret?"],
    ),
    (
        "the frontend build",
        "run `pnpm build` in the web folder; Vite outputs to dist",
        "run `npm run eject` first",
        ["How do I run the frontend build?", "frontend build command?", "How is the frontend build done?"],
    ),
    (
        "rollbacks",
        "redeploy the previous tag with `make deploy TAG=<previous>`",
        "revert the database to last night's backup",
        ["How do I do a rollback of a bad release?", "what's the rollback procedure", "How do we roll back?"],
    ),
    (
        "performance profiling",
        "use py-spy record against the running worker",
        "add print timestamps everywhere",
        [
            "How do I do performance profiling?",
            "what tool should I use for profiling performance",
            "How to profile a slow worker?",
        ],
    ),
    (
        "the API rate limit",
        "the gateway allows 100 requests per second per key",
        "there is no rate limit",
        [
            "What is the API rate limit?",
            "how many requests per second does the API rate limit allow",
            "Is there an API rate limit?",
        ],
    ),
    (
        "type checking",
        "run `mypy --strict services` before pushing",
        "type hints are optional and never checked",
        ["How do we do type checking?", "what type checking tool do we use", "How do I run the type checker?"],
    ),
    (
        "error monitoring",
        "errors are reported to Sentry via the SDK initialised in app.py",
        "read the server logs over ssh",
        [
            "How does error monitoring work?",
            "where do errors get reported for monitoring",
            "What do we use for error monitoring?",
        ],
    ),
    (
        "dependency updates",
        "Renovate opens PRs weekly; merge them after CI passes",
        "upgrade everything with `pip install -U` on prod",
        [
            "How are dependency updates handled?",
            "what's our process for dependency updates",
            "Who does the dependency updates?",
        ],
    ),
    (
        "cutting a release",
        "bump the version with `cz bump`, which tags and writes the changelog",
        "edit the version string by hand",
        ["How do I cut a release?", "what are the steps for cutting a release", "How is a new release cut?"],
    ),
]
HELPFUL_FORMS = [
    "For {s}: {a}.",
    "Confirmed fix for {s}: {a}.",
    "Team practice on {s} is to {a}.",
    "When dealing with {s}, {a}.",
    "Answer about {s}: {a}, this worked last time.",
    "Reminder on {s}: {a}.",
    "{S}: the right way is to {a}.",
    "Solved before: for {s} we {a}.",
]
MISLEADING_FORMS = ["For {s}: {w}.", "Note on {s}: just {w}."]


@dataclass
class Item:
    text: str
    topic: int
    kind: str  # helpful, misleading, distractor


@dataclass
class Run:
    precision: list[float] = field(default_factory=list)
    misleading_turns: list[int] = field(default_factory=list)
    occurrence: list[int] = field(default_factory=list)  # how many times this turn's question had come up
    trace: list[str] = field(default_factory=list)


def build_corpus(rng: random.Random) -> list[Item]:
    items = []
    for t, (subject, answer, wrong, _) in enumerate(TOPICS):
        for form in HELPFUL_FORMS:
            items.append(Item(form.format(s=subject, S=subject.capitalize(), a=answer), t, "helpful"))
        for form in MISLEADING_FORMS:
            items.append(Item(form.format(s=subject, w=wrong), t, "misleading"))
    items += [Item(text, -1, "distractor") for text in distractor_notes(100, rng)]
    return items


def distractor_notes(n: int, rng: random.Random) -> list[str]:
    """Notes a developer's memory also holds, about none of the 20 questions."""
    people = ["Ana", "Bo", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana"]
    things = [
        "the team offsite",
        "the design review",
        "the quarterly planning",
        "the new hire onboarding",
        "the office move",
        "the on-call rotation swap",
        "the conference talk",
        "the hackathon",
    ]
    facts = [
        "is scheduled for next Tuesday",
        "moved to the big meeting room",
        "needs slides by Friday",
        "was postponed by a week",
        "has a shared agenda doc",
        "ends with a team dinner",
    ]
    return [f"{rng.choice(people)} said {rng.choice(things)} {rng.choice(facts)} (note {i})." for i in range(n)]


def question_schedule(rng: random.Random, turns: int) -> list[tuple[int, str]]:
    """Recurring questions: every topic once per round of 20, in a new random order each round."""
    schedule: list[tuple[int, str]] = []
    while len(schedule) < turns:
        order = list(range(len(TOPICS)))
        rng.shuffle(order)
        schedule += [(t, rng.choice(TOPICS[t][3])) for t in order]
    return schedule[:turns]


class Loop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def run(self, coro: Coroutine[object, None, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(3600)


def main() -> None:
    offline.apply()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--trace", action="store_true", help="print every turn's injected memories (learning on)")
    parser.add_argument("--retrieval", choices=("hybrid", "dense"), default="hybrid", help="MNEMEX_RETRIEVAL_MODE")
    args = parser.parse_args()

    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb
    from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
    from services.embedding.model import load_encoder
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings
    from services.memory.storage.chroma_store import ChromaStore

    rng = random.Random(args.seed)
    encoder = load_encoder()
    items = build_corpus(rng)
    vectors = encoder.encode([i.text for i in items])
    turns = question_schedule(rng, args.turns)
    query_vectors = encoder.encode([q for _, q in turns])
    loop = Loop()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        settings = MemorySettings(
            address="127.0.0.1:0",
            home=home,
            default_user=USER,
            maintenance_interval_s=0,
            embedding_addr="127.0.0.1:9",
            retrieval_mode=args.retrieval,
        )
        store = ChromaStore(
            chromadb.PersistentClient(path=str(home / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))
        )
        server = loop.run(create_server(settings, chroma=store))
        port = server.port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
            stub = pb_grpc.MemoryServiceStub(chan)
            runs = {}
            for mode in ("on", "off"):
                scope = common_pb.Scope(user=USER, project=f"learning-{mode}")
                label: dict[str, Item] = {}
                for item, vector in zip(items, vectors, strict=True):
                    reply = stub.Store(
                        pb.StoreRequest(
                            scope=scope,
                            collection="history",
                            content=item.text,
                            vector=np.ascontiguousarray(vector, dtype="<f4").tobytes(),
                            allow_duplicate=True,
                        ),
                        timeout=60,
                    )
                    label[reply.memory.id.split("_", 1)[1]] = item  # keyed by uid: promotions change the prefix
                runs[mode] = simulate(stub, pb, common_pb, scope, label, turns, query_vectors, learn=mode == "on")
        loop.run(server.stop(0))
    if args.trace:
        print("\n".join(runs["on"].trace), file=sys.stderr)
    report(runs, args.turns, args.json)


def simulate(
    stub: MemoryServiceStub,
    pb: ModuleType,  # memory_service_pb2, imported by main() alone
    common_pb: ModuleType,  # common_pb2, likewise
    scope: Scope,
    label: dict[str, Item],
    turns: list[tuple[int, str]],
    query_vectors: npt.NDArray[np.float32],
    *,
    learn: bool,
) -> Run:
    run = Run()
    session = f"bench-{scope.project}"
    asked: dict[int, int] = {}
    for n, ((topic, question), vector) in enumerate(zip(turns, query_vectors, strict=True), start=1):
        asked[topic] = asked.get(topic, 0) + 1
        run.occurrence.append(asked[topic])
        found = stub.Search(
            pb.SearchRequest(
                scope=scope,
                query=question,
                limit=TOP_K,
                query_vector=np.ascontiguousarray(vector, dtype="<f4").tobytes(),
            ),
            timeout=60,
        ).memories
        kinds = []
        for memory in found:
            item = label[memory.id.split("_", 1)[1]]
            kinds.append(item.kind if item.topic == topic or item.kind == "distractor" else "off-topic")
        run.precision.append(kinds.count("helpful") / TOP_K)
        run.trace.append(
            f"{n:>3} t{topic:<2} "
            + " ".join(
                f"{k[:4]}:{m.collection[:4]}:{m.score:.2f}:{m.embedding_similarity:.2f}:{m.final_rank_score:.2f}"
                for m, k in zip(found, kinds, strict=True)
            )
        )
        if "misleading" in kinds:
            run.misleading_turns.append(n)
        stub.RecordInjection(
            pb.RecordInjectionRequest(scope=scope, session_id=session, ids=[m.id for m in found], prompt=question),
            timeout=10,
        )
        if not learn:
            continue
        verdicts = {
            m.id: (common_pb.OUTCOME_WORKED if k == "helpful" else common_pb.OUTCOME_FAILED)
            for m, k in zip(found, kinds, strict=True)
            if k in ("helpful", "misleading")
        }
        outcome = common_pb.OUTCOME_PARTIAL if "misleading" in kinds else common_pb.OUTCOME_WORKED
        stub.Score(
            pb.ScoreRequest(
                scope=scope, session_id=session, outcome=outcome, memory_scores=verdicts, related=pb.IdList()
            ),
            timeout=60,
        )
    return run


def report(runs: dict[str, Run], turns: int, as_json: bool) -> None:
    def window(values: list[float], start: int, end: int) -> float:
        part = values[start:end]
        return sum(part) / len(part) if part else float("nan")

    last_misleading = {mode: (run.misleading_turns[-1] if run.misleading_turns else 0) for mode, run in runs.items()}
    at_100 = {mode: window(run.precision, 80, 100) for mode, run in runs.items()}
    rows = [
        (
            f"{s + 1}-{min(s + WINDOW, turns)}",
            window(runs["on"].precision, s, s + WINDOW),
            window(runs["off"].precision, s, s + WINDOW),
        )
        for s in range(0, turns, WINDOW)
    ]

    def misled_by_occurrence(run: Run) -> list[float]:
        out = []
        for k in range(1, max(run.occurrence) + 1):
            turns_k = [n for n, occ in enumerate(run.occurrence, start=1) if occ == k]
            out.append(sum(1 for n in turns_k if n in run.misleading_turns) / len(turns_k))
        return out

    by_occurrence = {mode: misled_by_occurrence(run) for mode, run in runs.items()}
    if as_json:
        print(
            json.dumps(
                {
                    "windows": rows,
                    "precision_81_100": at_100,
                    "last_misleading_turn": last_misleading,
                    "misleading_turns": {m: len(r.misleading_turns) for m, r in runs.items()},
                    "misled_share_by_occurrence": by_occurrence,
                },
                indent=2,
            )
        )
        return
    print(f"{'turns':>9}  {'learning on':>11}  {'learning off':>12}")
    for name, on, off in rows:
        print(f"{name:>9}  {on:>11.3f}  {off:>12.3f}")
    print(f"precision@5 over turns 81-100: on {at_100['on']:.3f}, off {at_100['off']:.3f} (target on >= 0.9)")
    print(
        f"turns with a misleading memory injected: on {len(runs['on'].misleading_turns)}, "
        f"off {len(runs['off'].misleading_turns)}"
    )
    print(f"last turn a misleading memory surfaced: on {last_misleading['on']}, off {last_misleading['off']}")
    print("share of turns with a misleading memory, by how often the question had been asked:")
    print("  asked:   " + " ".join(f"{k:>5}" for k in range(1, len(by_occurrence["on"]) + 1)))
    for mode in ("on", "off"):
        print(f"  {mode:<8} " + " ".join(f"{v:>5.2f}" for v in by_occurrence[mode]))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
