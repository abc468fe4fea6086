"""The fifth held-out secrets corpus (``tests/support/secrets_blind5.py``).

Written blind; these tests only measure.  The bars are that at least
98 % of the forms are never stored or shown and that none of the 200 ordinary texts changes. Measured
blind on 2026-11-27: 284 of 305 found (93.1 %), 9 of 200 changed. It was then released as a tuning set
(a new blind corpus is the measure): the rule families behind its misses were added
(``tests/unit/test_secret_fifth_round.py``), and both bars are met.
Failure messages give counts only, never the forms that were missed.
"""

from __future__ import annotations

from kernel.privacy import redact
from tests.support.secrets_blind5 import BLIND5_ORDINARY, BLIND5_SECRETS, family_of

FOUND_BAR = 0.98


def test_corpus_has_at_least_150_forms_in_20_families() -> None:
    assert len(BLIND5_SECRETS) >= 150
    assert len({family_of(s.name) for s in BLIND5_SECRETS}) >= 20


def test_names_and_needles_are_unique_and_needles_are_in_their_texts() -> None:
    assert len({s.name for s in BLIND5_SECRETS}) == len(BLIND5_SECRETS)
    assert len({s.needle for s in BLIND5_SECRETS}) == len(BLIND5_SECRETS)
    assert all(s.needle in s.text for s in BLIND5_SECRETS)
    assert all("/" in s.name for s in BLIND5_SECRETS)


def test_exactly_200_distinct_ordinary_texts() -> None:
    assert len(BLIND5_ORDINARY) == 200
    assert len(set(BLIND5_ORDINARY)) == 200


def test_no_needle_inside_an_ordinary_text() -> None:
    clashes = sum(1 for s in BLIND5_SECRETS for text in BLIND5_ORDINARY if s.needle in text)
    assert clashes == 0, f"{clashes} needles occur in ordinary texts"


def test_found_share_meets_the_bar() -> None:
    found = sum(1 for s in BLIND5_SECRETS if s.evidence not in redact(s.text))
    share = found / len(BLIND5_SECRETS)
    assert share >= FOUND_BAR, f"{found} of {len(BLIND5_SECRETS)} found ({share:.1%})"


def test_no_ordinary_text_changes() -> None:
    changed = sum(1 for text in BLIND5_ORDINARY if redact(text) != text)
    assert changed == 0, f"{changed} of {len(BLIND5_ORDINARY)} ordinary texts changed"
