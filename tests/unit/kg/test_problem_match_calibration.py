"""The known-problem judge (services/kg/problem_match.py) on this project's own pairs, all at once.

Every problem of tests/unit/kg/problem_pairs.py is filed as an episode of ONE project, so they share
a vocabulary (pytest, docker, alembic, postgres ...). Then each recurrence (other words, other
names) and each near-miss (same tool or subsystem, another problem) asks for lessons. The judge's
constants were calibrated on real duplicate bug reports (bench/bench_duplicate_reports.py --part
calibrate), not on these pairs: here they are a held-out check, written by another hand.
Real all-MiniLM-L6-v2 vectors; run with ``-s`` for the table.
"""

from __future__ import annotations

import pytest

from services.embedding.model import Encoder
from services.kg.episode_records import encode_vector
from services.kg.episodes import EpisodeBook
from services.kg.problem_match import (
    BACKGROUND,
    RECALL_MARGIN,
    Candidate,
    MatchRules,
    expresses_failure,
    judge,
)
from tests.unit.kg.problem_pairs import (
    EPISODE_NEAR_MISSES,
    NEAR_MISSES,
)
from tests.unit.kg.taught_books import ON, PROJECT, filed_book, vector
from tests.unit.kg.taught_books import calibration_fix as fix_of


def shown_fixes(book: EpisodeBook, encoder: Encoder, prompt: str, session: str) -> list[str]:
    lessons = book.lessons(vector(encoder, prompt), session, PROJECT, 10_000.0, prompt=prompt)
    return [x.text for x in lessons if x.kind == "solution"]


@pytest.fixture(scope="module")
def filed(encoder: Encoder) -> tuple[EpisodeBook, list[str]]:
    return filed_book(encoder)


def test_problems_that_share_a_vocabulary_are_never_merged(filed: tuple[EpisodeBook, list[str]]) -> None:
    book, recurrences = filed
    assert len(book.problems) == len(recurrences)


def test_recurrences_recall_their_own_fix_and_near_misses_recall_nothing(
    filed: tuple[EpisodeBook, list[str]], encoder: Encoder
) -> None:
    book, recurrences = filed
    right = wrong = 0
    for i, text in enumerate(recurrences):
        fixes = shown_fixes(book, encoder, text, f"later-{i}")
        right += fixes[:1] == [fix_of(i)]
        wrong += any(f != fix_of(i) for f in fixes)
    near = [b for _, b in NEAR_MISSES] + [t for _, t in EPISODE_NEAR_MISSES]
    recalled = sum(bool(shown_fixes(book, encoder, text, f"near-{k}")) for k, text in enumerate(near))
    print(
        f"\n{len(recurrences)} problems in one project: own fix first for {right}, another's fix for {wrong}; "
        f"{recalled} of {len(near)} near-misses got a lesson"
    )
    # Measured: 22 right (23 at fp32), 0 wrong, 7 of 47 near-misses (the old rule: 19 of them
    # once its request gate is taken away, as the issue asks).
    assert right >= 0.45 * len(recurrences)
    assert wrong <= 0.05 * len(recurrences)
    assert recalled <= 0.16 * len(near)


def test_without_the_margin_near_misses_recall_lessons(encoder: Encoder) -> None:
    """The ablation the judge is measured against: the best problem over a fixed bar, no runner-up."""
    book, _ = filed_book(encoder, MatchRules(frozenset({"margin"})))
    near = [b for _, b in NEAR_MISSES] + [t for _, t in EPISODE_NEAR_MISSES]
    with_margin, _ = filed_book(encoder)
    without = sum(bool(shown_fixes(book, encoder, t, f"n{k}")) for k, t in enumerate(near))
    within = sum(bool(shown_fixes(with_margin, encoder, t, f"n{k}")) for k, t in enumerate(near))
    assert without > within


