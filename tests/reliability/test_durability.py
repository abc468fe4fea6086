"""Durability: ``kill -9`` the memory and kg services in the middle of about 100 concurrent writes.

Every acknowledged write is present exactly once after the restart, and the
counters add up (see ``tests/support/durability.py``). The 1,000-op
version is ``bench/bench_durability.py``.
"""

from __future__ import annotations

import pytest

from tests.support.durability import kg_durability, memory_durability
from tests.support.procstack import kill9, restart
from tests.support.stack import Stack

pytestmark = pytest.mark.slow

OPS = 120


def test_memory_keeps_every_acknowledged_write_across_kill_9(procs: Stack) -> None:
    report = memory_durability(
        procs.addr("memory"), procs.home, lambda: kill9(procs, "memory"), lambda: restart(procs, "memory"), ops=OPS
    )
    assert report.outcomes.kill_at_ack >= OPS // 2
    assert report.stores_acked >= 30 and report.scores_acked >= 15, report
    assert report.outcomes.acked + report.outcomes.failed == OPS
    assert not report.problems, "\n".join(report.problems[:20])
    procs.wait_healthy(60)


def test_kg_keeps_every_acknowledged_write_across_kill_9(procs: Stack) -> None:
    report = kg_durability(
        procs.addr("kg"), procs.home, lambda: kill9(procs, "kg"), lambda: restart(procs, "kg"), ops=OPS
    )
    assert report.facts_acked >= 30 and report.actions_acked >= 30, report
    assert report.outcomes.acked + report.outcomes.failed == OPS
    assert not report.problems, "\n".join(report.problems[:20])
    procs.wait_healthy(60)
