"""The terms of a problem report, and how much each one says about which problem it is.

Two reports of one problem rarely share their words, but when they do share
something rare it tells: a class or test name, a config key, a package name,
a CVE id, an error code, an exception class. Words every report of a project
uses ("error", "page", "build", the product's own name) tell nothing. So a
term weighs by how rare it is among the project's known problems (inverse
document frequency), and an identifier weighs double.

``terms(text)`` lowers and lightly folds the words of a text (stopwords and
words under three letters dropped) and keeps identifiers whole
("sqlalchemy.exc.IntegrityError" -> "sqlalchemy.exc.integrityerror"). A
``TermIndex`` holds, per project, which known problems use each term;
``overlaps`` gives the weighted cosine of a report's terms and each
problem's under those counts, and ``shared`` names the terms that carried
it, heaviest first, so a lesson can say why it was shown. Plain module.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

from services.kg import lexicon
from services.kg.phrases import stem

MAX_TEXT_CHARS = 4_000  # a prompt past this adds pasted output, not the problem
MAX_TERMS = 160  # kept per problem: its statement's and its confirmed rewordings' terms
IDENTIFIER_WEIGHT = 2.0

# A word, an identifier (dotted, slashed, snake_case, with digits), a version number or a CVE id.
_TOKEN = re.compile(r"CVE-\d{4}-\d{3,}|[A-Za-z_][A-Za-z0-9_]*(?:[./:-][A-Za-z0-9_]+)*|\d+(?:\.\d+)+[a-z]?", re.I)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
# Sentence glue that is not in the stopword list but says nothing about a problem.
_FILLER = frozenset(
    "also just still now get got getting gets use used using tried try trying see seen seems thing things way "
    "please thanks thank hello again anymore every time times since some any one two new old like want need".split()
)


def is_identifier(token: str) -> bool:
    """A name of one thing: dotted, slashed, snake_case or CamelCase, or carrying a digit."""
    return any(c in token for c in "._/:") or any(c.isdigit() for c in token) or _CAMEL.search(token) is not None


def terms(text: str) -> list[str]:
    """The distinct terms of ``text`` in order of first use (identifiers lowered, words folded)."""
    found: dict[str, None] = {}
    for match in _TOKEN.finditer(text[:MAX_TEXT_CHARS]):
        token = match.group(0).strip("._:/-")
        if len(token) < 3:
            continue
        if is_identifier(token):
            found.setdefault(token.lower(), None)
            continue
        word = token.lower()
        if word in lexicon.STOPWORDS or word in _FILLER or "'" in word:
            continue
        found.setdefault(stem(word), None)
    return list(found)


class TermIndex:
    """Per project, which known problems use each term; and the rarity weights that follow.

    ``overlaps`` walks the posting lists of a report's terms, so it visits only the problems that
    share a term with it, and caches each problem's norm until the project's counts change.
    """

    def __init__(self) -> None:
        self._postings: dict[str, dict[str, set[str]]] = {}  # project -> term -> problem ids
        self._terms: dict[str, tuple[str, frozenset[str]]] = {}  # problem id -> (project, terms)
        self._problems: Counter[str] = Counter()
        self._norms: dict[str, float] = {}

    def terms_of(self, problem_id: str) -> frozenset[str]:
        return self._terms.get(problem_id, ("", frozenset()))[1]

    def put(self, project: str, problem_id: str, problem_terms: Iterable[str]) -> None:
        """Index (or re-index) a problem under its terms."""
        self.drop(problem_id)
        kept = frozenset(problem_terms)
        postings = self._postings.setdefault(project, {})
        for term in kept:
            postings.setdefault(term, set()).add(problem_id)
        self._terms[problem_id] = (project, kept)
        self._problems[project] += 1
        self._norms.clear()

    def drop(self, problem_id: str) -> None:
        entry = self._terms.pop(problem_id, None)
        if entry is None:
            return
        project, kept = entry
        postings = self._postings.get(project, {})
        for term in kept:
            users = postings.get(term)
            if users is not None:
                users.discard(problem_id)
                if not users:
                    del postings[term]
        self._problems[project] -= 1
        self._norms.clear()

    def weight(self, project: str, term: str) -> float:
        """1 + ln((problems + 1) / (problems using the term + 1)); doubled for an identifier."""
        used = len(self._postings.get(project, {}).get(term, ()))
        rarity = 1.0 + math.log((self._problems[project] + 1) / (used + 1))
        return rarity * (IDENTIFIER_WEIGHT if is_identifier(term) else 1.0)

    def _norm(self, project: str, problem_id: str) -> float:
        norm = self._norms.get(problem_id)
        if norm is None:
            norm = math.sqrt(sum(self.weight(project, t) ** 2 for t in self.terms_of(problem_id)))
            self._norms[problem_id] = norm
        return norm

    def overlaps(self, project: str, query: Iterable[str]) -> dict[str, float]:
        """Problem id -> weighted cosine of its terms and the query's (0..1), for every problem of
        ``project`` sharing at least one term with the query."""
        postings = self._postings.get(project, {})
        dots: dict[str, float] = {}
        norm_q = 0.0
        for term in set(query):
            w2 = self.weight(project, term) ** 2
            norm_q += w2
            for problem_id in postings.get(term, ()):
                dots[problem_id] = dots.get(problem_id, 0.0) + w2
        if not dots:
            return {}
        root_q = math.sqrt(norm_q)
        return {pid: dot / (root_q * (self._norm(project, pid) or 1.0)) for pid, dot in dots.items()}

    def used_by(self, project: str, term: str) -> int:
        """How many of the project's problems use the term."""
        return len(self._postings.get(project, {}).get(term, ()))

    def pair_overlap(self, project: str, first: Iterable[str], second: Iterable[str], *, rare: int = 0) -> float:
        """Weighted cosine of two term sets under the project's weights (0..1); with ``rare``, 0
        unless they share a term that at most ``rare`` problems use (words every answer uses, such
        as "fixed" or "tests pass", never make two texts one)."""
        a, b = set(first), set(second)
        common = a & b
        if rare and not any(self.used_by(project, t) <= rare for t in common):
            return 0.0
        shared = sum(self.weight(project, t) ** 2 for t in common)
        if not shared:
            return 0.0
        norm_a = sum(self.weight(project, t) ** 2 for t in a)
        norm_b = sum(self.weight(project, t) ** 2 for t in b)
        return shared / math.sqrt(norm_a * norm_b)

    def shared(self, project: str, query: Iterable[str], problem_id: str, limit: int = 3) -> list[str]:
        """The shared terms that weigh most (rare ones, identifiers first)."""
        common = set(query) & self.terms_of(problem_id)
        return sorted(common, key=lambda t: (-self.weight(project, t), t))[:limit]
