"""The ninth blind corpus (issue 36) has the shape needed to measure anything.

Written blind; this test only checks the corpus's shape and never measures it.
"""

from __future__ import annotations

from tests.support.secret_corpus_measure import shape_problems
from tests.support.secrets_blind9 import BLIND9_ORDINARY, BLIND9_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND9_SECRETS, BLIND9_ORDINARY, family_of) == []
