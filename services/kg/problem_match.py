"""When a new report is a known problem: evidence with a margin, not one cosine.

Two reports of one problem by two people share less than one expects. On
real duplicate bug reports (../shared/data/duplicate-reports, the calibration
half) the best-matching known problem of a true duplicate has a median cosine
of 0.68, and the best match of a report of another problem 0.58: no cosine
threshold separates them, and 9 of 10 near-misses reach 0.45. What does
separate them is how far the best problem stands out from the rest: a
duplicate's own problem usually beats the runner-up clearly; a near-miss
resembles several problems about equally. So a candidate is judged on:

- its **score**: the best cosine of the report to the problem's phrasings
  and error lines, plus ``LEXICAL_WEIGHT`` times the rarity-weighted overlap
  of their terms (problem_terms.py: shared class names, config keys, package
  names, CVE ids weigh most; words every report of the project uses, little);
- its **margin**: the score minus the best score of any other problem of
  the project, and never less than ``BACKGROUND`` (how alike two unrelated
  reports of one project look), so a project with one known problem still
  needs a real resemblance;
- hard evidence: an error signature shared with the session's recent tool
  output (``SIGNATURE_BONUS``), or, when an episode is filed, the same fix.

``judge`` accepts the best candidate when its margin reaches the bar, and
says why: the shared identifiers, the error signature, or the wording. The
bar is ``RECALL_MARGIN`` to show a lesson; filing an episode under a known
problem instead of a new one needs ``FILE_MARGIN``, higher, since a wrong
merge mixes two problems' fixes for good, while a wrong lesson is one line.

A report that asks for work ("add ...", "how do I ...") and tells of no
failure needs hard evidence; a CVE id shared with a problem is hard evidence
whatever the mood ("Upgrade lodash for CVE-2021-23337"). Two reports that
each name what failed (exception classes, error codes, error signatures)
with no name in common are different problems: such a candidate is out.

Calibration: the constants were chosen on the calibrate half of the real
duplicate reports (bench/bench_duplicate_reports.py --part calibrate, driven
offline through this book with the gateway's statement vectors), the
held-out half is what BENCHMARKS.md reports. On the calibrate half, a lead
of 0.2 recalled 0.61 of recurrences with 0.07 of near-misses getting a
lesson; 0.16 recalled 0.65 at 0.11. On the held-out half through the
hooks, a single threshold (the margin off) recalls 0.83 and shows a lesson
to 0.57 of near-misses; the judge 0.56 and 0.04. The term overlap
(``LEXICAL_WEIGHT``) adds little on those browser reports, whose words are
shared by many problems, and more where reports carry identifiers.
A lead relative to how alike the two best problems are was tried and let
twice as many near-misses through at the same recall.

int8 and fp32 vectors (0.99 cosine apart) move a score by up to about 0.02;
a decision within that of a bar can flip. tests/unit/kg/test_encoder_agreement.py
runs the kg's decisions with both encoders and bounds the flips.
Plain module.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

LEXICAL_WEIGHT = 0.25  # a full term overlap is worth a quarter of a cosine
BACKGROUND = 0.3  # the score two unrelated reports of one project reach
RECALL_MARGIN = 0.2  # a lesson is shown when its problem beats the runner-up by this
FILE_MARGIN = 0.4  # an episode joins a known problem (rather than opening one) above this, or on hard evidence
HARD_LEAD = 0.05  # of two problems with hard evidence, the better must lead by this
SIGNATURE_BONUS = 0.15  # a shared error signature: added to the score, and enough on its own
CROSS_PROJECT_MARGIN = 0.3  # another project's lesson, only when this project knows no match
# An episode solved by a problem's own fix joins it from this score up, and two problems solved by
# the same fix are one when their statements are this alike: generic answers ("changed the setting
# and reran the check") must not make unrelated problems one.
SAME_FIX_SCORE = 0.45
# Two fixes told in other words are the same fix when their rarity-weighted terms overlap this much
# ("ran alembic merge heads" / "merged the two heads with alembic merge"): the commands, files and
# names they share weigh, the words every answer uses do not.
SAME_FIX_OVERLAP = 0.5

MECHANISMS = ("rarity", "margin", "signature", "fix")


@dataclass(frozen=True)
class MatchRules:
    """Which of the judge's mechanisms are on (all, but for an ablation run)."""

    off: frozenset[str] = field(default_factory=frozenset)

    @property
    def rarity(self) -> bool:
        return "rarity" not in self.off

    @property
    def margin(self) -> bool:
        return "margin" not in self.off

    @property
    def signature(self) -> bool:
        return "signature" not in self.off

    @property
    def fix(self) -> bool:
        return "fix" not in self.off

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> MatchRules:
        """``MNEMEX_KG_ABLATE=rarity,margin`` switches mechanisms off, for measuring what each adds."""
        env = os.environ if environ is None else environ
        names = {n.strip().lower() for n in env.get("MNEMEX_KG_ABLATE", "").split(",") if n.strip()}
        unknown = names - set(MECHANISMS)
        if unknown:
            raise ValueError(f"MNEMEX_KG_ABLATE: unknown {sorted(unknown)}; choose from {', '.join(MECHANISMS)}")
        return cls(frozenset(names))


