"""When a new prompt is the recurrence of a known problem: the calibrated rule.

A prompt may recall a known problem by meaning (``may_recall``) when it speaks
of a failure (``expresses_failure``: an error or exception class, a crash,
something that will not work, a leak, an overflow, something that stopped...)
or reports a situation rather than asking for work or an explanation
(``is_request``: "add ...", "how do I ..."). Then it matches when its vector's
cosine to one of the problem's phrasings is at least ``MATCH_THRESHOLD``; an
error signature shared with the session's recent tool output adds
``SIGNATURE_BONUS`` and, on its own, is enough. The gate keeps requests that
merely share a problem's vocabulary ("add an index on orders.created_at" next
to a failing migration) from recalling its lessons.

Calibrated with all-MiniLM-L6-v2 on tests/unit/kg/problem_pairs.py (24
paraphrased recurrences with other names, 37 near-misses, and the 552 cross
pairs of different problems): at 0.45, 0.88 of paraphrases match, 0.24 of
near-misses (the same tool failing another way, and one report of a different
alembic problem) and none of the cross pairs; lower thresholds let unrelated
failures match (0.5 % of cross pairs at 0.40). The test prints the table.

A problem's vectors are its statement, up to 4 confirmed rewordings and the
error lines its failed attempts printed (the best of them counts): a
recurrence is often told by the error the user saw. On EPISODE_SYMPTOMS (16
episodes of our own, each with a failed attempt's output and a recurrence
told by its symptom) the statement alone recalls 0.25 of the recurrences at
0.45, with the error lines 0.62; against the other problems' recurrences
false matches stay at 0.3 % and the near-misses match no more often. A
margin rule (a lower threshold when the best problem beats the second by
0.08-0.15) or a flat 0.40 recalled one or two more of 46 recurrences at the
cost of as many or more false matches and near-miss recalls, so neither is used.
Plain module.
"""

from __future__ import annotations

import re

MATCH_THRESHOLD = 0.45
SIGNATURE_BONUS = 0.15

_FAILURE = re.compile(
    r"\b(?:fail\w*|errors?|error\w*|exceptions?|traceback|crash\w*|can'?t|cannot|can not|couldn'?t|could not|"
    r"won'?t|doesn'?t|does not|didn'?t|isn'?t|aren'?t|refus\w*|denied|broken|breaks?|rejected|blocked|"
    r"hang\w*|hung|times? out|timed out|timeout|dies|died|stuck|infinite|forever|out of memory|not found|"
    r"undefined|complain\w*|abort\w*|locked|unable|invalid|conflicts?|missing|no such|"
    r"wrong|bug\w*|issue|problem|red|unexpected\w*|warn\w*|segfault|panic\w*|exit code|non-zero|"
    # symptoms told without an error word: a resource leaking or overflowing, something that stopped
    # (working, caching, ...), two changes colliding
    r"leak\w*|overflow\w*|stopped|collid\w*|collision)\b"
    # an exception or warning class named in the prompt ("TimeoutError", "RuntimeWarning"): the words
    # above need a word boundary before them, which a CamelCase class name does not give
    r"|(?-i:[A-Za-z]\w*(?:Error|Exception|Warning))\b",
    re.IGNORECASE,
)


def expresses_failure(text: str) -> bool:
    """The text speaks of something going wrong (not a plain task or question)."""
    return _FAILURE.search(text) is not None


# A request for work or an explanation, not a report of what happened: an imperative first word
# ("add ...", "write ...") or a question about how or what ("how do I ...", "should we ...").
_REQUEST = re.compile(
    r"^\s*(?:(?:please|ok|okay|now|also|and|so)[,\s]+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:add|write|create|make|build|implement|convert|rename|refactor|move|split|merge|extract|document|"
    r"translate|update|upgrade|bump|set up|setup|configure|enable|disable|remove|delete|drop|replace|switch|"
    r"port|migrate|generate|export|import|scale|tune|optimi[sz]e|speed up|shrink|clean up|cleanup|format|"
    r"reformat|lint|type|annotate|test|run|deploy|publish|release|explain|describe|summari[sz]e|list|show|"
    r"compare|review|suggest|help me|tell me|give me|"
    r"how|what|what's|whats|which|where|when|who|should|shall|can we|could we|do we|does it|is it|are there|"
    r"is there|any idea)\b",
    re.IGNORECASE,
)


def is_request(text: str) -> bool:
    """The text asks for a task or an explanation (its first words say so)."""
    return _REQUEST.match(text) is not None


def may_recall(text: str) -> bool:
    """Whether a prompt may recall a known problem by meaning: it tells of a failure, or it reports
    a situation ("the image rebuilds from scratch after every edit") rather than asking for work or
    an explanation. A request that shares a problem's vocabulary ("add an index on
    orders.created_at" beside a failing migration) recalls nothing."""
    return expresses_failure(text) or not is_request(text)
