"""Calibration of the search listing's relevance floor and copy collapsing (``domain.distinct_results``).

    .venv/bin/python -m bench.search_relevance            # coding stores: cosines, coverages, copy pairs
    .venv/bin/python -m bench.search_relevance --locomo   # plus LoCoMo through the Search RPC, with and without

Part one embeds small realistic stores with the service's model (a React
front end and a devops repository: exchanges as ``User: ...\\nAssistant: ...``
and tool observations as the hooks write them), then prints for each on-topic
query the cosine and the coverage (``listing.coverage``) of the memory it is
about, for each absent-topic query the best cosine and coverage in a store
without its topic, the same for identifier queries, and the cosine of pairs
that are copies and pairs that are not.

Part two (``--locomo``) stores every LoCoMo conversation through a real memory
service (``bench.locomo.runner``: hybrid, the default) and asks each question
twice: the plain Search (what the benchmark measures) and the Search with
``distinct_relevant`` (what search_memory shows). It prints recall@10 of both,
the questions left with no relevant result, the off-topic coding queries that
still get one, and recall@10 for other floors (simulated on the plain search's
top 40: the first ten results that pass).

Last run (2026-11-27, the dev file, int8 on a shared 2-core CPU, 6-8 min): categories 1-4,
recall@10 0.774 plain / 0.771 listed (9 questions fell, 7 rose), any@10
0.843 / 0.838, MRR 0.522 / 0.522; no question left with nothing relevant; 0 of 95
off-topic coding queries with a relevant result. The figures of part one are
quoted in ``services/memory/domain/distinct_results.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from bench.locomo.dataset import DEFAULT_DATA, load
from bench.locomo.memory_text import turn_content
from bench.locomo.metrics import QuestionResult, score_question, summarise
from services.memory.domain.distinct_results import DEFAULT_LISTING
from services.memory.retrieval.candidates import lexical_terms
from services.memory.retrieval.lexical import LexicalIndex
from services.memory.retrieval.listing import coverage

if TYPE_CHECKING:
    from protos.mnemex.memory.v1.memory_service_pb2 import SearchResponse

FRONTEND = [
    "User: the Button component re-renders on every keystroke in the search form\nAssistant: Wrapped onSearch in "
    "useCallback and memoised Button with React.memo; the profiler shows one render per submit now.",
    "User: why does useEffect run twice in development?\nAssistant: React 18 StrictMode mounts, unmounts and "
    "remounts components in development to surface missing cleanups. Added a cleanup that aborts the fetch with an "
    "AbortController.",
    "Edited src/components/Button.tsx",
    "Edited src/App.tsx (3 edits)",
    "Ran npm test: Tests: 2 failed, 41 passed, 43 total",
    "Ran vite build [failed: Could not resolve './theme' from src/main.tsx]",
    "User: the dark mode toggle forgets its value after reload\nAssistant: Persisted the theme in localStorage and "
    "read it in a lazy useState initialiser, so the first paint uses the saved theme.",
    "User: set up Tailwind in the Vite app\nAssistant: Installed tailwindcss, postcss and autoprefixer, added "
    "tailwind.config.js with content globs for src/**/*.tsx and imported the directives in index.css.",
    "User: the product list flickers when the filter changes\nAssistant: Kept the previous data with TanStack "
    "Query's placeholderData: keepPreviousData, so the list stays until the new page arrives.",
    "Wrote src/hooks/useDebounce.ts (18 lines)",
    "User: jest cannot import the SVG icons\nAssistant: Mapped \\.svg$ to a stub component in moduleNameMapper in "
    "jest.config.js.",
    "User: form validation for the signup page\nAssistant: Used react-hook-form with a zod schema resolver; errors "
    "show under each field and the submit button stays disabled until the form is valid.",
    "User: the modal does not trap focus\nAssistant: Switched the modal to Radix Dialog, which traps focus, closes "
    "on Escape and restores focus to the trigger.",
    "Ran npx eslint src --fix: 0 problems",
    "User: how do we share the cart between pages?\nAssistant: Moved the cart into a Zustand store "
    "(src/store/cart.ts) with a persist middleware; components subscribe to the slices they read.",
    "Edited src/pages/Checkout.tsx",
    'User: images load slowly on the landing page\nAssistant: Added loading="lazy" and explicit width/height to the '
    "hero images and served AVIF through the CDN; LCP dropped from 3.1 s to 1.6 s.",
    "User: storybook fails after upgrading to React 18\nAssistant: Upgraded @storybook/react to 7.x and replaced "
    "ReactDOM.render in preview.js with createRoot.",
    "Ran npm run typecheck [failed: TS2322: Type 'string | undefined' is not assignable to type 'string']",
    "User: the date picker shows the wrong day for users in Australia\nAssistant: The picker converted the ISO date "
    "to local time; switched to date-fns parseISO and format with the date-only string so no timezone shift happens.",
]
DEVOPS = [
    "User: terraform apply hangs on 'Acquiring state lock'\nAssistant: A crashed CI run left the DynamoDB lock; "
    "checked nobody else was applying, then ran terraform force-unlock with the lock id.",
    "User: the pods restart every few minutes\nAssistant: The liveness probe hit /health before the app finished "
    "warming its cache; added a startupProbe with failureThreshold 30 so liveness only starts after startup.",
    "Ran kubectl rollout status deployment/api: successfully rolled out",
    "User: postgres is running out of connections\nAssistant: Put PgBouncer in transaction mode in front of the "
    "database and cut each service's pool to 10; max_connections stays at 200.",
    "Edited infra/modules/vpc/main.tf",
    'Ran terraform plan [failed: Error: Unsupported argument "enable_classiclink"]',
    "User: docker builds take 8 minutes in CI\nAssistant: Reordered the Dockerfile to copy requirements.txt and "
    "install before copying the source, and enabled BuildKit cache mounts for pip; builds take 90 s now.",
    "User: rotate the database password without downtime\nAssistant: Created the new password as a second user in "
    "Vault, rolled the deployments to read it, then dropped the old user.",
    "User: nginx returns 502 behind the load balancer\nAssistant: The upstream keepalive timeout was shorter than "
    "the ALB idle timeout; raised keepalive_timeout to 75s.",
    "Ran helm upgrade billing ./charts/billing: deployed",
]
STORES = {"frontend": FRONTEND, "devops": DEVOPS}
# (query, store, index of the memory it is about)
ON_TOPIC = [
    ("why is the Button re-rendering so often", "frontend", 0),
    ("useEffect fires twice", "frontend", 1),
    ("dark mode setting lost on refresh", "frontend", 6),
    ("tailwind setup", "frontend", 7),
    ("list flickers while filtering products", "frontend", 8),
    ("debounce hook", "frontend", 9),
    ("jest svg import error", "frontend", 10),
    ("signup form validation", "frontend", 11),
    ("focus trap in the modal dialog", "frontend", 12),
    ("where is the shopping cart state kept", "frontend", 14),
    ("slow hero images LCP", "frontend", 16),
    ("storybook broke after react upgrade", "frontend", 17),
    ("timezone bug in the date picker", "frontend", 19),
    ("vite build cannot resolve theme", "frontend", 5),
    ("what did we change in Checkout.tsx", "frontend", 15),
    ("terraform state lock", "devops", 0),
    ("pods keep restarting liveness probe", "devops", 1),
    ("too many postgres connections", "devops", 3),
    ("speed up docker builds in CI", "devops", 6),
    ("502 from nginx behind the ALB", "devops", 8),
    ("database password rotation", "devops", 7),
    ("enable_classiclink unsupported argument", "devops", 5),
]
IDENTIFIERS = [
    ("TS2322", "frontend", 18),
    ("AbortController", "frontend", 1),
    ("moduleNameMapper", "frontend", 10),
    ("keepPreviousData", "frontend", 8),
    ("createRoot", "frontend", 17),
    ("parseISO", "frontend", 19),
    ("PgBouncer", "devops", 3),
    ("force-unlock", "devops", 0),
]
# (query, store without its topic)
ABSENT = [
    *(
        (q, "frontend")
        for q in (
            "terraform state lock",
            "kubernetes liveness probe restarts",
            "postgres connection pool exhausted",
            "rust borrow checker lifetime error",
            "rotate the vault database password",
            "kafka consumer lag",
            "nginx 502 bad gateway",
            "python asyncio task cancellation",
            "grpc deadline exceeded retries",
            "redis eviction policy",
            "helm chart values for billing",
            "git rebase conflicts in migrations",
            "sqlite wal mode checkpoint",
            "oauth refresh token rotation",
            "pandas dataframe merge memory",
            "docker layer cache pip install",
            "CUDA out of memory during training",
            "cron job timezone on the server",
            "S3 bucket policy public read",
            "what did the user eat for dinner",
        )
    ),
    *(
        (q, "devops")
        for q in (
            "react useEffect cleanup",
            "tailwind dark mode classes",
            "jest svg mock",
            "zustand persist middleware",
            "css grid layout for the dashboard",
            "storybook stories for the button",
            "typescript generic props",
            "react-hook-form zod",
            "lazy loading images",
            "date picker timezone",
        )
    ),
]
_EXCHANGE = "User: fix the login redirect\nAssistant: The redirect used window.location; switched to navigate('/home')."
_EFFECT = (
    "User: why does useEffect run twice in development?\n"
    "Assistant: React 18 StrictMode mounts, unmounts and remounts components in development."
)
COPIES = [
    (_EFFECT, _EFFECT.replace("development?", "development")),
    (_EFFECT, _EFFECT.replace("Why", "why").replace("in development?", "in dev?")),
    (_EXCHANGE, _EXCHANGE.replace("redirect\n", "redirect please\n")),
    (_EXCHANGE, _EXCHANGE.replace("; switched", ", so I switched")),
    (
        "Caroline: I went to the LGBTQ support group yesterday.",
        "Caroline: I went to the LGBTQ support group yesterday!",
    ),
    (
        "User: add a dark mode toggle\nAssistant: Added a ThemeToggle button in the header.",
        "User: add a dark-mode toggle\nAssistant: Added a ThemeToggle button to the header.",
    ),
]
NOT_COPIES = [
    ("Ran npm test: Tests: 2 failed, 41 passed, 43 total", "Ran npm test: Tests: 1 failed, 42 passed, 43 total"),
    (
        "User: bump react to 18.2\nAssistant: Bumped react and react-dom to 18.2.0.",
        "User: bump react to 18.3\nAssistant: Bumped react and react-dom to 18.3.1.",
    ),
    ("Enable strict mode in tsconfig", "Disable strict mode in tsconfig"),
    ("Deploy to staging first, then production", "Deploy to production first, then staging"),
    ("[8 May, 2023] Caroline: Thanks, see you soon!", "[9 June, 2023] Caroline: Thanks, see you soon!"),
    (
        "Ran vite build [failed: Could not resolve './theme']",
        "Ran vite build [failed: Could not resolve './theme'] [x]",
    ),
    ("Edited src/App.tsx", "Edited src/main.tsx"),
    (_EXCHANGE, _EXCHANGE.replace("window.location; switched to navigate('/home')", "a stale cookie; cleared it")),
]
SIMULATED_FLOORS = (0.0, 0.2, 0.25, 0.3, 0.35, 0.4)


def _unit(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    vectors = np.asarray(vectors, dtype=np.float64)
    normed: npt.NDArray[np.float32] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normed


def coding_figures() -> None:
    from services.embedding.model import load_encoder

    encoder = load_encoder()
    vectors = {name: _unit(encoder.encode(texts)) for name, texts in STORES.items()}
    indexes = {name: LexicalIndex() for name in STORES}
    for name, texts in STORES.items():
        indexes[name].add_many((str(i), text) for i, text in enumerate(texts))

    def scores(query: str, store: str) -> tuple[npt.NDArray[np.float32], list[float]]:
        cosines = vectors[store] @ _unit(encoder.encode([query]))[0]
        idf = {term: indexes[store].idf(term) for term in lexical_terms(query)}
        return cosines, [coverage(idf, text) for text in STORES[store]]

    def about(title: str, rows: Sequence[tuple[str, str, int]]) -> None:
        print(title)
        cos_of, cov_of = [], []
        for query, store, target in rows:
            cosines, covers = scores(query, store)
            rank = int((cosines > cosines[target]).sum()) + 1
            cos_of.append(float(cosines[target]))
            cov_of.append(covers[target])
            print(f"  cos {cosines[target]:.3f}  coverage {covers[target]:.2f}  cosine rank {rank}  {query}")
        print(f"  cosine {min(cos_of):.3f}-{max(cos_of):.3f} (median {statistics.median(cos_of):.3f}); ", end="")
        print(f"coverage {min(cov_of):.2f}-{max(cov_of):.2f}")

    about("On-topic queries: the memory each is about", ON_TOPIC)
    about("Identifier queries: the memory that names the identifier", IDENTIFIERS)
    print("Absent topics: the best cosine and the best coverage in a store without the topic")
    best_cos, best_cov = [], []
    for query, store in ABSENT:
        cosines, covers = scores(query, store)
        best_cos.append(float(cosines.max()))
        best_cov.append(max(covers))
        print(f"  cos {cosines.max():.3f}  coverage {max(covers):.2f}  {query}")
    print(f"  best cosine {min(best_cos):.3f}-{max(best_cos):.3f}; best coverage up to {max(best_cov):.2f}")
    for title, pairs in (("Copies", COPIES), ("Not copies", NOT_COPIES)):
        print(f"{title}: cosine of the pair")
        for a, b in pairs:
            va, vb = _unit(encoder.encode([a, b]))
            print(f"  {float(va @ vb):.4f}  {a[:48]!r} | {b[:48]!r}")


async def locomo_figures(data: str, limit_conversations: int | None) -> None:
    from bench.locomo.runner import CONFIGS, USER, start_services, store_conversation
    from kernel.vectors import pack
    from protos.mnemex.common.v1 import common_pb2 as common_pb
    from protos.mnemex.memory.v1 import memory_service_pb2 as pb

    conversations = load(data, limit_conversations)
    rules = DEFAULT_LISTING
    plain, listed = [], []
    simulated: dict[float, list[QuestionResult]] = {floor: [] for floor in SIMULATED_FLOORS}
    nothing_relevant = 0
    evidence_cosines: list[float] = []  # each evidence turn's cosine to its question (categories 1-4)
    all_below: list[bool] = []  # per question: every evidence turn below the floor
    best_turn: list[float] = []  # per question: the best cosine of any turn
    off_topic_hits = 0
    off_topic = [query for query, _ in ABSENT[:20] if "dinner" not in query]
    with tempfile.TemporaryDirectory(prefix="mnemex-relevance-") as tmp:
        services = await start_services([CONFIGS["hybrid"]], Path(tmp))
        stub = services.memory_stubs["hybrid"]
        embed = services.embed_client.embed
        try:
            print(services.embedding)
            for convo in conversations:
                pairs = list(zip(convo.turns, [None, *convo.turns[:-1]], strict=True))
                contents = [turn_content(t, p) for t, p in pairs]
                turn_vectors = await embed(contents)
                dia_of = await store_conversation(stub, convo, contents, turn_vectors)
                text_of = {turn.dia_id: contents[i] for i, turn in enumerate(convo.turns)}
                index = LexicalIndex()  # what the service's history collection indexes
                index.add_many(text_of.items())
                scope = common_pb.Scope(user=USER, project=convo.sample_id)
                questions = [q for q in convo.questions if q.evidence]
                question_vectors = await embed([q.question for q in questions])
                position = {turn.dia_id: i for i, turn in enumerate(convo.turns)}
                cosines = _unit(question_vectors) @ _unit(turn_vectors).T
                for i, question in enumerate(questions):
                    if question.category in (1, 2, 3, 4):
                        mine = [float(cosines[i, position[d]]) for d in question.evidence if d in position]
                        evidence_cosines.extend(mine)
                        all_below.append(bool(mine) and max(mine) < rules.floor)
                        best_turn.append(float(cosines[i].max()))
                for i, question in enumerate(questions):
                    vector = pack(question_vectors[i : i + 1])

                    async def search(
                        limit: int, distinct: bool, q: str = question.question, v: bytes = vector
                    ) -> pb.SearchResponse:
                        request = pb.SearchRequest(
                            scope=common_pb.Scope(user=USER, project=convo.sample_id),  # noqa: B023 (awaited here)
                            query=q,
                            query_vector=v,
                            limit=limit,
                            distinct_relevant=distinct,
                        )
                        return await stub.Search(request, timeout=30)

                    base = await search(10, False)
                    shown = await search(10, True)
                    wide = await search(40, False)
                    session_of = convo.session_of
                    plain.append(score_question(question.category, question.evidence, _dias(base, dia_of), session_of))
                    listed_ids = _dias(shown, dia_of)
                    listed.append(score_question(question.category, question.evidence, listed_ids, session_of))
                    nothing_relevant += question.category in (1, 2, 3, 4) and not listed_ids
                    idf = {term: index.idf(term) for term in lexical_terms(question.question)}
                    for floor in SIMULATED_FLOORS:
                        kept = [
                            d
                            for m in wide.memories
                            if (d := dia_of.get(m.id, ""))
                            and (m.embedding_similarity >= floor or coverage(idf, text_of.get(d, "")) >= rules.coverage)
                        ][:10]
                        simulated[floor].append(score_question(question.category, question.evidence, kept, session_of))
                off_vectors = await embed(off_topic)
                for i, query in enumerate(off_topic):
                    request = pb.SearchRequest(
                        scope=scope,
                        query=query,
                        query_vector=pack(off_vectors[i : i + 1]),
                        limit=10,
                        distinct_relevant=True,
                    )
                    reply = await stub.Search(request, timeout=30)
                    off_topic_hits += bool(reply.memories)
                print(f"  {convo.sample_id}: {len(convo.turns)} turns, {len(questions)} questions")
        finally:
            await services.close()
    main = "1-4"
    print(f"categories 1-4 (n={int(summarise(plain)[main]['n'])}):   recall@5  recall@10  any@10   MRR")
    for name, results in (("plain Search", plain), (f"distinct_relevant ({rules.floor})", listed)):
        row = summarise(results)[main]
        print(
            f"  {name:<26} {row['recall@5']:.3f}     {row['recall@10']:.3f}      {row['any@10']:.3f}   {row['mrr']:.3f}"
        )
    changes = [
        (a.scores["recall@10"], b.scores["recall@10"]) for a, b in zip(plain, listed, strict=True) if a.category < 5
    ]
    lost = sum(after < before for before, after in changes)
    gained = sum(after > before for before, after in changes)
    print(f"  questions whose recall@10 fell / rose with distinct_relevant: {lost} / {gained}")
    print("recall@10 for other floors, simulated on the plain search's top 40:")
    for floor, results in simulated.items():
        print(f"  simulated floor {floor:.2f}    {summarise(results)[main]['recall@10']:.3f}")
    print(f"questions of categories 1-4 with no relevant result: {nothing_relevant}")
    ev = np.asarray(evidence_cosines)
    print(
        f"dense cosine of question to evidence turn: below 0.25 {np.mean(ev < 0.25):.3f}, "
        f"below {rules.floor} {np.mean(ev < rules.floor):.3f}; questions with all evidence below "
        f"{rules.floor}: {np.mean(all_below):.3f}; best turn of a question below {rules.floor}: "
        f"{np.mean(np.asarray(best_turn) < rules.floor):.3f} (1st percentile {np.percentile(best_turn, 1):.2f})"
    )
    print(f"off-topic coding queries with a relevant result: {off_topic_hits} of {len(off_topic) * len(conversations)}")


def _dias(reply: SearchResponse, dia_of: dict[str, str]) -> list[str]:
    return [dia_of.get(m.id, "") for m in reply.memories]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search_relevance", description=__doc__.split("\n")[0])
    parser.add_argument("--locomo", action="store_true", help="also measure LoCoMo through the Search RPC")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo-format JSON file")
    parser.add_argument("--limit-conversations", type=int, default=None)
    args = parser.parse_args(argv)
    coding_figures()
    if args.locomo:
        asyncio.run(locomo_figures(args.data, args.limit_conversations))


if __name__ == "__main__":
    main()
