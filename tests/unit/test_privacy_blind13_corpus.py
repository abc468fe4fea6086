"""The blind13 corpus (web and product work) is shaped so it can measure: forms, families, 200 ordinary texts."""

from tests.support.secret_corpus_measure import shape_problems
from tests.support.secrets_blind13 import BLIND13_ORDINARY, BLIND13_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND13_SECRETS, BLIND13_ORDINARY, family_of) == []
