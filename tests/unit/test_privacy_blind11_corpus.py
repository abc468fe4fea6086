"""The blind11 corpus (written blind for issue 36) has the shape a measurement needs."""

from __future__ import annotations

from tests.support.secret_corpus_measure import shape_problems
from tests.support.secrets_blind11 import BLIND11_ORDINARY, BLIND11_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND11_SECRETS, BLIND11_ORDINARY, family_of) == []
