"""What a prompt's search results become before injection: each thing said once, on topic.

Pure module (numpy for the handful of candidate vectors). ``select`` takes the
ranked results of one prompt and decides, for each, whether it is injected and
why:

- **current session**: a conversation memory (working, history, patterns)
  stored from the session that is asking; the model already has that turn in
  its context, so showing it again only spends tokens;
- **relevance floor**: a result whose embedding similarity to the prompt is
  below ``floor``, or below ``relative_floor`` times the best result's, is
  left out instead of filling the k slots with off-topic
  lines (results without a similarity, and facts the kg linked to the
  prompt's entities, are kept);
- **duplicate**: a conversation memory whose vector is within ``duplicate_min``
  cosine of a conversation line already kept (copies across working / history /
  patterns, an exchange and the takeaway written from it) is collapsed into
  that line, provided the two also agree in words once the prompt's own words
  are set aside (``residual_min``): two answers to one problem share the
  problem's words and sit as close in cosine (0.91 measured) as an exchange
  and its takeaway, but a wrong fix and the right one name different things.
  Facts and books never collapse, nor does a line that asserts a superseded
  value into one that does not. The line kept
  is the best ranked of the group; it shows the outcome counts of the member
  with the most judged outcomes (copies are often scored in the same turns,
  so adding them up would count the same evidence twice);
- **ordering**: lines that speak for this project (and user-wide facts) come
  first; a memory_bank fact stated in another project and a conversation
  memory that asserts a superseded value come after them, and say so.

Cost: one ``k x k`` product over vectors the mirror already holds (k is the
handful of results), no model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from services.memory.domain.fact_scope import is_foreign_fact
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import SCORED_COLLECTIONS
from services.memory.domain.rank_parts import RankParts

KEPT = "kept"
CURRENT_SESSION = "current session"
BELOW_FLOOR = "below relevance floor"
DUPLICATE = "duplicate"
# metadata key on a conversation memory that asserts a value a newer fact replaced
STALE_VALUE_OF = "stale_value_superseded_by"
# metadata key on a fact (or a turn stating its value) that a newer fact may replace: the same
# typed setting with a partly shared subject (``fact_slots``), not sure enough to archive
POSSIBLY_SUPERSEDED_BY = "possibly_superseded_by"
# metadata key set on an injected fact of another project: that project, for its label
FROM_PROJECT = "from_project"


@dataclass(frozen=True)
class SelectionRules:
    # cosine to the prompt: at least ``floor``, and at least ``relative_floor`` x the best result's.
    # On LoCoMo (3 conversations, 383 questions) this cut keeps recall@5 at 0.703 (recall@10
    # 0.789 -> 0.785); 0.25 flat would cost 0.004 / 0.009, 0.5 x best 0.008 / 0.016.
    floor: float = 0.15
    relative_floor: float = 0.4
    duplicate_min: float = 0.8  # cosine between two lines
    residual_min: float = 0.5  # word overlap of two lines beyond the prompt's words


DEFAULT_SELECTION = SelectionRules()


@dataclass(frozen=True)
class Choice:
    id: str
    kept: bool
    reason: str
    merged_ids: tuple[str, ...] = ()
    relevance: float = 0.0
    # kept lines only: what made the rank, to 4 places; None when the search path kept none
    parts: RankParts | None = None

    def as_dict(self) -> dict[str, object]:
        """The choice as plain data, as a turn's record keeps it (JSON-ready)."""
        return {
            "id": self.id,
            "kept": self.kept,
            "reason": self.reason,
            "merged_ids": list(self.merged_ids),
            "relevance": self.relevance,
            "parts": self.parts.as_dict() if self.parts is not None else None,
        }


def _relevance(memory: NormalizedMemory) -> float | None:
    return memory.embedding_similarity


def _judged(memory: NormalizedMemory) -> int:
    return memory.worked_count + memory.partial_count + memory.failed_count


def _demoted(memory: NormalizedMemory, project: str) -> bool:
    return (
        is_foreign_fact(memory, project)
        or bool(memory.metadata.get(STALE_VALUE_OF))
        or bool(memory.metadata.get(POSSIBLY_SUPERSEDED_BY))
    )


