"""Merging two known problems, and undoing it: an explicit step, never a cosine's decision.

The episode book files an episode under a known problem only on clear
evidence (problem_match.py), so one problem told in two unlike ways can end
up as two. Someone who knows they are one merges them: ``merge_problems``
folds problem B into problem A of the same project. A keeps its id and
statement; B's phrasings and error lines (as vectors), error signatures,
terms, fixes and failed attempts join A, its episode count adds to A's, its
open episodes now belong to A, and B leaves recognition and the counts.

The ``ProblemMerge`` it returns (and the book keeps, by id) holds B as it
was and exactly what B added to A. ``unmerge_problems`` puts B back as it
was and takes from A what came from B and nothing else: a fix A had too
worked B's count fewer times, one only B had goes unless A has since used
it more; whatever A learned after the merge stays with A.

Merging does not trim A to the book's caps (MAX_FIXES, MAX_PHRASINGS, ...):
trimming would lose A's own items, which an undo could not give back. The
next episode filed under A trims as usual.

Refusals: ``UnknownProblem`` (no such problem or merge in the project) and
``MergeRefused`` (the same problem twice, two projects, an undone merge, a
merge whose problem was since merged away). ``check_merge`` /
``check_unmerge`` raise them without changing anything, so the store can
refuse a request before it is journaled. Plain module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from services.kg.episode_records import (
    Attempt,
    Fix,
    KnownProblem,
    ProblemMerge,
    Vector,
    decode_vector,
    encode_vector,
    problem_json,
    problem_of,
)
from services.kg.episodes import EpisodeBook
from services.kg.json_fields import arr, to_int

MAX_MERGES = 500  # merge records kept per book; past it the oldest undone one (else the oldest) goes
SAME_VECTOR = 1e-6  # two vectors this close in every component are one (float32 unit vectors)


class UnknownProblem(LookupError):
    """No known problem, or no merge, of that id in the project."""


class MergeRefused(ValueError):
    """The merge or undo cannot be done as asked; the message says why and what to do instead."""


@dataclass(frozen=True)
class ProblemSummary:
    """One known problem as a list shows it."""

    id: str
    project: str
    statement: str
    fixes: int
    failures: int
    episodes: int
    last: float


def list_problems(book: EpisodeBook, project: str) -> list[ProblemSummary]:
    """The known problems of ``project``, most recently seen first."""
    found = [p for p in book.problems.values() if p.project == project]
    found.sort(key=lambda p: (-p.last, p.id))
    return [ProblemSummary(p.id, p.project, p.text, len(p.fixes), len(p.failures), p.episodes, p.last) for p in found]


def merges_holding(book: EpisodeBook, project: str) -> list[ProblemMerge]:
    """The merges of ``project`` not undone, newest first."""
    held = [m for m in book.merges.values() if m.project == project and not m.undone_at]
    return sorted(held, key=lambda m: -int(m.id[1:]))


def _problem(book: EpisodeBook, project: str, problem_id: str) -> KnownProblem:
    problem = book.problems.get(problem_id)
    if problem is None:
        into = next((m for m in merges_holding(book, project) if m.merged == problem_id), None)
        if into is not None:
            raise MergeRefused(
                f"known problem {problem_id} was merged into {into.keep} by {into.id}; "
                f"use {into.keep}, or undo {into.id} first"
            )
        raise UnknownProblem(f"no known problem {problem_id!r} in project {project!r}; list_problems shows the ids")
    return problem


def check_merge(book: EpisodeBook, project: str, keep: str, merge: str) -> tuple[KnownProblem, KnownProblem]:
    """(the problem kept, the problem merged into it), or the refusal; changes nothing."""
    if keep == merge:
        raise MergeRefused(f"{keep} and {merge} are the same problem: name two different known problems")
    kept, merged = _problem(book, project, keep), _problem(book, project, merge)
    if kept.project != merged.project:
        raise MergeRefused(
            f"{keep} is a problem of project {kept.project!r} and {merge} of {merged.project!r}: "
            "only two problems of one project can be merged"
        )
    if kept.project != project:
        raise UnknownProblem(
            f"no known problem {keep!r} in project {project!r} (it is of {kept.project!r}); "
            "merge problems from that project"
        )
    return kept, merged


def check_unmerge(book: EpisodeBook, project: str, merge_id: str) -> ProblemMerge:
    """The merge to undo, or the refusal; changes nothing."""
    record = book.merges.get(merge_id)
    if record is None or record.project != project:
        raise UnknownProblem(f"no merge {merge_id!r} in project {project!r}; list_problems shows the merges that hold")
    if record.undone_at:
        raise MergeRefused(f"merge {merge_id} ({record.merged} into {record.keep}) was already undone")
    later = next((m for m in merges_holding(book, project) if m.merged == record.keep), None)
    if later is not None:
        raise MergeRefused(
            f"{record.keep} was itself merged into {later.keep} by {later.id} since; undo {later.id} first"
        )
    return record


def merge_problems(book: EpisodeBook, project: str, keep: str, merge: str, ts: float) -> ProblemMerge:
    """Fold known problem ``merge`` into ``keep`` (both of ``project``); returns the merge record."""
    kept, merged = check_merge(book, project, keep, merge)
    record = ProblemMerge(book.new_merge_id(), project, keep, merge, ts, problem_json(merged))
    record.last_before = kept.last
    vectors = ([merged.vector] if merged.vector is not None else []) + merged.phrasings
    if kept.vector is None and vectors:
        kept.vector, vectors = vectors[0], vectors[1:]
        record.took_vector = True
    record.phrasings = _add_vectors(kept.phrasings, vectors, kept)
    record.symptoms = _add_vectors(kept.symptoms, merged.symptoms, kept)
    record.signatures = [s for s in dict.fromkeys(merged.signatures) if s not in kept.signatures]
    kept.signatures.extend(record.signatures)
    record.terms = [t for t in dict.fromkeys(merged.terms) if t not in kept.terms]
    kept.terms.extend(record.terms)
    for fix in merged.fixes:
        same = next((f for f in kept.fixes if f.text == fix.text), None)
        if same is None:
            kept.fixes.append(Fix(fix.text, fix.doc_id, fix.worked, fix.last))
        else:
            same.worked += fix.worked
        record.fixes.append(Fix(fix.text, fix.doc_id, fix.worked, fix.last))
    kept.fixes.sort(key=lambda f: (-f.worked, -f.last))
    for attempt in merged.failures:
        known = _attempt_like(kept.failures, attempt)
        if known is None:
            kept.failures.append(Attempt(**vars(attempt)))
        else:
            known.count += attempt.count
        record.failures.append(Attempt(**vars(attempt)))
    kept.episodes += merged.episodes
    kept.last = max(kept.last, merged.last)
    record.last_after = kept.last
    for session, episode in book.open.items():
        if episode.problem_id == merge:
            episode.problem_id = keep
            record.sessions.append(session)
    book.drop_problem(merge)
    book.put_problem(kept)
    book.merges[record.id] = record
    _keep_few(book)
    return record


def unmerge_problems(book: EpisodeBook, project: str, merge_id: str, ts: float) -> ProblemMerge:
    """Undo merge ``merge_id``: the merged problem comes back as it was, and the kept one loses exactly
    what the merge gave it. A kept problem gone since (the oldest of a full book) leaves the merged one
    back on its own. Returns the record, marked undone."""
    record = check_unmerge(book, project, merge_id)
    kept = book.problems.get(record.keep)
    if kept is not None:
        _take_back(kept, record, _brought_by_others(book, record))
        book.put_problem(kept)
    restored = problem_of(record.original)
    book.put_problem(restored)
    for session in record.sessions:
        episode = book.open.get(session)
        if episode is not None and episode.problem_id == record.keep:
            episode.problem_id = restored.id
    record.undone_at = ts
    return record


def _brought_by_others(book: EpisodeBook, record: ProblemMerge) -> set[str]:
    """Signatures and terms that another merge into the same problem brought too: they stay."""
    others = [m for m in merges_holding(book, record.project) if m.keep == record.keep and m.id != record.id]
    return {str(x) for m in others for key in ("signatures", "terms") for x in arr(m.original.get(key, []))}


def _take_back(kept: KnownProblem, record: ProblemMerge, keep_too: set[str]) -> None:
    if record.took_vector:
        kept.vector = None
    _drop_vectors(kept.phrasings, record.phrasings)
    _drop_vectors(kept.symptoms, record.symptoms)
    if kept.vector is None and kept.phrasings:  # told in other words since: its first rewording leads
        kept.vector = kept.phrasings.pop(0)
    kept.signatures[:] = [s for s in kept.signatures if s not in record.signatures or s in keep_too]
    kept.terms[:] = [t for t in kept.terms if t not in record.terms or t in keep_too]
    for fix in record.fixes:
        same = next((f for f in kept.fixes if f.text == fix.text), None)
        if same is not None:
            same.worked -= fix.worked
    kept.fixes[:] = sorted((f for f in kept.fixes if f.worked > 0), key=lambda f: (-f.worked, -f.last))
    for attempt in record.failures:
        known = _attempt_like(kept.failures, attempt)
        if known is not None:
            known.count -= attempt.count
    kept.failures[:] = [a for a in kept.failures if a.count > 0]
    kept.episodes = max(1, kept.episodes - to_int(record.original.get("episodes", 1)))
    if kept.last == record.last_after:  # nothing filed under it since
        kept.last = record.last_before


def _attempt_like(attempts: list[Attempt], attempt: Attempt) -> Attempt | None:
    return next((a for a in attempts if a.tried == attempt.tried and a.signature == attempt.signature), None)


def _same_vector(a: Vector, b: Vector) -> bool:
    """The same vector, through a JSON round trip (decoding normalises again, so bits may differ)."""
    return a.shape == b.shape and bool(np.allclose(a, b, atol=SAME_VECTOR))


def _add_vectors(known: list[Vector], vectors: list[Vector], problem: KnownProblem) -> list[str]:
    """Append the vectors the problem does not already hold; returns those added, encoded."""
    added = []
    for vector in vectors:
        if any(_same_vector(vector, v) for v in problem.all_vectors()):
            continue
        known.append(vector)
        added.append(encode_vector(vector))
    return added


def _drop_vectors(known: list[Vector], encoded: list[str]) -> None:
    taken = [v for v in (decode_vector(text) for text in encoded) if v is not None]
    known[:] = [v for v in known if not any(_same_vector(v, t) for t in taken)]


def _keep_few(book: EpisodeBook) -> None:
    while len(book.merges) > MAX_MERGES:
        undone = [m for m in book.merges.values() if m.undone_at]
        oldest = min(undone or book.merges.values(), key=lambda m: int(m.id[1:]))
        del book.merges[oldest.id]
