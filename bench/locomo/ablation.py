"""In-process retrieval ablation on LoCoMo (no services): what each change buys.

    python -m bench.locomo.ablation [--data PATH] [--limit-conversations N] [--only NAME]

Uses the real encoder and the same pure modules the memory service uses
(``LexicalIndex``, ``hybrid_relevance``), with exact cosine in
numpy instead of Chroma, and the service's candidate rule: dense top-N plus
lexical top-N (N = 30), every candidate scored on the same scale. Embeddings
are cached under $TMPDIR between runs. Its figures guide choices; the figures
that count come from ``python -m bench.locomo`` (through the gRPC services).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bench.locomo.dataset import DEFAULT_DATA, Conversation, Turn, load
from bench.locomo.memory_text import baseline_content, turn_content
from bench.locomo.metrics import MEASURES, QuestionResult, score_question, summarise
from services.memory.retrieval.hybrid import (
    QueryPlan,
    RetrievalSettings,
    hybrid_relevance,
    lexical_shares,
)
from services.memory.retrieval.lexical import LexicalIndex
from services.memory.retrieval.query_expansion import expand_query
from services.memory.retrieval.session_boost import Around, boost, context_factors

DocText = Callable[[Turn, Turn | None], str]


def rrf_fuse(rankings: list[list[str]], k: int = 60) -> dict[str, float]:
    """Reciprocal rank fusion, the alternative the service's blend was chosen over (higher = better).

    Each best-first ranking gives an id ``1 / (k + rank)``, an id counted once per ranking at its best rank.
    """
    fused: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, doc_id in enumerate(ranking, start=1):
            if doc_id not in seen:
                seen.add(doc_id)
                fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (k + rank)
    return fused


def speaker_text(turn: Turn, previous: Turn | None) -> str:
    return baseline_content(turn, previous)


def dated(turn: Turn, previous: Turn | None) -> str:
    return turn_content(turn, None)


def dated_in_reply(turn: Turn, previous: Turn | None) -> str:
    return turn_content(turn, previous)


@dataclass(frozen=True)
class Variant:
    dense_text: DocText
    lexical_text: DocText | None  # None: dense only
    fusion: str = "blend"  # "blend" (hybrid_relevance), "rrf", or "rrf-blend" (0.7 cosine + 0.3 RRF/best)
    time_bonus: float = 0.0
    expansion: bool = False
    rrf_k: int = 60
    candidates: int = 30  # N: dense top N and BM25 top N (the service's candidate_count)
    neighbour_weight: float = 0.0  # session context (retrieval.session_boost)
    session_weight: float = 0.0


class Embedder:
    def __init__(self) -> None:
        from services.embedding.model import load_encoder

        self.encoder = load_encoder()
        self.cache_dir = Path(tempfile.gettempdir()) / "mnemex-locomo-emb"
        self.cache_dir.mkdir(exist_ok=True)

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        key = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:24]
        path = self.cache_dir / f"{key}.npy"
        if path.exists():
            cached: npt.NDArray[np.float32] = np.load(path)
            return cached
        vectors = self.encoder.encode(texts)
        np.save(path, vectors)
        return vectors


def _lexical_hits(index: LexicalIndex, question: str, expansion: bool, n: int) -> list[tuple[str, float]]:
    if not expansion:
        return index.search(question, n)
    expanded = expand_query(question)
    return index.search_terms(list(expanded.lexical_terms), n, weights=expanded.lexical_terms)


def session_layout(convo: Conversation) -> tuple[dict[str, str], dict[str, Around]]:
    """Each turn's session and its neighbours in it: what the service's SessionOrder holds."""
    sessions = {t.dia_id: f"session-{t.session}" for t in convo.turns}
    around: dict[str, Around] = {}
    for i, turn in enumerate(convo.turns):
        before = convo.turns[i - 1] if i > 0 and convo.turns[i - 1].session == turn.session else None
        after = convo.turns[i + 1] if i + 1 < len(convo.turns) and convo.turns[i + 1].session == turn.session else None
        around[turn.dia_id] = (before.dia_id if before else None, after.dia_id if after else None)
    return sessions, around


def rank(
    variant: Variant,
    question: str,
    ids: list[str],
    sims: npt.NDArray[np.float32],
    index: LexicalIndex | None,
    texts: dict[str, str],
    layout: tuple[dict[str, str], dict[str, Around]] | None = None,
) -> list[str]:
    order = np.argsort(-sims)
    n = variant.candidates
    if index is None:
        return [ids[i] for i in order[:n]]
    dense = [ids[i] for i in order[:n]]
    hits = _lexical_hits(index, question, variant.expansion, n)
    sim_of = dict(zip(ids, sims.tolist(), strict=True))
    if variant.fusion in ("rrf", "rrf-blend"):
        fused = rrf_fuse([dense, [d for d, _ in hits]], k=variant.rrf_k)
        if variant.fusion == "rrf-blend":
            best = 2.0 / (variant.rrf_k + 1)
            fused = {d: 0.7 * max(0.0, sim_of[d]) + 0.3 * value / best for d, value in fused.items()}
        return sorted(fused, key=lambda d: (-fused[d], d))
    shares = lexical_shares(hits)
    plan = QueryPlan.of(question)
    settings = RetrievalSettings(mode="hybrid", time_bonus=variant.time_bonus)
    scored = {
        d: hybrid_relevance(sim_of[d], shares.get(d), plan, texts[d], settings, lexical_ran=bool(shares))
        for d in {*dense, *shares}
    }
    if layout is not None and (variant.neighbour_weight > 0 or variant.session_weight > 0):
        sessions, around = layout
        found = list(scored)
        factors = context_factors(
            found,
            np.asarray([scored[d] for d in found]),
            [sessions[d] for d in found],
            [around[d] for d in found],
            neighbour_weight=variant.neighbour_weight,
            session_weight=variant.session_weight,
        )
        scored = {d: boost(scored[d], f) for d, f in zip(found, factors.tolist(), strict=True)}
    return sorted(scored, key=lambda d: (-scored[d], d))


def run_variant(conversations: list[Conversation], embedder: Embedder, variant: Variant) -> list[QuestionResult]:
    results: list[QuestionResult] = []
    for convo in conversations:
        previous: list[Turn | None] = [None, *convo.turns[:-1]]
        pairs = list(zip(convo.turns, previous, strict=True))
        ids = [t.dia_id for t in convo.turns]
        doc_vectors = embedder.embed([variant.dense_text(t, p) for t, p in pairs])
        index: LexicalIndex | None = None
        texts = {t.dia_id: variant.dense_text(t, p) for t, p in pairs}
        if variant.lexical_text is not None:
            index = LexicalIndex()
            for turn, prev in pairs:
                index.add(turn.dia_id, variant.lexical_text(turn, prev))
        questions = [q for q in convo.questions if q.evidence]
        layout = session_layout(convo)
        query_vectors = embedder.embed([q.question for q in questions])
        for question, qvec in zip(questions, query_vectors, strict=True):
            ranked = rank(variant, question.question, ids, doc_vectors @ qvec, index, texts, layout)
            results.append(score_question(question.category, question.evidence, ranked, convo.session_of))
    return results


BASE = Variant(dense_text=speaker_text, lexical_text=None)
FINAL_V1 = replace(BASE, dense_text=dated_in_reply, lexical_text=dated_in_reply, time_bonus=0.05)  # issue 7's final
STEPS: list[tuple[str, Variant]] = [
    ("dense only (README baseline)", BASE),
    ("+ BM25, RRF k=60", replace(BASE, lexical_text=speaker_text, fusion="rrf")),
    ("+ BM25, cosine/BM25 blend", replace(BASE, lexical_text=speaker_text)),
    ("+ session date in content", replace(BASE, dense_text=dated, lexical_text=dated)),
    ("+ replied-to turn in content", replace(BASE, dense_text=dated_in_reply, lexical_text=dated_in_reply)),
    ("  (replied-to turn lexical only)", replace(BASE, dense_text=dated, lexical_text=dated_in_reply)),
    (
        "  (0.7 cosine + 0.3 RRF/best instead)",
        replace(BASE, dense_text=dated_in_reply, lexical_text=dated_in_reply, fusion="rrf-blend"),
    ),
    ("+ time cue bonus 0.05", replace(BASE, dense_text=dated_in_reply, lexical_text=dated_in_reply, time_bonus=0.05)),
    (
        "+ synonym expansion",
        replace(BASE, dense_text=dated_in_reply, lexical_text=dated_in_reply, time_bonus=0.05, expansion=True),
    ),
    ("+ 60 candidates a side (not 30)", replace(FINAL_V1, candidates=60)),
    ("+ neighbour turns (session context)", replace(FINAL_V1, candidates=60, neighbour_weight=0.5)),
    ("+ session peers (final)", replace(FINAL_V1, candidates=60, neighbour_weight=0.5, session_weight=0.4)),
    ("  (peers alone, no neighbours)", replace(FINAL_V1, candidates=60, session_weight=0.4)),
    ("  (context with 30 candidates)", replace(FINAL_V1, neighbour_weight=0.5, session_weight=0.4)),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("LOCOMO_DATA", str(DEFAULT_DATA)))
    parser.add_argument("--limit-conversations", type=int)
    parser.add_argument("--only", action="append", help="run only steps whose name contains this")
    args = parser.parse_args()
    conversations = load(args.data, args.limit_conversations)
    embedder = Embedder()
    print(f"{'step (categories 1-4)':36s} {'n':>4s}  " + "  ".join(f"{m:>9s}" for m in MEASURES))
    for name, variant in STEPS:
        if args.only and not any(o in name for o in args.only):
            continue
        start = time.perf_counter()
        summary = summarise(run_variant(conversations, embedder, variant))["1-4"]
        cells = "  ".join(f"{summary[m]:9.3f}" for m in MEASURES)
        print(f"{name:36s} {int(summary['n']):4d}  {cells}   ({time.perf_counter() - start:.1f}s)", flush=True)


if __name__ == "__main__":
    main()