@dataclass(frozen=True)
class Candidate:
    """One known problem measured against a report."""

    problem_id: str
    cosine: float  # best cosine to the problem's phrasings and error lines
    lexical: float  # rarity-weighted overlap of terms, 0..1
    shared: tuple[str, ...] = ()  # the heaviest shared terms
    signature: str = ""  # an error signature shared with the session's recent tool output
    conflict: bool = False  # each names what failed (a class, a code, a signature), and the names differ
    issue_ids: tuple[str, ...] = ()  # shared ids that name one issue (CVE, GHSA, error codes)

    def score(self, rules: MatchRules) -> float:
        lexical = LEXICAL_WEIGHT * self.lexical if rules.rarity else 0.0
        bonus = SIGNATURE_BONUS if self.signature and rules.signature else 0.0
        return self.cosine + lexical + bonus

    def hard_evidence(self, rules: MatchRules) -> bool:
        """A shared error signature or a shared issue id: enough whatever the report's mood."""
        return bool(self.signature and rules.signature) or bool(self.issue_ids and rules.rarity)


@dataclass(frozen=True)
class Verdict:
    """The problem a report was judged to be, by how much it won, and why."""

    problem_id: str
    score: float
    margin: float
    why: str


def reason(best: Candidate, rules: MatchRules) -> str:
    """What made it the same problem, in a few words a reader can check."""
    if best.signature and rules.signature:
        return f"same error: {best.signature}"
    if best.issue_ids and rules.rarity:
        return "names " + ", ".join(t.upper() if t.startswith(("cve-", "ghsa-")) else t for t in best.issue_ids)
    if best.shared and rules.rarity:
        return "shares " + ", ".join(f"'{t}'" for t in best.shared)
    return f"similar wording ({best.cosine:.2f})"


def judge(
    candidates: list[Candidate],
    bar: float,
    rules: MatchRules,
    *,
    hard_only: bool = False,
    same: Callable[[str, str], bool] | None = None,
) -> Verdict | None:
    """The best candidate, when it beats every other (and the background) by ``bar``; else None.
    ``hard_only`` (a request for work, not a report) also wants hard evidence of the best.
    ``same(a, b)``: two known problems are one told twice (solved by the same fix); such a twin is
    no runner-up, or a problem learned twice could never be recalled.

    With the margin off (an ablation), the best candidate passes on its score alone, at
    ``BACKGROUND + bar``: the old single-threshold rule.

    A lead relative to how alike the two best problems are (a small lead between two close problems
    counting as much as a large one between unrelated problems) was tried: at the same recall on this
    project's own pairs it let twice as many real near-misses through, so the lead is absolute.
    """
    if rules.rarity:  # a problem that names another failure (class, code, signature) is another problem
        candidates = [c for c in candidates if not c.conflict]
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda c: (-c.score(rules), c.problem_id))
    hard = [c for c in ranked if c.hard_evidence(rules)]
    if hard and (len(hard) == 1 or hard[0].score(rules) - hard[1].score(rules) >= HARD_LEAD):
        # A shared error signature or issue id is evidence on its own, when no other problem has as much.
        return Verdict(hard[0].problem_id, hard[0].score(rules), bar, reason(hard[0], rules))
    best = ranked[0]
    if hard_only:
        return None
    top = best.score(rules)
    others = [c for c in ranked[1:] if not (same and same(best.problem_id, c.problem_id))]
    runner = others[0].score(rules) if others and rules.margin else 0.0
    margin = top - max(runner, BACKGROUND)
    if margin < bar:
        return None
    return Verdict(best.problem_id, top, margin, reason(best, rules))


