"""Load, small: concurrent sessions through the real gateway lose no score update and see no error.

The full run (8 sessions x 200 turns, with get-context latency) is ``bench/bench_load.py``.
"""

from __future__ import annotations

import pytest

from tests.support.load import run_load, seed_facts
from tests.support.stack import Stack

pytestmark = pytest.mark.slow


def test_concurrent_sessions_lose_no_score_update(procs: Stack) -> None:
    cwd = "/srv/load-small"
    seed_facts(procs.gateway_url, cwd)
    report = run_load(procs.gateway_url, cwd, sessions=4, turns=8)
    assert not report.errors, report.errors[:5]
    assert report.requests == 4 * 8 * 3
    assert sum(report.scored_by_uid.values()) >= 40, report.summary()
    assert max(report.scored_by_uid.values()) >= 3, "some memory was scored by several sessions"
    assert not report.lost_updates, report.lost_updates[:10]
