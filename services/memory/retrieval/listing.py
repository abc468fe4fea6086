"""A search answered as a list (``SearchRequest.distinct_relevant``): distinct results, relevant ones only.

``list_distinct`` ranks a window of results wider than the limit
(``Searcher``'s ranking, the query embedded once), reads their stored vectors
from the mirrors, judges each against the relevance floor and collapses copies
(``domain.distinct_results``). When fewer than ``limit`` distinct relevant
results come out of a full window (a backfill stores the same exchange many
times), the window grows, so the limit is filled after collapsing whenever the
store has enough. The first window is twice the limit, which for the default
limit of 10 keeps the candidate pool, and so the ranking, exactly the plain
search's (``candidates.candidate_count``: 60 a side either way).

Relevance needs a query (text or vector). Without one (a time window, an id)
every result is listed, copies still collapsed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from services.memory.domain.arrays import Vector
from services.memory.domain.distinct_results import DEFAULT_LISTING, Listed, ListingRules, distinct, is_relevant
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import Scope
from services.memory.retrieval.candidates import lexical_terms
from services.memory.retrieval.mirror_text import MirrorTexts
from services.memory.retrieval.text import terms
from services.memory.storage.memory_store import MemoryStore

FIRST_WINDOW = 2  # x the limit
GROWTH = 4
MAX_WINDOW = 400


@dataclass(frozen=True)
class Listing:
    shown: list[Listed]
    judged: bool  # the relevance floor applied: every result shown is relevant to the query


Rank = Callable[[int], Awaitable[list[NormalizedMemory]]]


async def list_distinct(
    rank: Rank,
    store: MemoryStore,
    texts: MirrorTexts,
    scope: Scope,
    *,
    query: str,
    judged: bool,
    limit: int,
    rules: ListingRules = DEFAULT_LISTING,
) -> Listing:
    """``rank(n)``: the search's best ``n`` results; ``judged``: a query was given, so apply the floor."""
    window = max(FIRST_WINDOW * limit, limit)
    while True:
        ranked = await rank(window)
        relevant = _relevance(store, texts, scope, query, ranked, rules) if judged else [True] * len(ranked)
        shown = distinct(ranked, _vectors(store, scope, ranked), relevant, limit, rules)
        if len(shown) >= limit or len(ranked) < window or window >= MAX_WINDOW:
            return Listing(shown, judged)
        window = min(window * GROWTH, MAX_WINDOW)


def _vectors(store: MemoryStore, scope: Scope, ranked: Sequence[NormalizedMemory]) -> list[Vector | None]:
    """The mirrored unit vector of each result (None where its mirror is not built)."""
    by_collection: dict[str, list[str]] = {}
    for memory in ranked:
        by_collection.setdefault(memory.collection, []).append(memory.id)
    found = store.mirrored_vectors(scope, by_collection)
    return [found.get(m.id) for m in ranked]


def _relevance(
    store: MemoryStore,
    texts: MirrorTexts,
    scope: Scope,
    query: str,
    ranked: Sequence[NormalizedMemory],
    rules: ListingRules,
) -> list[bool]:
    """Whether each result passes the floor: its cosine, else its coverage of the query's words."""
    below = [m for m in ranked if m.embedding_similarity is None or m.embedding_similarity < rules.floor]
    covered = lexical_coverage(store, texts, scope, query, below)
    return [is_relevant(m.embedding_similarity, covered.get(m.id, 0.0), rules) for m in ranked]


def lexical_coverage(
    store: MemoryStore, texts: MirrorTexts, scope: Scope, query: str, memories: Sequence[NormalizedMemory]
) -> dict[str, float]:
    """Id -> the share of the query's idf mass (idf in the memory's collection) that the memory's terms hold.

    A query term the collection never saw has the highest idf there, so a memory that
    shares only the common words of an off-topic query covers little of it. Empty
    (nothing covered) in dense mode, which keeps no keyword index, or for a query of stopwords.
    """
    wanted = lexical_terms(query) if query and texts.lexical else []
    if not wanted or not memories:
        return {}
    by_collection: dict[str, list[NormalizedMemory]] = {}
    for memory in memories:
        by_collection.setdefault(memory.collection, []).append(memory)
    out: dict[str, float] = {}
    for collection, members in by_collection.items():
        with store.mirrors.read(scope, collection) as mirror:
            index = texts.synced(mirror).lexical
            if index is None:
                continue
            idf = {term: index.idf(term) for term in wanted}
        for memory in members:
            out[memory.id] = coverage(idf, memory.content)
    return out


def coverage(idf: Mapping[str, float], content: str) -> float:
    """The share of the query's idf mass (``idf``: each query term's idf) that ``content``'s terms hold."""
    total = sum(idf.values())
    if total <= 0:
        return 0.0
    have = set(terms(content))
    return sum(weight for term, weight in idf.items() if term in have) / total
