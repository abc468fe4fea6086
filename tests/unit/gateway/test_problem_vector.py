"""The statement line of a prompt, and the vector the kg judges a problem by (gateway/problem_vector.py)."""

from __future__ import annotations

import numpy as np

from gateway.problem_vector import combined, head

REPORT = (
    "memory usage high, keeps going up\n\n"
    "User Agent: Mozilla/5.0 (Windows NT 6.1; rv:85.0) Gecko/20100101 Firefox/85.0\n"
    "Steps to reproduce: browse for an hour with a few tabs open, then look at the task manager."
)


def test_a_report_is_judged_by_its_first_line_too() -> None:
    assert head(REPORT) == "memory usage high, keeps going up"


def test_a_one_line_prompt_is_its_own_statement() -> None:
    assert head("pytest fails with ModuleNotFoundError: No module named 'billing'") == ""
    assert head("") == ""


def test_a_long_single_line_is_split_at_its_first_sentence() -> None:
    prompt = "The nightly export stopped writing files. " + "It ran fine last week, and the bucket is there. " * 3
    assert head(prompt) == "The nightly export stopped writing files."


def test_a_first_line_too_long_to_be_a_statement_is_not_one() -> None:
    assert head("x" * 300 + "\n" + "details " * 30) == ""


def test_the_vector_is_halfway_between_the_whole_and_the_head() -> None:
    whole, statement = np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32)
    mixed = combined(whole, statement)
    assert np.allclose(mixed, [2**-0.5, 2**-0.5])
    assert combined(whole, None) is whole
