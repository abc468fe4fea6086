"""Issue 36's acceptance, measured on the final held-out corpus (``tests/support/secrets_final.py``).

The corpus was written blind and is never tuned on. A form counts as found when its ``evidence``
(the needle, with a little context when the needle is short) is gone from ``redact(text)``, the
same judgement the reliability bench makes of stored bytes and replies. The bars are the issue's:
at least 98 % of the forms found, and 0 of the 200 ordinary texts changed. A bar not met today is
marked ``xfail(strict=True)`` with the figure and date, so the suite stays green and the mark has
to be removed once the rules meet it. Failures report counts only, never which forms were missed,
so the corpus cannot be tuned on through this test's output.
"""

from __future__ import annotations

from kernel.privacy import redact
from tests.support.secrets_final import FINAL_ORDINARY, FINAL_SECRETS, family_of

FOUND_BAR = 0.98


def test_the_corpus_has_the_shape_the_issue_asks_for() -> None:
    assert len(FINAL_SECRETS) >= 100
    assert len({family_of(s.name) for s in FINAL_SECRETS}) >= 15
    needles = [s.needle for s in FINAL_SECRETS]
    assert len(set(needles)) == len(needles)
    assert len({s.name for s in FINAL_SECRETS}) == len(FINAL_SECRETS)
    assert all(s.needle in s.text and "\n" not in s.needle for s in FINAL_SECRETS)
    assert len(FINAL_ORDINARY) == 200
    assert len(set(FINAL_ORDINARY)) == 200
    assert not [s for s in FINAL_SECRETS if any(s.needle in text for text in FINAL_ORDINARY)]


def test_at_least_98_percent_of_the_forms_are_found() -> None:
    found = sum(1 for s in FINAL_SECRETS if s.evidence not in redact(s.text))
    share = found / len(FINAL_SECRETS)
    assert share >= FOUND_BAR, f"{found} of {len(FINAL_SECRETS)} forms found ({share:.1%})"


def test_no_ordinary_text_is_changed() -> None:
    changed = sum(1 for text in FINAL_ORDINARY if redact(text) != text)
    assert changed == 0, f"{changed} of {len(FINAL_ORDINARY)} ordinary texts changed"
