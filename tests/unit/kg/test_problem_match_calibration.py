"""Calibration of the known-problem match with the real all-MiniLM-L6-v2.

A paraphrased recurrence (other words, other file and module names) must
match its problem; a near-miss (shared vocabulary, different problem) and a
different problem must not. Prints the separation table and the threshold
services/kg/problem_match.py uses; run with ``-s`` to see it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from services.kg.problem_match import MATCH_THRESHOLD, expresses_failure, is_request, may_recall
from tests.unit.kg.problem_pairs import NEAR_MISSES, PARAPHRASES, SYMPTOM_PARAPHRASES


def _scores(encoder: Any, pairs: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """(cosine of each pair, whether the second prompt passes the failure gate)."""
    first = encoder.encode([a for a, _ in pairs])
    second = encoder.encode([b for _, b in pairs])
    gate = np.array([may_recall(b) for _, b in pairs])
    return (first * second).sum(axis=1), gate


def test_paraphrases_match_and_near_misses_do_not(encoder: Any) -> None:
    assert len(PARAPHRASES) >= 20 and len(NEAR_MISSES) >= 20
    para, para_gate = _scores(encoder, PARAPHRASES)
    near, near_gate = _scores(encoder, NEAR_MISSES)
    problems = encoder.encode([a for a, _ in PARAPHRASES])
    recurrences = encoder.encode([b for _, b in PARAPHRASES])
    cross = problems @ recurrences.T
    off_diagonal = ~np.eye(len(PARAPHRASES), dtype=bool)
    cross_gate = np.broadcast_to(para_gate[None, :], cross.shape)

    print(f"\n{'threshold':>9} {'paraphrases':>11} {'near-misses':>11} {'other problems':>14}")
    for threshold in (0.35, 0.40, MATCH_THRESHOLD, 0.50, 0.55, 0.60):
        hit = float(((para >= threshold) & para_gate).mean())
        miss = float(((near >= threshold) & near_gate).mean())
        other = float(((cross >= threshold) & cross_gate)[off_diagonal].mean())
        mark = "  <- used" if threshold == MATCH_THRESHOLD else ""
        print(f"{threshold:>9.2f} {hit:>11.2f} {miss:>11.2f} {other:>14.3f}{mark}")
    print(
        f"cosine: paraphrases median {np.median(para):.3f}, near-misses median {np.median(near):.3f}; "
        f"gate passes {para_gate.mean():.2f} of paraphrases, {near_gate.mean():.2f} of near-misses"
    )

    matched = (para >= MATCH_THRESHOLD) & para_gate
    near_matched = (near >= MATCH_THRESHOLD) & near_gate
    other_matched = ((cross >= MATCH_THRESHOLD) & cross_gate)[off_diagonal]
    assert matched.mean() >= 0.8
    assert near_matched.mean() <= 0.25
    assert other_matched.mean() <= 0.005
    # Without the failure gate the same threshold would recall lessons on most near-misses.
    assert (near >= MATCH_THRESHOLD).mean() > near_matched.mean() + 0.2


def test_the_gate_tells_a_failure_from_a_task() -> None:
    assert expresses_failure("the api still can't reach postgres")
    assert expresses_failure("pytest is red after the rename")
    assert not expresses_failure("add an index on orders.created_at")
    assert not expresses_failure("how do I squash the last three commits")


def test_a_recurrence_told_as_a_symptom_passes_the_gate(encoder: Any) -> None:
    """A leak, an overflow, something that stopped, a collision or a CamelCase exception class is
    a failure too; the gate used to read only error words and rejected these recurrences."""
    cosine, gate = _scores(encoder, SYMPTOM_PARAPHRASES)
    for (_, recurrence), value in zip(SYMPTOM_PARAPHRASES, cosine, strict=True):
        print(f"{value:.2f} {recurrence}")
    assert gate.all()
    assert float((cosine >= MATCH_THRESHOLD).mean()) >= 0.5


def test_the_gate_reads_exception_class_names_and_symptom_words() -> None:
    assert expresses_failure("the upload gives ConnectTimeoutError after a minute")
    assert expresses_failure("pandas prints a SettingWithCopyWarning in the cleaning step")
    assert expresses_failure("the worker is leaking file handles again")
    assert expresses_failure("the counter overflows on the biggest table")
    assert expresses_failure("the dev server stopped reloading after edits")
    assert not expresses_failure("the mirror of the package index is in Frankfurt")  # "error" inside a word


def test_a_report_without_error_words_may_recall_and_a_request_may_not() -> None:
    """The gate used to need an error word, so a recurrence told as what happens ("the image
    rebuilds from scratch after every edit") never recalled its lessons."""
    assert may_recall("changing one template makes the whole site rebuild from scratch every time")
    assert may_recall("totals in the monthly summary come out negative once the amounts get large")
    assert not expresses_failure("totals in the monthly summary come out negative once the amounts get large")
    for request in (
        "add an index on orders.created_at",
        "How do I squash the last three commits",
        "Can you write a migration that adds a column",
        "should we move the docs to a static site generator?",
        "please convert the class component to a function",
    ):
        assert is_request(request) and not may_recall(request), request