_FAILURE = re.compile(
    r"\b(?:fail\w*|errors?|error\w*|exceptions?|traceback|crash\w*|can'?t|cannot|can not|couldn'?t|could not|"
    r"won'?t|doesn'?t|does not|didn'?t|isn'?t|aren'?t|refus\w*|denied|broken|breaks?|rejected|blocked|"
    r"hang\w*|hung|times? out|timed out|timeout|dies|died|stuck|infinite|forever|out of memory|not found|"
    r"undefined|complain\w*|abort\w*|locked|unable|invalid|conflicts?|missing|no such|"
    r"wrong|bug\w*|issue|problem|red|unexpected\w*|warn\w*|segfault|panic\w*|exit code|non-zero|"
    r"vulnerab\w*|cve-\d+|"
    # symptoms told without an error word: a resource leaking or overflowing, something that stopped
    r"leak\w*|overflow\w*|stopped|collid\w*|collision)\b"
    # an exception or warning class named in the text ("TimeoutError", "RuntimeWarning")
    r"|(?-i:[A-Za-z]\w*(?:Error|Exception|Warning))\b",
    re.IGNORECASE,
)


# What names a failure: an exception or warning class, an errno, an error code ("E1042", "ORA-00942",
# "TS2322"), a CVE or GHSA id. Matched against lowered terms (problem_terms.terms).
_FAILURE_NAME = re.compile(
    r"^(?:[a-z_][a-z0-9_.]*?(?:error|exception|warning)|errno\d*|[a-z]{1,4}-?\d{3,5}|cve-\d{4}-\d+|ghsa(?:-[a-z0-9]{4}){3})$"
)
_ISSUE_ID = re.compile(r"^(?:cve-\d{4}-\d+|ghsa(?:-[a-z0-9]{4}){3})$")


def failure_names(terms: list[str] | tuple[str, ...] | frozenset[str]) -> set[str]:
    """The terms that name what failed (exception classes, error codes, CVE ids); the last dotted
    part of a qualified class ("sqlalchemy.exc.integrityerror" -> "integrityerror")."""
    names = set()
    for term in terms:
        last = term.rsplit(".", 1)[-1]
        if _FAILURE_NAME.match(last) and last not in ("error", "exception", "warning"):
            names.add(last)
    return names


def issue_ids(terms: set[str]) -> tuple[str, ...]:
    return tuple(sorted(t for t in terms if _ISSUE_ID.match(t)))


def conflicting(query_names: set[str], problem_names: set[str]) -> bool:
    """Both name what failed, and no name is the same."""
    return bool(query_names and problem_names and query_names.isdisjoint(problem_names))


# A request for work or an explanation, not a report of what happened: an imperative first word
# ("add ...", "write ...") or a question about how or what ("how do I ...", "should we ...").
_REQUEST = re.compile(
    r"^\s*(?:(?:please|ok|okay|now|also|and|so)[,\s]+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:add|write|create|make|build|implement|convert|rename|refactor|move|split|merge|extract|document|"
    r"translate|update|upgrade|bump|set up|setup|configure|enable|disable|remove|delete|drop|replace|switch|"
    r"port|migrate|generate|export|import|scale|tune|optimi[sz]e|speed up|shrink|clean up|cleanup|format|"
    r"reformat|lint|type|annotate|test|run|deploy|publish|release|explain|describe|summari[sz]e|list|show|"
    r"compare|review|suggest|help me|tell me|give me|"
    r"how|what|what's|whats|which|where|when|who|should|shall|can we|could we|do we|does it|is it|are there|"
    r"is there|any idea)\b",
    re.IGNORECASE,
)


def asks_for_work(text: str) -> bool:
    """The text asks for a task or an explanation and tells of no failure: it is the same problem as
    a known one only on hard evidence (the same CVE, the same error), never on shared vocabulary."""
    return _REQUEST.match(text) is not None and not expresses_failure(text)


def expresses_failure(text: str) -> bool:
    """The text speaks of something going wrong. A one-turn episode (answered at once, no failed
    attempt) is filed as a problem only when its statement does: "add a story for X" is a task."""
    return _FAILURE.search(text) is not None
