"""The blind10 corpus (operations and enterprise IT, written blind) has the shape a measurement needs."""

from __future__ import annotations

from tests.support.secret_corpus_measure import shape_problems
from tests.support.secrets_blind10 import BLIND10_ORDINARY, BLIND10_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND10_SECRETS, BLIND10_ORDINARY, family_of) == []
