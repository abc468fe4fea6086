"""Search results as a person or the model reads them: each thing once, and only what is relevant.

Pure module (numpy for the handful of result vectors). The listing surfaces
(search_memory, the REST search, ``mnemex search``) ask the Search RPC for
``distinct_relevant``; ``retrieval.listing`` then passes the ranked results
through ``distinct``:

- **copies collapse.** Two results are copies when their texts are equal once
  case and whitespace are normalised (``text_key``), or when their stored
  vectors are within ``duplicate_min`` cosine *and* they say the same words in
  the same order, leaving out filler words and sentence punctuation
  (``word_sequence``). The best ranked copy is shown with the ids of the others;
  the limit counts distinct results, so ten results are ten different things
  when the store has them.
- **a relevance floor.** With a query, a result is relevant when its dense
  cosine to the query is at least ``floor``, or when it contains at least
  ``coverage`` of the query's words weighted by their idf in its collection
  (a query word the collection never saw weighs the most, ``lexical_coverage``).
  The rest are left out instead of filling the k slots, and an empty answer
  means nothing is relevant.

Why these two signals and not the hybrid relevance or the final rank: both of
those are relative to the query's own results. The BM25 share is the score over
the best BM25 score *of this query*, so the best keyword hit of an off-topic
query still has share 1.0, and the final rank mixes in outcome scores. The
cosine is absolute, and so is the coverage (a share of the query's own idf mass).

Calibration (all-MiniLM-L6-v2 int8, the service's model; ``python -m bench.search_relevance``
prints the first three, ``--locomo`` the last two):

- *On-topic coding queries* (22 queries over a 20-memory React store and a
  10-memory devops store, exchanges and tool observations as the hooks write
  them): the cosine of the memory each query is about is 0.366-0.837 (median
  0.716), and it ranks first by cosine for every one.
- *Absent topics* (30 queries such as "terraform state lock" or "kafka consumer
  lag" against the store without them): the best cosine is 0.049-0.267, except
  "cron job timezone on the server", 0.409, against the date picker's timezone
  bug (a near topic, left to the ranking). Their best coverage is 0.26
  ("terraform state lock" meets "state" in ``useState``).
- *Identifier queries* ("AbortController", "moduleNameMapper", "parseISO",
  "createRoot", "TS2322", ...): cosine 0.031-0.330 to the very memory that
  names them ("parseISO" ranks 17th of 20 by cosine), below any cosine floor
  that stops the absent topics; their coverage is 1.0. So ``coverage`` 0.5 keeps
  every identifier hit and lets no absent topic through.
- *LoCoMo* (760 questions of categories 1-4; dense cosine of each question to
  its evidence turns): 9.1 % of evidence turns lie below 0.30 (3.9 % below
  0.25), 2.6 % of questions have all their evidence below 0.30, and the best turn
  of a question is above 0.30 for all but 1 in 1,000 (1st percentile 0.42).
- *LoCoMo through the Search RPC* (the benchmark's store, hybrid, limit 10, two
  runs alike): recall@10 0.774 for the plain search and 0.771 with
  ``distinct_relevant`` (any@10 0.843 / 0.838, MRR 0.522 / 0.522); question by
  question, recall@10 fell for 9 and rose for 7 of 760 (a result below the floor
  makes room for evidence ranked 11th-20th), a paired difference well inside
  noise. Floors simulated on the same run's top 40: 0.20 0.777, 0.25 0.779,
  0.30 0.775, 0.35 0.763, 0.40 0.753 (0.778 without a floor). No question of
  categories 1-4 was left with nothing relevant, and none of 95 off-topic coding
  queries (19 per conversation) got a relevant result.

So ``floor`` is 0.30: above every absent topic but the near one (0.267 the
highest), below every on-topic query (0.366 the lowest), and on LoCoMo within
the benchmark's noise; 0.35 would start to cost recall (-0.015), 0.25 would let
two absent topics through.

Copies: cosine alone cannot tell a copy from a changed fact. Measured pairs:
an exchange and the same exchange with "please" added, a "?" dropped, "dev"
for "development", "dark-mode" for "dark mode" or "so I switched" for
"; switched": 0.969-0.985; but "2 failed, 41 passed" against "1 failed, 42
passed" is 0.979, "bumped react to 18.2.0" against "18.3.1" 0.972, "Enable
strict mode" against "Disable strict mode" 0.973, and "Deploy to staging
first, then production" against its reverse 0.986. Hence two tests: the same
word sequence, which every one of those different pairs fails and every copy
passes, and a cosine of at least 0.95 as a second check on what the word test
ignores (filler words, punctuation). 0.97, the first guess, would miss the
"please" copy (0.969); no pair that passes the word test measured below 0.969.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from services.memory.domain.arrays import Vector
from services.memory.domain.memory_view import NormalizedMemory


@dataclass(frozen=True)
class ListingRules:
    floor: float = 0.30  # dense cosine of the query to the memory
    coverage: float = 0.5  # idf-weighted share of the query's terms the memory contains
    duplicate_min: float = 0.95  # cosine of two stored vectors, with the same word sequence


DEFAULT_LISTING = ListingRules()


@dataclass(frozen=True)
class Listed:
    """A result shown, and the ids of its copies (best ranked first) that were collapsed into it."""

    memory: NormalizedMemory
    duplicate_ids: tuple[str, ...] = ()


_SPACE = re.compile(r"\s+")
# words (letters and digits), and runs of other symbols, which may carry meaning in code ("!=" against "==")
_TOKEN = re.compile(r"[^\W_]+|[^\w\s]+")
_SENTENCE_MARKS = frozenset(".,;:!?'\"`()[]-…")
_FILLER = frozenset("a an the please so i to in on at of and or just now then ok okay also that this it its".split())


def text_key(content: str) -> str:
    """The text with case and whitespace normalised: equal keys are the same text."""
    return _SPACE.sub(" ", content.casefold()).strip()


def word_sequence(content: str) -> tuple[str, ...]:
    """The words of a text in order, without filler words and sentence punctuation."""
    out: list[str] = []
    for token in _TOKEN.findall(content.casefold()):
        if token in _FILLER or all(ch in _SENTENCE_MARKS for ch in token):
            continue
        out.append(token)
    return tuple(out)


def is_relevant(cosine: float | None, coverage: float, rules: ListingRules = DEFAULT_LISTING) -> bool:
    """Relevant to the query: close in meaning, or holding enough of its (idf-weighted) words."""
    return (cosine is not None and cosine >= rules.floor) or coverage >= rules.coverage


def distinct(
    ranked: Sequence[NormalizedMemory],
    vectors: Sequence[Vector | None],
    relevant: Sequence[bool],
    limit: int,
    rules: ListingRules = DEFAULT_LISTING,
) -> list[Listed]:
    """At most ``limit`` distinct results, best first, each with the copies found among ``ranked``.

    ``vectors[i]``: the stored unit vector of ``ranked[i]`` (None: compared by text alone);
    ``relevant[i]``: whether ``ranked[i]`` may be shown. A copy of a result shown joins it
    whether or not it passed the floor itself; results past the limit still join as copies.
    """
    groups: list[tuple[NormalizedMemory, list[str]]] = []
    by_key: dict[str, int] = {}
    sequences: dict[int, tuple[str, ...]] = {}  # group -> its word sequence, computed when first needed
    # the groups' vectors as rows (one product per result, not one dot per pair); a group without one: row of 0
    matrix: Vector | None = None
    for i, memory in enumerate(ranked):
        key = text_key(memory.content)
        twin = by_key.get(key)
        vector = vectors[i] if i < len(vectors) else None
        if twin is None and vector is not None and groups and matrix is not None:
            words: tuple[str, ...] | None = None
            close = np.flatnonzero(matrix[: len(groups)] @ vector >= rules.duplicate_min)
            for g in close.tolist():
                words = word_sequence(memory.content) if words is None else words
                if g not in sequences:
                    sequences[g] = word_sequence(groups[g][0].content)
                if sequences[g] == words:
                    twin = g
                    break
        if twin is not None:
            groups[twin][1].append(memory.id)
            continue
        if relevant[i] and len(groups) < limit:
            if vector is not None:
                if matrix is None:
                    matrix = np.zeros((limit, len(vector)), dtype=np.asarray(vector).dtype)
                matrix[len(groups)] = vector
            by_key[key] = len(groups)
            groups.append((memory, []))
    return [Listed(memory, tuple(copies)) for memory, copies in groups]
