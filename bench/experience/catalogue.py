"""Every project and known problem of the experience benchmark, and how to look a problem up by its key."""

from __future__ import annotations

from bench.experience import backend_data, backend_ops
from bench.experience.problems import BACKEND, LEDGER, STOREFRONT, THREE_PROJECT_PROBLEMS, TIDEWATER, Problem

PROJECTS = (LEDGER, STOREFRONT, TIDEWATER, BACKEND)
BACKEND_PROBLEMS: tuple[Problem, ...] = (*backend_data.PROBLEMS, *backend_ops.PROBLEMS)
PROBLEMS: tuple[Problem, ...] = (*THREE_PROJECT_PROBLEMS, *BACKEND_PROBLEMS)
BY_KEY = {p.key: p for p in PROBLEMS}


def problem(key: str) -> Problem:
    return BY_KEY[key]


def projects_of(problems: tuple[Problem, ...]) -> dict[str, set[str]]:
    """Project -> the keys of the problems solved in it."""
    out: dict[str, set[str]] = {}
    for p in problems:
        for project in p.right:
            out.setdefault(project, set()).add(p.key)
    return out
