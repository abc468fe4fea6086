"""Episodes: a problem from the turn that states it to the turn that fixes it.

An episode opens on the first scored turn of a session that is not chatter
(a turn scored ``failed``, ``partial`` or ``worked``). Later scored turns of
the same session belong to it until one is scored ``worked`` (the episode
is solved), the session states a new, unrelated problem, or it goes quiet
for ``ABANDON_SECONDS`` (abandoned). Each ``failed`` turn adds an attempt:
the command that failed (or the head of the answer) and the error line the
session's tool calls produced meanwhile.

An episode joins a ``KnownProblem`` of its project with its first failed
attempt or its fix: the problem that the same fix already solved, or the
one the judge of problem_match.py picks by a clear margin (a shared error
signature, rare shared terms, the wording); otherwise it opens a new one, so
two problems that share a vocabulary stay apart. The episode carries the problem statement (the
episode's FIRST prompt, never the complaint that ends it), its vector, the
normalised signatures of its errors and the vectors of their error lines (the
gateway embeds a failed tool call's telling line), the fixes that worked and
the attempts that failed. Known problems keep their own short text, so a lesson outlives
the exchange memories it came from, and a failed attempt counts even when the
session ends without a fix.

``recognise`` finds the known problem a new prompt tells again, from the
prompt's vector and terms and the error signatures of the session's recent
tool calls, by the same judge (the rule and its calibration: problem_match.py);
``lessons`` shows that one problem's fixes and failed attempts, with why.

Vectors of two embedding models are never compared: after MNEMEX_EMBEDDING_MODEL names a model of
another dimension, the book's older vectors are left out of every cosine (``episode_records.comparable``)
and recognition goes on from the error signatures and terms until ``mnemex reembed`` makes them
again (episode_reembed.py).

Where the state lives: in the kg, journaled beside its other graphs, one book
per user (store.EPISODES_PROJECT). The memory service owns a session's turns,
but an open episode is learned structure in the making, built only from what
already reaches the kg (scores through the gateway's teaching, tool errors);
so the gateway stays stateless, a restart or another gateway replica sees the
same open episodes, and sharding by user keeps a user's sessions on one shard.

Two known problems are never made one by a resemblance: merging them is an
explicit, journaled step that can be undone (problem_merges.py; the book keeps
the merge records).

Plain module; state changes only through ``apply_turn`` / ``apply_tool_error``
and problem_merges.py (journaled ops), and every part is JSON-able.
"""

from __future__ import annotations

import dataclasses
from typing import TypedDict

import numpy as np
import numpy.typing as npt

from kernel.json_values import JSONArray, JSONObject
from services.kg.episode_records import (
    Attempt,
    Episode,
    EpisodeLesson,
    Fix,
    KnownProblem,
    ProblemMerge,
    ToolError,
    Vector,
    attempt_json,
    attempt_of,
    comparable,
    decode_vector,
    encode_vector,
    problem_json,
    problem_of,
    tool_error_of,
    vectors_of,
)
from services.kg.json_fields import arr, obj, to_float, to_int
from services.kg.problem_match import (
    BACKGROUND,
    CROSS_PROJECT_MARGIN,
    FILE_MARGIN,
    RECALL_MARGIN,
    SAME_FIX_OVERLAP,
    SAME_FIX_SCORE,
    SIGNATURE_BONUS,
    Candidate,
    MatchRules,
    Verdict,
    asks_for_work,
    conflicting,
    expresses_failure,
    failure_names,
    issue_ids,
    judge,
)
from services.kg.problem_terms import MAX_TERMS, TermIndex, terms

NEW_PROBLEM_SIMILARITY = 0.3  # below this (and long enough) a prompt starts a new problem
FOLLOW_UP_WORDS = 12  # a prompt this short continues the open episode ("still broken, same traceback")
ABANDON_SECONDS = 2 * 3600
RECENT_ERROR_SECONDS = 1800
MAX_SESSION_ERRORS = 8
MAX_SESSIONS = 512
MAX_PROBLEMS = 1000
MAX_FIXES = 4
MAX_FAILURES = 8
MAX_ATTEMPTS = 12
MAX_PROBLEM_CHARS = 300
MAX_TRIED_CHARS = 140
MAX_ERROR_CHARS = 160
MAX_FIX_CHARS = 220
MAX_PHRASINGS = 4
MAX_SYMPTOMS = 4  # error lines of failed attempts kept as vectors per problem
SAME_PHRASING = 0.95  # a vector this close to a known phrasing adds nothing
MIN_PROBLEM_WORDS = 4  # a one-turn "worked" episode needs a problem statement at least this long
RARE_FIX_TERM = 2  # two fixes are one only if they share a term at most this many problems' fixes use
TWIN_KINSHIP = 0.7  # two problems with the same fix in other words are one only if told this alike


