"""The blind12 corpus (issue 36) has the shape a measurement needs; it is never measured here."""

from __future__ import annotations

from tests.support.secret_corpus_measure import shape_problems
from tests.support.secrets_blind12 import BLIND12_ORDINARY, BLIND12_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND12_SECRETS, BLIND12_ORDINARY, family_of) == []
