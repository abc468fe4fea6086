"""How a secrets corpus is measured: forms kept out of what ``redact`` returns, ordinary texts left alone.

A form counts as stored or shown when its evidence (``Secret.evidence``) is still in ``redact``'s output;
an ordinary text counts as changed when ``redact`` returns anything else. Figures give counts and the
categories of the missed forms, never the forms: a held-out corpus is read by nobody who tunes rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kernel.privacy import redact
from tests.support.secrets_corpus import Secret

FOUND_BAR = 0.98  # the share of forms never stored or shown (issue 36); and 0 ordinary texts changed


@dataclass(frozen=True)
class Figures:
    found: int
    forms: int
    missed_by_category: Counter[str]
    changed: int
    ordinary: int

    @property
    def share(self) -> float:
        return self.found / self.forms

    def lines(self) -> list[str]:
        out = [
            f"secret forms never stored or shown: {self.found} of {self.forms} ({self.share * 100:.1f} %)",
            f"ordinary texts changed: {self.changed} of {self.ordinary}",
        ]
        return out + [f"  missed in {cat}: {n}" for cat, n in sorted(self.missed_by_category.items())]


def measure(secrets: Sequence[Secret], ordinary: Sequence[str], family_of: Callable[[str], str]) -> Figures:
    missed = Counter(family_of(s.name) for s in secrets if s.evidence in redact(s.text))
    return Figures(
        found=len(secrets) - sum(missed.values()),
        forms=len(secrets),
        missed_by_category=missed,
        changed=sum(1 for text in ordinary if redact(text) != text),
        ordinary=len(ordinary),
    )


def shape_problems(secrets: Sequence[Secret], ordinary: Sequence[str], family_of: Callable[[str], str]) -> list[str]:
    """What keeps a corpus from measuring anything: too few forms or families, repeated names or needles,
    a needle not in its text, not exactly 200 distinct ordinary texts, or a needle inside one of them."""
    problems = []
    if len(secrets) < 150 or len({family_of(s.name) for s in secrets}) < 20:
        problems.append("fewer than 150 forms in 20 families")
    if len({s.name for s in secrets}) != len(secrets) or not all("/" in s.name for s in secrets):
        problems.append("form names repeat or lack their family/")
    if len({s.needle for s in secrets}) != len(secrets) or not all(s.needle in s.text for s in secrets):
        problems.append("needles repeat or are missing from their texts")
    if len(ordinary) != 200 or len(set(ordinary)) != 200:
        problems.append("not exactly 200 distinct ordinary texts")
    clashes = sum(1 for s in secrets for text in ordinary if s.needle in text)
    if clashes:
        problems.append(f"{clashes} needles occur in ordinary texts")
    return problems
