"""Episodes: a problem from the turn that states it to the turn that fixes it.

An episode opens on the first scored turn of a session that is not chatter
(a turn scored ``failed``, ``partial`` or ``worked``). Later scored turns of
the same session belong to it until one is scored ``worked`` (the episode
is solved), the session states a new, unrelated problem, or it goes quiet
for ``ABANDON_SECONDS`` (abandoned). Each ``failed`` turn adds an attempt:
the command that failed (or the head of the answer) and the error line the
session's tool calls produced meanwhile.

An episode joins a ``KnownProblem`` of its project (the best match, or a new
one) with its first failed attempt or its fix: the problem statement (the
episode's FIRST prompt, never the complaint that ends it), its vector, the
normalised signatures of its errors and the vectors of their error lines (the
gateway embeds a failed tool call's telling line), the fixes that worked and
the attempts that failed. Known problems keep their own short text, so a lesson outlives
the exchange memories it came from, and a failed attempt counts even when the
session ends without a fix.

``match`` finds known problems for a new prompt by cosine similarity of the
prompt's vector and by the error signatures of the session's recent tool
calls (the rule and its calibration: problem_match.py).

Where the state lives: in the kg, journaled beside its other graphs, one book
per user (store.EPISODES_PROJECT). The memory service owns a session's turns,
but an open episode is learned structure in the making, built only from what
already reaches the kg (scores through the gateway's teaching, tool errors);
so the gateway stays stateless, a restart or another gateway replica sees the
same open episodes, and sharding by user keeps a user's sessions on one shard.

Plain module; state changes only through ``apply_turn`` / ``apply_tool_error``
(journaled ops), and every part is JSON-able.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from services.kg.episode_records import (
    Attempt,
    Episode,
    EpisodeLesson,
    Fix,
    KnownProblem,
    ToolError,
    Vector,
    decode_vector,
    encode_vector,
    vectors_of,
)
from services.kg.problem_match import MATCH_THRESHOLD, SIGNATURE_BONUS, expresses_failure, may_recall

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
SECOND_MATCH_MARGIN = 0.05
SAME_PHRASING = 0.95  # a vector this close to a known phrasing adds nothing
# A fix already known for a problem identifies it: an episode solved by that fix joins the problem
# when its statement is at least this similar (below the match threshold: the fix is the evidence).
FIX_CONFIRMED_SIMILARITY = 0.3
MIN_PROBLEM_WORDS = 4  # a one-turn "worked" episode needs a problem statement at least this long


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
        if all(float(v @ vector) < SAME_PHRASING for v in [*(also or []), *known]):
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


class EpisodeBook:
    """Open episodes per session, recent tool errors per session, and the known problems."""

    def __init__(self) -> None:
        self.open: dict[str, Episode] = {}
        self.errors: dict[str, list[ToolError]] = {}
        self.problems: dict[str, KnownProblem] = {}
        self._next_id = 1
        self._matrix: Vector | None = None
        self._matrix_ids: list[str] = []

    # -- ops -------------------------------------------------------------------
    def apply_tool_error(self, op: dict[str, Any]) -> None:
        session = str(op["session_id"])
        errors = self.errors.setdefault(session, [])
        errors.append(
            ToolError(
                str(op["command"]), str(op["line"]), str(op["signature"]), float(op["ts"]), str(op.get("vector", ""))
            )
        )
        del errors[:-MAX_SESSION_ERRORS]
        if len(self.errors) > MAX_SESSIONS:
            oldest = min(self.errors, key=lambda s: self.errors[s][-1].ts if self.errors[s] else 0.0)
            del self.errors[oldest]

    def apply_turn(self, op: dict[str, Any]) -> dict[str, Any]:
        """One scored turn; returns the episode's problem statement and what happened to it.

        A failed attempt joins the episode's known problem at once (a session may end without
        a fix, or never come back); the fix joins it when a turn is scored ``worked``."""
        ts = float(op["ts"])
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
        return float(vector @ episode.vector) < NEW_PROBLEM_SIMILARITY

    def _attach(self, episode: Episode, fix: Fix | None = None) -> KnownProblem:
        """The known problem an episode belongs to: the one it already joined, one of its project
        that the same fix already solved, the best match in its project, or a new one."""
        problem = self.problems.get(episode.problem_id)
        if problem is None:
            problem = self._solved_by(episode, fix) if fix is not None else None
        if problem is None:
            found = self.match(episode.vector, episode.signatures, project=episode.project, limit=1, local_only=True)
            problem = self.problems[found[0][0]] if found else None
        if problem is None:
            problem = KnownProblem(f"p{self._next_id}", episode.project, episode.problem, episode.vector, [])
            self._next_id += 1
            self.problems[problem.id] = problem
            self._matrix = None
            if len(self.problems) > MAX_PROBLEMS:
                del self.problems[min(self.problems.values(), key=lambda p: p.last).id]
        elif episode.problem_id != problem.id:
            self._add_phrasing(problem, episode.vector)
        episode.problem_id = problem.id
        problem.signatures = list(dict.fromkeys([*problem.signatures, *episode.signatures]))[:MAX_SESSION_ERRORS]
        told = ([problem.vector] if problem.vector is not None else []) + problem.phrasings
        if _add_symptoms(problem.symptoms, episode.symptoms, MAX_SYMPTOMS, told):
            self._matrix = None
        problem.last = max(problem.last, episode.last)
        return problem

    def _solved_by(self, episode: Episode, fix: Fix) -> KnownProblem | None:
        """The most similar problem of the episode's project that this fix already solved."""
        best: tuple[float, KnownProblem | None] = (FIX_CONFIRMED_SIMILARITY, None)
        for problem in self.problems.values():
            if problem.project != episode.project or not any(
                f.text == fix.text or (fix.doc_id and f.doc_id == fix.doc_id) for f in problem.fixes
            ):
                continue
            vector = episode.vector
            if vector is None:  # no vector to compare: the fix alone decides
                similarity = FIX_CONFIRMED_SIMILARITY
            else:
                similarity = max((float(v @ vector) for v in problem.all_vectors()), default=0.0)
            if similarity >= best[0]:
                best = (similarity, problem)
        return best[1]

    def _add_phrasing(self, problem: KnownProblem, vector: Vector | None) -> None:
        if vector is None:
            return
        if problem.vector is None:
            problem.vector = vector
        elif max(float(v @ vector) for v in problem.all_vectors()) < SAME_PHRASING:
            problem.phrasings.append(vector)
            del problem.phrasings[:-MAX_PHRASINGS]
        else:
            return
        self._matrix = None

    @staticmethod
    def _add_fix(problem: KnownProblem, fix: Fix) -> None:
        for known in problem.fixes:
            if known.text == fix.text:
                known.worked += 1
                known.last = fix.last
                known.doc_id = fix.doc_id or known.doc_id
                return
        problem.fixes.append(fix)
        problem.fixes.sort(key=lambda f: (-f.worked, -f.last))
        del problem.fixes[MAX_FIXES:]

    # -- reads -----------------------------------------------------------------
    def _vectors(self) -> tuple[Vector | None, list[str]]:
        """Every phrasing of every known problem as one matrix, and the problem id of each row."""
        if self._matrix is None:
            rows = [(p.id, v) for p in self.problems.values() for v in p.all_vectors()]
            self._matrix_ids = [pid for pid, _ in rows]
            self._matrix = np.stack([v for _, v in rows]).astype(np.float32) if rows else None
        return self._matrix, self._matrix_ids

    def match(
        self,
        vector: Vector | None,
        signatures: list[str],
        *,
        project: str,
        limit: int,
        local_only: bool = False,
    ) -> list[tuple[str, float]]:
        """(problem id, score) of known problems matching, local project first, best first."""
        scores: dict[str, float] = {}
        matrix, ids = self._vectors()
        if vector is not None and matrix is not None and matrix.shape[1] == vector.shape[0]:
            sims = matrix @ vector
            for i in np.flatnonzero(sims >= MATCH_THRESHOLD - SIGNATURE_BONUS):
                pid = ids[int(i)]
                scores[pid] = max(scores.get(pid, -1.0), float(sims[i]))
        wanted = set(signatures)
        if wanted:
            for problem in self.problems.values():
                if wanted.intersection(problem.signatures):
                    base = scores.get(problem.id, MATCH_THRESHOLD if vector is None else 0.0)
                    scores[problem.id] = base + SIGNATURE_BONUS
        found = [
            (pid, score)
            for pid, score in scores.items()
            if score >= MATCH_THRESHOLD and (not local_only or self.problems[pid].project == project)
        ]
        found.sort(key=lambda item: (self.problems[item[0]].project != project, -item[1], item[0]))
        return found[:limit]

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
        problems: int = 2,
        fixes: int = 2,
        failures: int = 4,
    ) -> list[EpisodeLesson]:
        """Fixes and failed attempts of the known problems matching a prompt (local project first)."""
        if not self.problems:
            return []
        out: list[EpisodeLesson] = []
        fixes_left, failures_left = fixes, failures
        if prompt and not may_recall(prompt):
            vector = None  # a task or question: only a shared error signature recalls a problem
        matched = self.match(vector, self.recent_signatures(session_id, now), project=project, limit=problems)
        if not matched:
            return []
        # A weaker second match of the same project only adds noise: keep those about as good as its best.
        best: dict[str, float] = {}
        for pid, score in matched:
            best.setdefault(self.problems[pid].project, score)  # ``match`` orders best first per project
        matched = [(p, sc) for p, sc in matched if sc >= best[self.problems[p].project] - SECOND_MATCH_MARGIN]
        # What worked for the first (best local) problem is never also warned as a failure.
        worked = {f.text[:MAX_TRIED_CHARS] for f in self.problems[matched[0][0]].fixes}
        for pid, score in matched:
            problem = self.problems[pid]
            for fix in problem.fixes:
                if fixes_left <= 0:
                    break
                out.append(EpisodeLesson("solution", fix.text, problem.project, pid, fix.worked, 0, fix.doc_id, score))
                fixes_left -= 1
            for attempt in sorted(problem.failures, key=lambda a: (-a.count, -a.last)):
                if attempt.tried in worked and not attempt.error:
                    continue
                if failures_left <= 0:
                    break
                text = attempt.tried + (f" -> {attempt.error}" if attempt.error else "")
                out.append(EpisodeLesson("failure", text, problem.project, pid, 0, attempt.count, "", score))
                failures_left -= 1
        return out

    def counts(self) -> dict[str, int]:
        return {
            "episode_problems": len(self.problems),
            "open_episodes": len(self.open),
            "episode_failures": sum(len(p.failures) for p in self.problems.values()),
        }

    # -- persistence -----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        def attempt(a: Attempt) -> dict[str, Any]:
            return {"tried": a.tried, "error": a.error, "signature": a.signature, "count": a.count, "last": a.last}

        return {
            "next_id": self._next_id,
            "problems": [
                {
                    "id": p.id,
                    "project": p.project,
                    "text": p.text,
                    "vector": encode_vector(p.vector),
                    "signatures": p.signatures,
                    "fixes": [
                        {"text": f.text, "doc_id": f.doc_id, "worked": f.worked, "last": f.last} for f in p.fixes
                    ],
                    "failures": [attempt(a) for a in p.failures],
                    "last": p.last,
                    "phrasings": [encode_vector(v) for v in p.phrasings],
                    "symptoms": [encode_vector(v) for v in p.symptoms],
                }
                for p in self.problems.values()
            ],
            "open": [
                {
                    "session_id": e.session_id,
                    "project": e.project,
                    "problem": e.problem,
                    "vector": encode_vector(e.vector),
                    "started": e.started,
                    "last": e.last,
                    "signatures": e.signatures,
                    "attempts": [attempt(a) for a in e.attempts],
                    "problem_id": e.problem_id,
                    "symptoms": [encode_vector(v) for v in e.symptoms],
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

    def project_json(self, project: str) -> dict[str, Any]:
        """The known problems of one project, for that project's export (open episodes and recent tool
        errors are a session's passing state and stay out)."""
        data = self.to_json()
        return {"problems": [p for p in data["problems"] if p["project"] == project]}

    def import_problems(self, data: dict[str, Any], project: str) -> int:
        """Known problems from an export, added under fresh ids to ``project``; returns how many."""
        imported = EpisodeBook()
        imported.load_json({"problems": data.get("problems", [])})
        for problem in imported.problems.values():
            problem.id, problem.project = f"p{self._next_id}", project
            self._next_id += 1
            self.problems[problem.id] = problem
        self._matrix = None
        return len(imported.problems)

    def load_json(self, data: dict[str, Any]) -> None:
        self._next_id = max(self._next_id, int(data.get("next_id", 1)))
        for p in data.get("problems", []):
            self.problems[str(p["id"])] = KnownProblem(
                str(p["id"]),
                str(p["project"]),
                str(p["text"]),
                decode_vector(str(p.get("vector", ""))),
                [str(s) for s in p.get("signatures", [])],
                [
                    Fix(str(f["text"]), str(f.get("doc_id", "")), int(f["worked"]), float(f["last"]))
                    for f in p.get("fixes", [])
                ],
                [Attempt(**a) for a in p.get("failures", [])],
                float(p.get("last", 0.0)),
                vectors_of(p.get("phrasings", [])),
                vectors_of(p.get("symptoms", [])),
            )
        for e in data.get("open", []):
            self.open[str(e["session_id"])] = Episode(
                str(e["session_id"]),
                str(e["project"]),
                str(e["problem"]),
                decode_vector(str(e.get("vector", ""))),
                float(e["started"]),
                float(e["last"]),
                [str(s) for s in e.get("signatures", [])],
                [Attempt(**a) for a in e.get("attempts", [])],
                str(e.get("problem_id", "")),
                vectors_of(e.get("symptoms", [])),
            )
        for session, errs in data.get("errors", {}).items():
            self.errors[str(session)] = [ToolError(**err) for err in errs]
        self._matrix = None
