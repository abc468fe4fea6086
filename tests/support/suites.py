"""The parts of the suite, by directory: the one place that says which markers a test carries.

``tests/conftest.py`` applies these markers to every collected test, so a module never sets
``integration``, ``browser``, ``e2e`` or ``unit`` by hand (``slow`` stays a hand-set marker).
``pytest -m unit`` is then exactly ``tests/unit``: no network, no service started.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# Top-level directory under tests/ -> the markers its tests carry.
PARTS: dict[str, tuple[str, ...]] = {
    "unit": ("unit",),
    "integration": ("integration",),
    "reliability": ("integration",),
    "browser": ("integration", "browser"),
    "e2e": ("integration", "e2e"),
}

# Session fixtures (tests/conftest.py) that start a real service; a unit test may use none of them.
SERVICE_FIXTURES = frozenset({"embedding_addr"})


def part_of(path: Path) -> str | None:
    """The part (a key of PARTS) that a test module at ``path`` belongs to, or None if it is in none."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return None
    if len(parts) < 2 or parts[0] not in PARTS:
        return None
    return parts[0]


def markers_for(path: Path) -> tuple[str, ...]:
    """The markers a test module at ``path`` carries (none outside the known parts)."""
    part = part_of(path)
    return PARTS[part] if part is not None else ()


def misplaced(path: Path, fixtures: Iterable[str]) -> str | None:
    """Why a test at ``path`` using ``fixtures`` is in the wrong part of the suite, or None if it is not."""
    part = part_of(path)
    if part is None:
        return f"{path}: a test module belongs under one of tests/{{{','.join(PARTS)}}}/"
    started = sorted(SERVICE_FIXTURES.intersection(fixtures))
    if part == "unit" and started:
        return f"{path}: a unit test starts a service (fixture {', '.join(started)}); move it to tests/integration/"
    return None
