"""The blind14 corpus has the shape a measurement needs (issue 36); it is never measured here."""

from __future__ import annotations

from tests.support.secret_corpus_measure import shape_problems
from tests.support.secrets_blind14 import BLIND14_ORDINARY, BLIND14_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND14_SECRETS, BLIND14_ORDINARY, family_of) == []
