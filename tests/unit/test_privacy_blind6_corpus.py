"""The sixth held-out secrets corpus (``tests/support/secrets_blind6.py``), written for issue 36.

Written blind.  Measured blind first (236 of 255 forms, 92.5 %, and 3 of the 200 ordinary texts
changed), then released as a tuning corpus: the rules have since been tuned on its misses (generic
families, each tried on forms of its own in ``tests/unit/test_secret_random.py`` and
``test_secret_sixth_round.py``), so its figures no longer say how redaction does on unseen forms; a
corpus written blind after it does.  The bars are that at least 98 % of the forms are never stored or
shown (their evidence is absent from what ``redact`` returns) and that none of the 200 ordinary texts
changes; both are plain tests now.  Failure messages, and the figures printed by
``python -m tests.unit.test_privacy_blind6_corpus``, give counts and the categories of the missed
forms only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kernel.privacy import redact
from tests.support.secrets_blind6 import BLIND6_ORDINARY, BLIND6_SECRETS, family_of

FOUND_BAR = 0.98


@dataclass(frozen=True)
class Figures:
    """What the corpus measures: forms kept out, by category, and ordinary texts changed."""

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
        out += [f"  missed in {cat}: {n}" for cat, n in sorted(self.missed_by_category.items())]
        return out


def measure() -> Figures:
    missed = Counter(family_of(s.name) for s in BLIND6_SECRETS if s.evidence in redact(s.text))
    changed = sum(1 for text in BLIND6_ORDINARY if redact(text) != text)
    forms = len(BLIND6_SECRETS)
    return Figures(
        found=forms - sum(missed.values()),
        forms=forms,
        missed_by_category=missed,
        changed=changed,
        ordinary=len(BLIND6_ORDINARY),
    )


def test_corpus_has_at_least_150_forms_in_20_families() -> None:
    assert len(BLIND6_SECRETS) >= 150
    assert len({family_of(s.name) for s in BLIND6_SECRETS}) >= 20


def test_names_and_needles_are_unique_and_needles_are_in_their_texts() -> None:
    assert len({s.name for s in BLIND6_SECRETS}) == len(BLIND6_SECRETS)
    assert len({s.needle for s in BLIND6_SECRETS}) == len(BLIND6_SECRETS)
    assert all(s.needle in s.text for s in BLIND6_SECRETS)
    assert all("/" in s.name for s in BLIND6_SECRETS)


def test_exactly_200_distinct_ordinary_texts() -> None:
    assert len(BLIND6_ORDINARY) == 200
    assert len(set(BLIND6_ORDINARY)) == 200


def test_no_needle_inside_an_ordinary_text() -> None:
    clashes = sum(1 for s in BLIND6_SECRETS for text in BLIND6_ORDINARY if s.needle in text)
    assert clashes == 0, f"{clashes} needles occur in ordinary texts"


def test_found_share_meets_the_bar() -> None:
    figures = measure()
    assert figures.share >= FOUND_BAR, "\n".join(figures.lines())


def test_no_ordinary_text_changes() -> None:
    changed = sum(1 for text in BLIND6_ORDINARY if redact(text) != text)
    assert changed == 0, f"{changed} of {len(BLIND6_ORDINARY)} ordinary texts changed"


if __name__ == "__main__":
    print("\n".join(measure().lines()))
