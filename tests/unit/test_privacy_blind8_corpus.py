"""The eighth held-out secrets corpus (``tests/support/secrets_blind8.py``), written blind for issue 36.

Never used to tune rules: this test only checks that the corpus can measure. The figures that
``python -m tests.unit.test_privacy_blind8_corpus`` prints give counts and the categories of the missed
forms only, never the forms themselves: nobody tunes on them.
"""

from __future__ import annotations

from tests.support.secret_corpus_measure import measure, shape_problems
from tests.support.secrets_blind8 import BLIND8_ORDINARY, BLIND8_SECRETS, family_of


def test_the_corpus_can_measure() -> None:
    assert shape_problems(BLIND8_SECRETS, BLIND8_ORDINARY, family_of) == []


if __name__ == "__main__":
    print("\n".join(measure(BLIND8_SECRETS, BLIND8_ORDINARY, family_of).lines()))