def select(
    ranked: Sequence[NormalizedMemory],
    vectors: Sequence[np.ndarray | None],
    *,
    session_id: str,
    project: str,
    limit: int,
    rules: SelectionRules = DEFAULT_SELECTION,
    linked: frozenset[str] = frozenset(),
    prompt: str = "",
    beside: Sequence[tuple[NormalizedMemory, np.ndarray | None]] = (),
) -> tuple[list[NormalizedMemory], list[Choice]]:
    """(the memories to inject, best first, at most ``limit``; a choice for every result).

    ``vectors[i]`` is the unit vector of ``ranked[i]`` (None when unknown: never collapsed);
    ``linked``: ids the kg tied to the prompt's entities, exempt from the relevance floor;
    ``beside``: lines shown anyway (the kg's lessons) with their vectors: a result that repeats
    one of them is collapsed into it instead of being said twice."""
    lines = [m for m, _ in beside] + list(ranked)
    line_vectors = [v for _, v in beside] + list(vectors) + [None] * (len(ranked) - len(vectors))
    first = len(beside)
    similarities = [r for r in (_relevance(m) for m in ranked) if r is not None]
    cut = max(rules.floor, rules.relative_floor * max(similarities, default=0.0))
    asked = _words(prompt)
    residual = [_words(m.content) - asked for m in lines]
    kept: list[int] = list(range(first))
    merged: dict[int, list[int]] = {}
    choices: dict[int, Choice] = {}
    for i in range(first, len(lines)):
        memory = lines[i]
        relevance = _relevance(memory)
        shown = 0.0 if relevance is None else round(relevance, 4)
        if session_id and memory.collection in SCORED_COLLECTIONS and memory.metadata.get("session_id") == session_id:
            choices[i] = Choice(memory.id, False, CURRENT_SESSION, relevance=shown)
            continue
        if relevance is not None and relevance < cut and memory.id not in linked:
            choices[i] = Choice(memory.id, False, f"{BELOW_FLOOR} ({relevance:.2f} < {cut:.2f})", (), shown)
            continue
        same_words = [j for j in kept if _overlap(residual[i], residual[j]) >= rules.residual_min]
        twin = _twin(i, [j for j in same_words if _collapsible(lines[j], memory)], line_vectors, rules.duplicate_min)
        if twin is not None:
            merged.setdefault(twin, []).append(i)
            where = " (shown as a lesson)" if twin < first else ""
            choices[i] = Choice(memory.id, False, f"{DUPLICATE} of {lines[twin].id}{where}", (lines[twin].id,), shown)
            continue
        kept.append(i)
    order = sorted(kept[first:], key=lambda i: _demoted(lines[i], project))  # stable: local lines first
    chosen = order[:limit]
    out: list[NormalizedMemory] = []
    for i in order:
        memory = lines[i]
        relevance = _relevance(memory)
        shown = 0.0 if relevance is None else round(relevance, 4)
        group = merged.get(i, [])
        if i not in chosen:
            choices[i] = Choice(memory.id, False, f"over the limit of {limit}", (), shown)
            continue
        why = KEPT if relevance is None else f"{KEPT}: relevance {relevance:.2f}"
        if _demoted(memory, project):
            below = (
                f"fact of project {memory.project}"
                if is_foreign_fact(memory, project)
                else "asserts a superseded value"
            )
            why += f", shown below local lines ({below})"
        ranked_by = memory.rank_parts.rounded() if memory.rank_parts is not None else None
        choices[i] = Choice(memory.id, True, why, tuple(lines[j].id for j in group), shown, ranked_by)
        chosen_memory = _with_evidence(memory, [lines[j] for j in group])
        if is_foreign_fact(memory, project):
            chosen_memory = replace(chosen_memory, metadata={**chosen_memory.metadata, FROM_PROJECT: memory.project})
        out.append(chosen_memory)
    return out, [choices[i] for i in range(first, len(lines))]


_TOKEN = re.compile(r"[a-z0-9][a-z0-9_./-]*")
_COMMON = frozenset(
    "the and for with that this from into are was were you your our have has had not but can will "
    "user assistant then than them they its it's what when where which how why does did done "
    "run runs use uses try tried fix fixed fixes set get add make see now just also need needs work works "
    "worked should could would there here".split()
)


def _words(text: str) -> frozenset[str]:
    """The words that can tell two lines apart: lower-case tokens of 3+ characters, common words out."""
    return frozenset(w.strip("./-") for w in _TOKEN.findall(text.lower()) if len(w) > 2 and w not in _COMMON)


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared share of the smaller set; 1.0 when either says nothing beyond the prompt."""
    if not a or not b:
        return 1.0
    return len(a & b) / min(len(a), len(b))


def _collapsible(kept: NormalizedMemory, other: NormalizedMemory) -> bool:
    """Only conversation memories collapse, and a line with a superseded value never into one without."""
    return (
        kept.collection in SCORED_COLLECTIONS
        and other.collection in SCORED_COLLECTIONS
        and bool(kept.metadata.get(STALE_VALUE_OF)) == bool(other.metadata.get(STALE_VALUE_OF))
    )


def _twin(i: int, kept: list[int], vectors: Sequence[np.ndarray | None], floor: float) -> int | None:
    mine = vectors[i] if i < len(vectors) else None
    if mine is None:
        return None
    for j in kept:
        other = vectors[j] if j < len(vectors) else None
        if other is not None and float(np.dot(mine, other)) >= floor:
            return j
    return None


def _with_evidence(memory: NormalizedMemory, copies: list[NormalizedMemory]) -> NormalizedMemory:
    """``memory`` with the outcome counts of the group member that has the most judged outcomes."""
    if not copies:
        return memory
    best = max([memory, *copies], key=_judged)
    collapsed = {**memory.metadata, "collapsed_ids": ",".join(c.id for c in copies)}
    return replace(
        memory,
        worked_count=best.worked_count,
        partial_count=best.partial_count,
        failed_count=best.failed_count,
        metadata=collapsed,
    )
