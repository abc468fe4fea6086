"""``kill -9`` of the memory service in the middle of consolidations (issue 27, defect 10).

Before the merge key and the merge journal, 2 of 120 consolidations were left half-applied (the
merged memory written, a source still active, the client told it failed) and a retry made a second
merged memory. Here: 2 kills, each once merges are being answered; after every restart no merge
is half-applied, every cut call's retry succeeds, no set of sources has two merged memories, and
no source is lost. The 6-kill version is in ``bench/reliability/data_safety.py``.
"""

from __future__ import annotations

import pytest

from tests.support.consolidation_kills import consolidations_across_kills
from tests.support.procstack import kill9, restart
from tests.support.stack import Stack

pytestmark = pytest.mark.slow


def test_no_consolidation_is_half_applied_or_duplicated_across_kill_9(procs: Stack) -> None:
    report = consolidations_across_kills(
        procs.addr("memory"),
        procs.home,
        lambda: kill9(procs, "memory"),
        lambda: restart(procs, "memory"),
        rounds=2,
        pairs_per_round=25,
        seed=10,
    )
    assert report.tried >= 2 and report.cut >= 1, report  # the kills landed while merges were in flight
    assert (report.half_applied, report.duplicates, report.lost) == (0, 0, 0), report
    assert report.refusals == [], report.refusals
    procs.wait_healthy(60)
