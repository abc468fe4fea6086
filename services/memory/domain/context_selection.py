"""What a prompt's search results become before injection: each thing said once, on topic.

Pure module (numpy for the handful of candidate vectors). ``select`` takes the
ranked results of one prompt and decides, for each, whether it is injected and
why:

- **current session**: a conversation memory (working, history, patterns)
  stored from the session that is asking; the model already has that turn in
  its context, so showing it again only spends tokens;
- **another project's fact**: a memory_bank fact that belongs to another
  project (``fact_scope``) is never injected; user-wide facts hold everywhere
  (get-context's search already leaves such facts out, ``SearchParams.fact_project``,
  so they cannot crowd the project's own out of the results; this is the guard);
- **superseded value**: a conversation memory that states a value a newer fact
  replaced (``STALE_VALUE_OF``) is not shown; the fact that holds now takes its
  place (from ``current`` when the search did not find it), and its line notes
  the old value (``fact_history``);
- **relevance floor**: a result whose embedding similarity to the prompt is
  below ``floor``, or below ``relative_floor`` times the best result's, is
  left out instead of filling the k slots with off-topic
  lines (results without a similarity, facts the kg linked to the
  prompt's entities, and a current fact taking a stale line's place are kept);
- **duplicate**: a conversation memory whose vector is within ``duplicate_min``
  cosine of a conversation line already kept (copies across working / history /
  patterns, an exchange and the takeaway written from it) is collapsed into
  that line, provided the two also agree in words once the prompt's own words
  are set aside (``residual_min``): two answers to one problem share the
  problem's words and sit as close in cosine (0.91 measured) as an exchange
  and its takeaway, but a wrong fix and the right one name different things.
  The line kept is the best ranked of the group; it shows the outcome counts
  of the member with the most judged outcomes (copies are often scored in the
  same turns, so adding them up would count the same evidence twice);
- **a fact and the exchange that stated it**: a kept conversation memory that
  states a kept fact is collapsed into the fact, which takes the better of the
  two places: its text holds the fact's statement (``states_fact``: "FYI:
  <fact>"), or it names the fact's words, every number among them
  (``covers_fact``), within ``duplicate_min`` cosine of it (an exchange and
  the fact stored from it measure 0.81 to 0.88; an exchange that only uses
  the fact, 0.56); facts and books never collapse otherwise;
- **ordering**: a line whose value a newer fact may have replaced
  (``POSSIBLY_SUPERSEDED_BY``) comes after the others, and says so.

Cost: one ``k x k`` product over vectors the mirror already holds (k is the
handful of results), no model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from kernel.context_choice import ContextChoice
from services.memory.domain.arrays import Vector
from services.memory.domain.fact_scope import is_foreign_fact
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import MEMORY_BANK, SCORED_COLLECTIONS

KEPT = "kept"
CURRENT_SESSION = "current session"
BELOW_FLOOR = "below relevance floor"
DUPLICATE = "duplicate"
# metadata key on a conversation memory that asserts a value a newer fact replaced
STALE_VALUE_OF = "stale_value_superseded_by"
# metadata key on a fact (or a turn stating its value) that a newer fact may replace: the same
# typed setting with a partly shared subject (``fact_slots``), not sure enough to archive
POSSIBLY_SUPERSEDED_BY = "possibly_superseded_by"
OTHER_PROJECT = "fact of project"
SUPERSEDED_VALUE = "states a superseded value"
STATES_FACT = "states the fact"
MIN_FACT_WORDS = 3  # a fact of fewer words is not looked for in conversation lines
STATED_MISSING = 0.1  # share of a fact's words (never a number) a line that states it may lack


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


def _relevance(memory: NormalizedMemory) -> float | None:
    return memory.embedding_similarity


def _judged(memory: NormalizedMemory) -> int:
    return memory.worked_count + memory.partial_count + memory.failed_count


def _demoted(memory: NormalizedMemory) -> bool:
    return bool(memory.metadata.get(POSSIBLY_SUPERSEDED_BY))


def _successor(memory: NormalizedMemory) -> str:
    """The id of the fact that replaced the value a conversation memory states ('' when none)."""
    if memory.collection not in SCORED_COLLECTIONS:
        return ""
    return str(memory.metadata.get(STALE_VALUE_OF) or "")


def select(
    ranked: Sequence[NormalizedMemory],
    vectors: Sequence[Vector | None],
    *,
    session_id: str,
    project: str,
    limit: int,
    rules: SelectionRules = DEFAULT_SELECTION,
    linked: frozenset[str] = frozenset(),
    prompt: str = "",
    beside: Sequence[tuple[NormalizedMemory, Vector | None]] = (),
    current: Sequence[tuple[NormalizedMemory, Vector | None]] = (),
) -> tuple[list[NormalizedMemory], list[ContextChoice]]:
    """(the memories to inject, best first, at most ``limit``; a choice for every result considered).

    ``vectors[i]`` is the unit vector of ``ranked[i]`` (None when unknown: never collapsed);
    ``linked``: ids the kg tied to the prompt's entities, exempt from the relevance floor;
    ``beside``: lines shown anyway (the kg's lessons) with their vectors: a result that repeats
    one of them is collapsed into it instead of being said twice;
    ``current``: with their vectors, the facts that replaced a value some result states, where they
    are not results themselves: such a result is shown as its current fact."""
    sifting = _Sifting.of(ranked, vectors, beside, current, prompt, rules)
    sifting.session_id, sifting.project, sifting.linked = session_id, project, linked
    for i in range(sifting.first, sifting.first + len(ranked)):
        sifting.take(i)
    sifting.join_stated_facts()
    return sifting.chosen(limit)


@dataclass
class _Sifting:
    """One prompt's results on their way to the block: ``lines`` are the lessons shown beside, the
    results, then the current facts of superseded values; ``kept`` indexes them in display order."""

    lines: list[NormalizedMemory]
    vectors: list[Vector | None]
    first: int
    cut: float
    residual: list[frozenset[str]]
    rules: SelectionRules
    session_id: str = ""  # the asking session, project and kg-linked ids: what the rules compare with
    project: str = ""
    linked: frozenset[str] = frozenset()
    kept: list[int] = field(default_factory=list)
    merged: dict[int, list[int]] = field(default_factory=dict)
    choices: dict[int, ContextChoice] = field(default_factory=dict)
    decided: set[int] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        ranked: Sequence[NormalizedMemory],
        vectors: Sequence[Vector | None],
        beside: Sequence[tuple[NormalizedMemory, Vector | None]],
        current: Sequence[tuple[NormalizedMemory, Vector | None]],
        prompt: str,
        rules: SelectionRules,
    ) -> _Sifting:
        lines = [m for m, _ in beside] + list(ranked) + [m for m, _ in current]
        padded = list(vectors)[: len(ranked)] + [None] * (len(ranked) - len(vectors))
        line_vectors = [v for _, v in beside] + padded + [v for _, v in current]
        similarities = [r for r in (_relevance(m) for m in ranked) if r is not None]
        cut = max(rules.floor, rules.relative_floor * max(similarities, default=0.0))
        asked = _words(prompt)
        residual = [_words(m.content) - asked for m in lines]
        return cls(lines, line_vectors, len(beside), cut, residual, rules, kept=list(range(len(beside))))

    def _off_topic(self, i: int) -> bool:
        """Below the relevance floor (a line without a similarity, or one the kg linked, never is)."""
        relevance = _relevance(self.lines[i])
        return relevance is not None and relevance < self.cut and self.lines[i].id not in self.linked

    def _shown(self, i: int) -> float:
        relevance = _relevance(self.lines[i])
        return 0.0 if relevance is None else round(relevance, 4)

    def take(self, i: int) -> None:
        """Decide result ``i``; a line that states a superseded value gives its place to the current fact."""
        if i in self.decided:
            return
        memory = self.lines[i]
        successor = _successor(memory)
        if not successor or self._off_topic(i):
            self.consider(i)
            return
        self.decided.add(i)
        why = f"{SUPERSEDED_VALUE} (the current one is {successor})"
        self.choices[i] = ContextChoice(memory.id, False, why, (successor,), self._shown(i))
        j = next((k for k in range(self.first, len(self.lines)) if self.lines[k].id == successor), None)
        if j is not None and j not in self.kept:
            self.consider(j, exempt=True)

    def consider(self, i: int, exempt: bool = False) -> None:
        """Keep line ``i`` unless it is the asking session's, off topic, another project's fact or a copy;
        ``exempt``: spared the relevance floor."""
        self.decided.add(i)
        memory, shown = self.lines[i], self._shown(i)
        relevance = _relevance(memory)
        if (
            self.session_id
            and memory.collection in SCORED_COLLECTIONS
            and memory.metadata.get("session_id") == self.session_id
        ):
            self.choices[i] = ContextChoice(memory.id, False, CURRENT_SESSION, relevance=shown)
            return
        if self._off_topic(i) and not exempt:
            self.choices[i] = ContextChoice(
                memory.id, False, f"{BELOW_FLOOR} ({relevance:.2f} < {self.cut:.2f})", (), shown
            )
            return
        if is_foreign_fact(memory, self.project):
            self.choices[i] = ContextChoice(memory.id, False, f"{OTHER_PROJECT} {memory.project}", relevance=shown)
            return
        same_words = [j for j in self.kept if _overlap(self.residual[i], self.residual[j]) >= self.rules.residual_min]
        candidates = [j for j in same_words if _collapsible(self.lines[j], memory)]
        twin = _twin(i, candidates, self.vectors, self.rules.duplicate_min)
        if twin is not None:
            self.merged.setdefault(twin, []).append(i)
            where = " (shown as a lesson)" if twin < self.first else ""
            why = f"{DUPLICATE} of {self.lines[twin].id}{where}"
            self.choices[i] = ContextChoice(memory.id, False, why, (self.lines[twin].id,), shown)
            return
        self.choices.pop(i, None)
        self.kept.append(i)

    def join_stated_facts(self) -> None:
        """A kept fact and the kept conversation lines that state it become one line: the fact, where the
        best ranked of them stood."""
        facts = [i for i in self.kept[self.first :] if self.lines[i].collection == MEMORY_BANK]
        for fact in facts:
            stating = [i for i in self.kept[self.first :] if self._states(i, fact)]
            if not stating:
                continue
            position = min(self.kept.index(i) for i in (fact, *stating))
            for i in stating:
                self.kept.remove(i)
                self.merged.setdefault(fact, []).extend([i, *self.merged.pop(i, [])])
                fact_id = self.lines[fact].id
                why = f"{DUPLICATE} of {fact_id} ({STATES_FACT})"
                self.choices[i] = ContextChoice(self.lines[i].id, False, why, (fact_id,), self._shown(i))
            self.kept.remove(fact)
            self.kept.insert(position, fact)

    def _states(self, i: int, fact: int) -> bool:
        """Whether conversation line ``i`` states fact ``fact``: it holds the fact's statement, or names
        its words and sits as close to it in meaning as a copy (an exchange that said it in passing)."""
        line, said = self.lines[i], self.lines[fact].content
        if line.collection not in SCORED_COLLECTIONS:
            return False
        if states_fact(line.content, said):
            return True
        a, b = self.vectors[i], self.vectors[fact]
        close = a is not None and b is not None and float(np.dot(a, b)) >= self.rules.duplicate_min
        return close and covers_fact(line.content, said)

    def chosen(self, limit: int) -> tuple[list[NormalizedMemory], list[ContextChoice]]:
        order = sorted(self.kept[self.first :], key=lambda i: _demoted(self.lines[i]))  # stable: local lines first
        out: list[NormalizedMemory] = []
        for rank, i in enumerate(order):
            memory, shown = self.lines[i], self._shown(i)
            relevance = _relevance(memory)
            group = self.merged.get(i, [])
            if rank >= limit:
                self.choices[i] = ContextChoice(memory.id, False, f"over the limit of {limit}", (), shown)
                continue
            why = KEPT if relevance is None else f"{KEPT}: relevance {relevance:.2f}"
            if _demoted(memory):
                why += ", shown below local lines (possibly superseded)"
            ranked_by = memory.rank_parts.rounded() if memory.rank_parts is not None else None
            self.choices[i] = ContextChoice(
                memory.id, True, why, tuple(self.lines[j].id for j in group), shown, ranked_by
            )
            out.append(_with_evidence(memory, [self.lines[j] for j in group]))
        return out, [self.choices[i] for i in range(self.first, len(self.lines)) if i in self.choices]


def states_fact(text: str, fact: str) -> bool:
    """Whether a conversation memory holds a fact's statement: the fact's words, in order and in a
    row (case, spacing and punctuation aside), somewhere in its text."""
    wanted, words = _fact_words(fact), _fact_words(text)
    if len(wanted) < MIN_FACT_WORDS:
        return False
    return any(words[k : k + len(wanted)] == wanted for k in range(len(words) - len(wanted) + 1))


def covers_fact(text: str, fact: str) -> bool:
    """Whether a conversation memory names nearly every word of a fact, and every number of it."""
    wanted = set(_fact_words(fact))
    if len(wanted) < MIN_FACT_WORDS:
        return False
    missing = wanted - set(_fact_words(text))
    return not any(any(c.isdigit() for c in w) for w in missing) and len(missing) <= STATED_MISSING * len(wanted)


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


def _fact_words(text: str) -> list[str]:
    """Every word of 2+ characters (numbers of any length), in order, lower case, edge punctuation off."""
    words = (w.strip("./-") for w in _TOKEN.findall(text.lower()))
    return [w for w in words if len(w) > 1 or w.isdigit()]


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared share of the smaller set; 1.0 when either says nothing beyond the prompt."""
    if not a or not b:
        return 1.0
    return len(a & b) / min(len(a), len(b))


def _collapsible(kept: NormalizedMemory, other: NormalizedMemory) -> bool:
    """Only conversation memories collapse by vector (a fact takes in the lines that state it: ``states_fact``)."""
    return kept.collection in SCORED_COLLECTIONS and other.collection in SCORED_COLLECTIONS


def _twin(i: int, kept: list[int], vectors: Sequence[Vector | None], floor: float) -> int | None:
    mine = vectors[i] if i < len(vectors) else None
    if mine is None:
        return None
    for j in kept:
        other = vectors[j] if j < len(vectors) else None
        if other is not None and float(np.dot(mine, other)) >= floor:
            return j
    return None


def _with_evidence(memory: NormalizedMemory, copies: list[NormalizedMemory]) -> NormalizedMemory:
    """``memory`` with the outcome counts of the group member that has the most judged outcomes (a fact
    keeps its own: an exchange's outcomes judged the answer, not the fact)."""
    if not copies:
        return memory
    collapsed = {**memory.metadata, "collapsed_ids": ",".join(c.id for c in copies)}
    if memory.collection == MEMORY_BANK:
        return replace(memory, metadata=collapsed)
    best = max([memory, *copies], key=_judged)
    return replace(
        memory,
        worked_count=best.worked_count,
        partial_count=best.partial_count,
        failed_count=best.failed_count,
        metadata=collapsed,
    )