def test_a_request_naming_the_same_cve_and_package_is_the_same_problem(encoder: Encoder) -> None:
    """The request gate blocked real recurrences such as "Upgrade X ... CVE-..." (8 of 41 on real
    reports); a shared CVE id is hard evidence whatever the mood, and a request without one still
    recalls nothing."""
    book, _ = filed_book(encoder)
    cve = "npm audit fails the build: lodash 4.17.20 is vulnerable to CVE-2021-23337 (command injection)"
    book.apply_turn(
        {
            "ts": 9_000.0,
            "session_id": "cve",
            "project": PROJECT,
            "prompt": cve,
            "outcome": "failed",
            "answer": "Tried npm audit fix",
            "vector": encode_vector(vector(encoder, cve)),
        }
    )
    book.apply_turn(
        {
            "ts": 9_001.0,
            "session_id": "cve",
            "project": PROJECT,
            "prompt": "ok",
            "outcome": "worked",
            "answer": "Pinned lodash to 4.17.21 in package.json overrides",
            "vector": "",
        }
    )
    request = "Upgrade lodash in the frontend, security flagged CVE-2021-23337 again"
    lessons = book.lessons(vector(encoder, request), "later", PROJECT, 10_000.0, prompt=request)
    assert [x.text for x in lessons if x.kind == "solution"] == ["Pinned lodash to 4.17.21 in package.json overrides"]
    assert lessons[0].why == "names CVE-2021-23337"
    other = "Upgrade lodash in the frontend to the latest minor version"
    assert book.lessons(vector(encoder, other), "later2", PROJECT, 10_000.0, prompt=other) == []


def test_the_judge_wants_a_margin_over_the_runner_up_and_the_background() -> None:
    clear = [Candidate("p1", 0.72, 0.0), Candidate("p2", 0.41, 0.0)]
    close = [Candidate("p1", 0.72, 0.0), Candidate("p2", 0.66, 0.0)]
    alone = [Candidate("p1", BACKGROUND + RECALL_MARGIN - 0.01, 0.0)]
    verdict = judge(clear, RECALL_MARGIN, ON)
    assert verdict is not None and verdict.problem_id == "p1" and verdict.why == "similar wording (0.72)"
    assert judge(close, RECALL_MARGIN, ON) is None
    assert judge(alone, RECALL_MARGIN, ON) is None
    # Switched off, the margin gives way to a bar on the score alone: the close pair passes.
    assert judge(close, RECALL_MARGIN, MatchRules(frozenset({"margin"}))) is not None


def test_a_verdict_says_what_made_it_the_same_problem() -> None:
    by_terms = judge([Candidate("p1", 0.5, 0.9, ("cve-2021-23337", "lodash")), Candidate("p2", 0.3, 0.0)], 0.2, ON)
    by_error = judge([Candidate("p1", 0.3, 0.0, (), "no module named <name>"), Candidate("p2", 0.2, 0.0)], 0.1, ON)
    assert by_terms is not None and by_terms.why == "shares 'cve-2021-23337', 'lodash'"
    assert by_error is not None and by_error.why == "same error: no module named <name>"


def test_unknown_mechanisms_in_the_ablation_switch_are_refused() -> None:
    assert MatchRules.from_env({"MNEMEX_KG_ABLATE": "rarity, margin"}).off == {"rarity", "margin"}
    with pytest.raises(ValueError, match="choose from rarity, margin, signature, fix"):
        MatchRules.from_env({"MNEMEX_KG_ABLATE": "rarety"})


def test_the_failure_words_tell_a_problem_from_a_task() -> None:
    assert expresses_failure("the api still can't reach postgres")
    assert expresses_failure("pytest is red after the rename")
    assert expresses_failure("the worker is leaking file handles again")
    assert expresses_failure("pandas prints a SettingWithCopyWarning in the cleaning step")
    assert expresses_failure("Upgrade lodash, it is vulnerable to CVE-2021-23337")
    assert not expresses_failure("add an index on orders.created_at")
    assert not expresses_failure("the mirror of the package index is in Frankfurt")  # "error" inside a word