def _words(text: str) -> int:
    return len(text.split())


def _states_problem(prompt: str) -> bool:
    """A one-turn episode with no failed attempt is a problem only when its prompt tells of a
    failure; a task or question answered at once ("add a story for X") is not one."""
    return _words(prompt) >= MIN_PROBLEM_WORDS and expresses_failure(prompt)


def _add_symptoms(known: list[Vector], new: list[Vector], limit: int, also: list[Vector] | None = None) -> bool:
    """Append the vectors not nearly equal to one already kept (in ``known`` or ``also``); keep the
    last ``limit``. Returns whether ``known`` changed."""
    changed = False
    for vector in new:
        if all(float(v @ vector) < SAME_PHRASING for v in comparable([*(also or []), *known], vector)):
            known.append(vector)
            changed = True
    del known[:-limit]
    return changed


def _add_attempt(attempts: list[Attempt], new: Attempt, limit: int) -> None:
    for old in attempts:
        if old.tried == new.tried and (old.signature == new.signature or not new.signature):
            old.count += new.count
            old.last = max(old.last, new.last)
            old.error = old.error or new.error
            return
    attempts.append(new)
    if len(attempts) > limit:
        attempts.sort(key=lambda a: (a.count, a.last))
        del attempts[0]


class TurnResult(TypedDict):
    """What ``apply_turn`` made of a scored turn: its episode's problem statement, and ``status``
    (chatter, solved, or what else became of the episode)."""

    problem: str
    status: str


