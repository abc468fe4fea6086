"""The four outcomes an assistant can report, and what each one is worth.

| outcome | score delta | success credit | history mark |
|---|---|---|---|
| worked  | +0.20 | 1.0  | ``Y`` |
| partial | +0.05 | 0.5  | ``~`` |
| unknown |  0.00 | 0.0  | ``?`` |
| failed  | -0.30 | 0.0  | ``N`` |

Every outcome counts as one *use*; the success credit is added to
``success_count``, which feeds the Wilson lower bound.

**unknown, deliberately:** it never moves the score and earns no success:
no signal is neither a failure nor a success, so it can neither promote nor
delete a memory. It still counts as a use, so a memory that keeps surfacing
without ever clearly helping sees its Wilson bound, and with it its rank,
sink, which makes room for memories that do help; a ``worked`` lifts it back.
Promotion also asks for ``worked`` outcomes (``lifecycle``), so chatter that
only ever collects ``unknown`` (a thank-you exchange) never reaches patterns.

Deltas are weighted by the memory's age (see ``scoring.age_weight``).
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    WORKED = "worked"
    PARTIAL = "partial"
    UNKNOWN = "unknown"
    FAILED = "failed"


SCORE_DELTA: dict[Outcome, float] = {
    Outcome.WORKED: 0.20,
    Outcome.PARTIAL: 0.05,
    Outcome.UNKNOWN: 0.0,
    Outcome.FAILED: -0.30,
}

SUCCESS_CREDIT: dict[Outcome, float] = {
    Outcome.WORKED: 1.0,
    Outcome.PARTIAL: 0.5,
    Outcome.UNKNOWN: 0.0,
    Outcome.FAILED: 0.0,
}

HISTORY_MARK: dict[Outcome, str] = {
    Outcome.WORKED: "Y",
    Outcome.PARTIAL: "~",
    Outcome.UNKNOWN: "?",
    Outcome.FAILED: "N",
}

# Starting score for a takeaway stored with an initial outcome (record_response).
INITIAL_SCORE: dict[Outcome | None, float] = {
    None: 0.5,
    Outcome.WORKED: 0.7,
    Outcome.PARTIAL: 0.55,
    Outcome.UNKNOWN: 0.5,
    Outcome.FAILED: 0.2,
}