class EpisodeBook:
    """Open episodes per session, recent tool errors per session, and the known problems."""

    def __init__(self, rules: MatchRules | None = None) -> None:
        self.open: dict[str, Episode] = {}
        self.errors: dict[str, list[ToolError]] = {}
        self.problems: dict[str, KnownProblem] = {}
        self.merges: dict[str, ProblemMerge] = {}  # problem_merges.py: merges of two known problems, by id
        self.rules = rules or MatchRules()
        self._terms = TermIndex()
        self._fix_terms = TermIndex()  # per problem, the terms of the fixes that solved it
        self._next_id = 1
        self._next_merge_id = 1
        self._matrix: Vector | None = None
        self._row_starts: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)  # each problem's first row
        self._row_owners: list[str] = []  # the problem of each run of rows, in order
        self._last_cosines: tuple[bytes, dict[str, float], set[str]] | None = None

    # -- ops -------------------------------------------------------------------
    def apply_tool_error(self, op: JSONObject) -> None:
        session = str(op["session_id"])
        errors = self.errors.setdefault(session, [])
        errors.append(
            ToolError(
                str(op["command"]), str(op["line"]), str(op["signature"]), to_float(op["ts"]), str(op.get("vector", ""))
            )
        )
        del errors[:-MAX_SESSION_ERRORS]
        if len(self.errors) > MAX_SESSIONS:
            oldest = min(self.errors, key=lambda s: self.errors[s][-1].ts if self.errors[s] else 0.0)
            del self.errors[oldest]

    def apply_turn(self, op: JSONObject) -> TurnResult:
        """One scored turn; returns the episode's problem statement and what happened to it.

        A failed attempt joins the episode's known problem at once (a session may end without
        a fix, or never come back); the fix joins it when a turn is scored ``worked``."""
        ts = to_float(op["ts"])
        session, project, prompt = str(op["session_id"]), str(op["project"]), str(op["prompt"])
        outcome, answer = str(op["outcome"]), str(op.get("answer", ""))
        vector = decode_vector(str(op.get("vector", "")))
        errors = self.errors.pop(session, [])
        signatures = [e.signature for e in errors if e.signature]
        episode = self.open.get(session)
        status = "continued"
        if episode is not None and self._starts_new_problem(episode, prompt, vector, signatures, ts):
            del self.open[session]
            episode = None
            status = "abandoned_previous"
        if episode is None:
            if outcome == "unknown" or not prompt.strip():
                return {"problem": prompt, "status": "chatter"}
            episode = Episode(session, project, prompt[:MAX_PROBLEM_CHARS], vector, ts, ts)
            episode.terms = terms(prompt)[:MAX_TERMS]
            status = "opened" if status == "continued" else status
        episode.last = ts
        episode.signatures = list(dict.fromkeys([*episode.signatures, *signatures]))[:MAX_SESSION_ERRORS]
        symptoms = [v for v in (decode_vector(e.vector) for e in errors if e.signature) if v is not None]
        _add_symptoms(episode.symptoms, symptoms, MAX_SYMPTOMS)
        if outcome == "failed":
            attempts = self._attempts(errors, answer, ts)
            for attempt in attempts:
                _add_attempt(episode.attempts, attempt, MAX_ATTEMPTS)
            if attempts:
                problem = self._attach(episode)
                for attempt in attempts:
                    _add_attempt(problem.failures, Attempt(**vars(attempt)), MAX_FAILURES)
        if outcome == "worked":
            self.open.pop(session, None)
            fix = Fix(answer.strip()[:MAX_FIX_CHARS], str(op.get("doc_id", "")), 1, ts)
            if fix.text and (episode.attempts or episode.signatures or _states_problem(episode.problem)):
                self._refile_by_fix(episode, fix)
                self._add_fix(self._attach(episode, fix), fix)
            return {"problem": episode.problem, "status": "solved"}
        self.open[session] = episode
        if len(self.open) > MAX_SESSIONS:
            del self.open[min(self.open, key=lambda s: self.open[s].last)]
        return {"problem": episode.problem, "status": status}

    @staticmethod
    def _attempts(errors: list[ToolError], answer: str, ts: float) -> list[Attempt]:
        failing = [e for e in errors if e.line or e.command]
        if failing:
            return [
                Attempt(
                    e.command[:MAX_TRIED_CHARS] or answer.strip()[:MAX_TRIED_CHARS],
                    e.line[:MAX_ERROR_CHARS],
                    e.signature,
                    1,
                    ts,
                )
                for e in failing[-3:]
            ]
        head = answer.strip()[:MAX_TRIED_CHARS]
        return [Attempt(head, "", "", 1, ts)] if head else []

    def _starts_new_problem(
        self, episode: Episode, prompt: str, vector: Vector | None, signatures: list[str], ts: float
    ) -> bool:
        if ts - episode.last > ABANDON_SECONDS:
            return True
        if signatures and set(signatures) & set(episode.signatures):
            return False
        if _words(prompt) <= FOLLOW_UP_WORDS or vector is None or episode.vector is None:
            return False
        if not comparable([episode.vector], vector):  # told before the embedding model changed
            return False
        return float(vector @ episode.vector) < NEW_PROBLEM_SIMILARITY

    def _attach(self, episode: Episode, fix: Fix | None = None) -> KnownProblem:
        """The known problem an episode belongs to: the one it already joined, one of its project
        that the same fix already solved, the one the judge picks by a clear margin, or a new one.
        Never the nearest one by a cosine alone: two problems that share a vocabulary stay apart."""
        problem = self.problems.get(episode.problem_id)
        if problem is None and fix is not None and self.rules.fix:
            problem = self._solved_by(episode, fix)
        if problem is None:
            verdict = self._judge(episode.vector, episode.terms, episode.signatures, episode.project, FILE_MARGIN)
            problem = self.problems[verdict.problem_id] if verdict else None
        if problem is None:
            problem = KnownProblem(f"p{self._next_id}", episode.project, episode.problem, episode.vector, [])
            problem.terms = list(episode.terms)
            self._next_id += 1
            self._index(problem)
            if len(self.problems) > MAX_PROBLEMS:
                self._forget(min(self.problems.values(), key=lambda p: p.last).id)
        elif episode.problem_id != problem.id:
            problem.episodes += 1
            self._add_phrasing(problem, episode.vector)
            grown = list(dict.fromkeys([*problem.terms, *episode.terms]))[:MAX_TERMS]
            if grown != problem.terms:
                problem.terms = grown
                self._terms.put(problem.project, problem.id, grown)
        episode.problem_id = problem.id
        problem.signatures = list(dict.fromkeys([*problem.signatures, *episode.signatures]))[:MAX_SESSION_ERRORS]
        told = ([problem.vector] if problem.vector is not None else []) + problem.phrasings
        if _add_symptoms(problem.symptoms, episode.symptoms, MAX_SYMPTOMS, told):
            self._matrix = None
        problem.last = max(problem.last, episode.last)
        return problem

    def _refile_by_fix(self, episode: Episode, fix: Fix) -> None:
        """An episode filed as a new problem at its first failed attempt, then solved by a fix a known
        problem already has (in any words), was that problem all along: its failed attempts, error
        signatures and symptoms move there, and the problem it opened goes."""
        opened = self.problems.get(episode.problem_id)
        if opened is None or opened.fixes or opened.text != episode.problem or not self.rules.fix:
            return
        episode.problem_id = ""
        known = self._solved_by(episode, fix, exclude=opened.id)
        if known is None or known.id == opened.id:
            episode.problem_id = opened.id
            return
        for attempt in opened.failures:
            _add_attempt(known.failures, attempt, MAX_FAILURES)
        self._forget(opened.id)  # the caller's _attach finds ``known`` again by the fix and joins it

    def _index(self, problem: KnownProblem) -> None:
        self.problems[problem.id] = problem
        self._terms.put(problem.project, problem.id, problem.terms)
        self._index_fixes(problem)
        self._matrix = None

    def _forget(self, problem_id: str) -> None:
        del self.problems[problem_id]
        self._terms.drop(problem_id)
        self._fix_terms.drop(problem_id)
        self._matrix = None

    # -- for problem_merges.py ------------------------------------------------------
    def put_problem(self, problem: KnownProblem) -> None:
        """Add a known problem, or take in what changed in one (its terms, fixes and vectors)."""
        self._index(problem)

    def drop_problem(self, problem_id: str) -> None:
        """A known problem leaves recognition, the counts and the indexes."""
        self._forget(problem_id)

    def new_merge_id(self) -> str:
        merge_id = f"m{self._next_merge_id}"
        self._next_merge_id += 1
        return merge_id

    def _solved_by(self, episode: Episode, fix: Fix, exclude: str = "") -> KnownProblem | None:
        """The problem of the episode's project that this fix already solved, when the episode
        resembles it (``SAME_FIX_SCORE``): the same fix is the evidence. The same text or exchange
        names it outright; the same fix in other words only when the episode's statement alone would
        be recalled as that problem (fix texts follow templates: "Disabled X in Preferences and
        restarted" and "Disabled Y in Preferences and restarted" share most of their words)."""
        if episode.vector is None and not episode.terms:  # nothing to compare: only the same text decides
            same = [p for p in self.problems.values() if p.project == episode.project and self._has_fix(p, fix)]
            return same[0] if same else None
        found = [
            c for c in self._candidates(episode.vector, episode.terms, [], episode.project) if c.problem_id != exclude
        ]
        if not found:
            return None
        ranked = sorted(found, key=lambda c: (-c.score(self.rules), c.problem_id))
        for candidate in ranked:
            if candidate.score(self.rules) < SAME_FIX_SCORE:
                break
            if self._has_fix(self.problems[candidate.problem_id], fix):
                return self.problems[candidate.problem_id]
        # In other words: only the problem the statement alone would be recalled as (the lesson that was
        # likely shown), and only when its fixes say the same as this one.
        verdict = judge(found, RECALL_MARGIN, self.rules, same=self._same_fix)
        if verdict is None:
            return None
        problem = self.problems[verdict.problem_id]
        overlap = self._fix_terms.pair_overlap(
            problem.project, self._fix_terms.terms_of(problem.id), terms(fix.text), rare=RARE_FIX_TERM
        )
        return problem if overlap >= SAME_FIX_OVERLAP else None

    @staticmethod
    def _has_fix(problem: KnownProblem, fix: Fix) -> bool:
        return any(f.text == fix.text or (fix.doc_id and f.doc_id == fix.doc_id) for f in problem.fixes)

    def _add_phrasing(self, problem: KnownProblem, vector: Vector | None) -> None:
        if vector is None:
            return
        if problem.vector is None:
            problem.vector = vector
        elif max((float(v @ vector) for v in comparable(problem.all_vectors(), vector)), default=0.0) < SAME_PHRASING:
            problem.phrasings.append(vector)
            del problem.phrasings[:-MAX_PHRASINGS]
        else:
            return
        self._matrix = None

    def _add_fix(self, problem: KnownProblem, fix: Fix) -> None:
        """Count a fix for a problem: a fix it already has, told in the same or other words, worked
        once more; a new one takes a slot."""
        said = terms(fix.text)
        for known in problem.fixes:
            if (
                known.text == fix.text
                or self._fix_terms.pair_overlap(problem.project, terms(known.text), said, rare=RARE_FIX_TERM)
                >= SAME_FIX_OVERLAP
            ):
                known.worked += 1
                known.last = fix.last
                known.doc_id = fix.doc_id or known.doc_id
                return
        problem.fixes.append(fix)
        problem.fixes.sort(key=lambda f: (-f.worked, -f.last))
        del problem.fixes[MAX_FIXES:]
        self._index_fixes(problem)

    def _index_fixes(self, problem: KnownProblem) -> None:
        self._fix_terms.put(problem.project, problem.id, [t for f in problem.fixes for t in terms(f.text)])

    def _same_fix(self, first: str, second: str) -> bool:
        """Two known problems of one project solved by the same fix (in any words): one problem."""
        a, b = self.problems[first], self.problems[second]
        if a.project != b.project or not a.fixes or not b.fixes:
            return False
        overlap = self._fix_terms.pair_overlap(
            a.project, self._fix_terms.terms_of(first), self._fix_terms.terms_of(second), rare=RARE_FIX_TERM
        )
        if overlap < SAME_FIX_OVERLAP:
            return False
        kinship = [float(x @ y) for x in a.all_vectors() for y in comparable(b.all_vectors(), x)]
        return max(kinship, default=0.0) >= TWIN_KINSHIP

    # -- reads -----------------------------------------------------------------
    def _vectors(self, dimension: int) -> Vector:
        """Every phrasing of every known problem of ``dimension`` as one matrix (a vector of another
        dimension was made by another embedding model, and is never compared); each problem's rows
        are contiguous, starting at ``_row_starts`` (``_row_owners`` names whose they are)."""
        if self._matrix is None or self._matrix.shape[1] != dimension:
            told = [(p.id, [v for v in p.all_vectors() if v.shape[0] == dimension]) for p in self.problems.values()]
            told = [(pid, vectors) for pid, vectors in told if vectors]
            rows = [np.stack(v) for _, v in told] or [np.zeros((0, dimension), dtype=np.float32)]
            self._matrix = np.concatenate(rows).astype(np.float32)
            self._row_starts = np.cumsum([0] + [len(v) for _, v in told[:-1]]).astype(np.intp)
            self._row_owners = [pid for pid, _ in told]
            self._last_cosines = None  # measured against the old matrix
        return self._matrix

    def _cosines(self, vector: Vector | None) -> tuple[dict[str, float], set[str]]:
        """Each problem's best cosine to ``vector``, and the problems whose cosine alone may reach the
        background; the last query's answer is kept (a prompt is judged here, then everywhere)."""
        if vector is None:
            return {}, set()
        matrix = self._vectors(vector.shape[0])
        if not len(matrix):
            return {}, set()
        key = vector.tobytes()
        if self._last_cosines is not None and self._last_cosines[0] == key:
            return self._last_cosines[1], self._last_cosines[2]
        best_rows = np.maximum.reduceat(matrix @ vector, self._row_starts)  # each problem's best phrasing
        cosines = dict(zip(self._row_owners, best_rows.tolist(), strict=True))
        near = {self._row_owners[i] for i in np.flatnonzero(best_rows >= BACKGROUND - SIGNATURE_BONUS)}
        self._last_cosines = (key, cosines, near)
        return cosines, near

    def _candidates(
        self,
        vector: Vector | None,
        query_terms: list[str],
        signatures: list[str],
        project: str | None,
    ) -> list[Candidate]:
        """Every known problem of ``project`` (of every project for None) measured against a report:
        best cosine, rarity-weighted term overlap (within the problem's own project) and a shared
        error signature. The two best carry their heaviest shared terms, to say why."""
        cosines, near = self._cosines(vector)
        projects = {p.project for p in self.problems.values()} if project is None else {project}
        lexical: dict[str, float] = {}
        for name in projects:
            lexical |= self._terms.overlaps(name, query_terms)
        wanted, asked = set(signatures), set(query_terms)
        signed = {p.id for p in self.problems.values() if wanted.intersection(p.signatures)} if wanted else set()
        # A problem that shares nothing and is far in meaning cannot reach the background: it is neither
        # the best nor a runner-up that counts, and is not measured (a prompt costs what it resembles).
        ids = near | set(lexical) | signed
        named = failure_names(query_terms)
        found = []
        for pid in ids:
            problem = self.problems.get(pid)
            if problem is None or problem.project not in projects:
                continue
            overlap = lexical.get(pid, 0.0)
            known = self._terms.terms_of(pid)
            found.append(
                Candidate(
                    pid,
                    cosines.get(pid, 0.0),
                    overlap,
                    signature=next((s for s in problem.signatures if s in wanted), "") if pid in signed else "",
                    # Each names what failed, differently: other exception classes or codes, or both have
                    # error signatures and none is shared.
                    conflict=(bool(named) and conflicting(named, failure_names(known)))
                    or (bool(wanted) and bool(problem.signatures) and wanted.isdisjoint(problem.signatures)),
                    issue_ids=issue_ids(asked & known) if overlap else (),
                )
            )
        found.sort(key=lambda c: (-c.score(self.rules), c.problem_id))
        for i, candidate in enumerate(found[:2]):
            problem = self.problems[candidate.problem_id]
            shared = tuple(self._terms.shared(problem.project, query_terms, problem.id))
            found[i] = dataclasses.replace(candidate, shared=shared)
        return found

    def _judge(
        self,
        vector: Vector | None,
        query_terms: list[str],
        signatures: list[str],
        project: str | None,
        bar: float,
        *,
        hard_only: bool = False,
    ) -> Verdict | None:
        """The known problem of ``project`` (of any, for None) this report tells again, when one clearly does."""
        signatures = signatures if self.rules.signature else []
        found = self._candidates(vector, query_terms, signatures, project)
        return judge(found, bar, self.rules, hard_only=hard_only, same=self._same_fix)

    def recognise(
        self, vector: Vector | None, prompt: str, signatures: list[str], project: str
    ) -> tuple[Verdict | None, bool]:
        """(the known problem a prompt tells again, whether it is another project's).

        This project's problems first, at ``RECALL_MARGIN``. Only when none is recognised, another
        project's problem, at ``CROSS_PROJECT_MARGIN`` over every problem of every project."""
        query_terms = terms(prompt)
        request = asks_for_work(prompt)
        local = self._judge(vector, query_terms, signatures, project, RECALL_MARGIN, hard_only=request)
        if local is not None:
            return local, False
        everywhere = self._judge(vector, query_terms, signatures, None, CROSS_PROJECT_MARGIN, hard_only=request)
        if everywhere is not None and self.problems[everywhere.problem_id].project != project:
            return everywhere, True
        return None, False

    def recent_signatures(self, session_id: str, now: float) -> list[str]:
        """Signatures of the session's recent tool errors and of its open episode."""
        recent = [
            e.signature for e in self.errors.get(session_id, []) if e.signature and now - e.ts <= RECENT_ERROR_SECONDS
        ]
        episode = self.open.get(session_id)
        if episode is not None:
            recent += episode.signatures
        return list(dict.fromkeys(recent))

    def lessons(
        self,
        vector: Vector | None,
        session_id: str,
        project: str,
        now: float,
        *,
        prompt: str = "",
        fixes: int = 2,
        failures: int = 4,
    ) -> list[EpisodeLesson]:
        """Fixes and failed attempts of the one known problem a prompt tells again, if any; each
        lesson says why the prompt was taken for that problem."""
        if not self.problems:
            return []
        verdict, _ = self.recognise(vector, prompt, self.recent_signatures(session_id, now), project)
        if verdict is None:
            return []
        problem = self.problems[verdict.problem_id]
        out: list[EpisodeLesson] = []

        def lesson(kind: str, text: str, worked: int, failed: int, doc_id: str) -> EpisodeLesson:
            return EpisodeLesson(
                kind, text, problem.project, problem.id, worked, failed, doc_id, verdict.score, verdict.why
            )

        for fix in problem.fixes[:fixes]:
            out.append(lesson("solution", fix.text, fix.worked, 0, fix.doc_id))
        worked = {f.text[:MAX_TRIED_CHARS] for f in problem.fixes}  # what worked is never warned as failed
        warned = [a for a in problem.failures if not (a.tried in worked and not a.error)]
        for attempt in sorted(warned, key=lambda a: (-a.count, -a.last))[:failures]:
            text = attempt.tried + (f" -> {attempt.error}" if attempt.error else "")
            out.append(lesson("failure", text, 0, attempt.count, ""))
        return out

    def counts(self, project: str | None = None) -> dict[str, int]:
        """Known problems, open episodes and failed attempts (of one project, or of all)."""
        problems = [p for p in self.problems.values() if project is None or p.project == project]
        return {
            "episode_problems": len(problems),
            "open_episodes": sum(project is None or e.project == project for e in self.open.values()),
            "episode_failures": sum(len(p.failures) for p in problems),
        }

    # -- persistence -----------------------------------------------------------
    def to_json(self) -> JSONObject:
        return {
            "next_id": self._next_id,
            "next_merge_id": self._next_merge_id,
            "merges": [m.to_json() for m in self.merges.values()],
            "problems": [problem_json(p) for p in self.problems.values()],
            "open": [
                {
                    "session_id": e.session_id,
                    "project": e.project,
                    "problem": e.problem,
                    "vector": encode_vector(e.vector),
                    "started": e.started,
                    "last": e.last,
                    "signatures": list(e.signatures),
                    "attempts": [attempt_json(a) for a in e.attempts],
                    "problem_id": e.problem_id,
                    "symptoms": [encode_vector(v) for v in e.symptoms],
                    "terms": list(e.terms),
                }
                for e in self.open.values()
            ],
            "errors": {
                s: [
                    {"command": e.command, "line": e.line, "signature": e.signature, "ts": e.ts, "vector": e.vector}
                    for e in errs
                ]
                for s, errs in self.errors.items()
            },
        }

    def project_json(self, project: str) -> JSONObject:
        """The known problems of one project, for that project's export (open episodes and recent tool
        errors are a session's passing state and stay out)."""
        problems: JSONArray = [problem_json(p) for p in self.problems.values() if p.project == project]
        return {"problems": problems}

    def import_problems(self, data: JSONObject, project: str) -> int:
        """Known problems from an export, added under fresh ids to ``project``; returns how many."""
        imported = EpisodeBook()
        imported.load_json({"problems": data.get("problems", [])})
        for problem in imported.problems.values():
            problem.id, problem.project = f"p{self._next_id}", project
            self._next_id += 1
            self._index(problem)
        return len(imported.problems)

    def load_json(self, data: JSONObject) -> None:
        self._next_id = max(self._next_id, to_int(data.get("next_id", 1)))
        self._next_merge_id = max(self._next_merge_id, to_int(data.get("next_merge_id", 1)))
        for m in arr(data.get("merges", [])):
            merge = ProblemMerge.from_json(m)
            self.merges[merge.id] = merge
        for p in arr(data.get("problems", [])):
            self._index(problem_of(p))
        for item in arr(data.get("open", [])):
            e = obj(item)
            self.open[str(e["session_id"])] = Episode(
                str(e["session_id"]),
                str(e["project"]),
                str(e["problem"]),
                decode_vector(str(e.get("vector", ""))),
                to_float(e["started"]),
                to_float(e["last"]),
                [str(s) for s in arr(e.get("signatures", []))],
                [attempt_of(a) for a in arr(e.get("attempts", []))],
                str(e.get("problem_id", "")),
                vectors_of(arr(e.get("symptoms", []))),
                [str(t) for t in arr(e["terms"])] if "terms" in e else terms(str(e["problem"])),
            )
        for session, errs in obj(data.get("errors", {})).items():
            self.errors[str(session)] = [tool_error_of(err) for err in arr(errs)]
        self._matrix = None
