"""Recency counts from the latest of creation and last scored use (``MemoryRecord.recency_ts``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.memory.domain.ranking import RankInput, final_rank, recency
from services.memory.domain.record import MemoryRecord

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def record(created_days_ago: float | None, used_days_ago: float | None) -> MemoryRecord:
    return MemoryRecord(
        id="working_x",
        collection="working",
        content="x",
        created=None if created_days_ago is None else NOW - timedelta(days=created_days_ago),
        last_used_at=None if used_days_ago is None else NOW - timedelta(days=used_days_ago),
    )


@pytest.mark.parametrize(
    ("created", "used", "age"),
    [(60, None, 60), (60, 1, 1), (10, 30, 10), (None, 5, 5), (None, None, 0)],  # a use before creation: imports
)
def test_age_counts_from_the_last_activity(created: float | None, used: float | None, age: float) -> None:
    assert RankInput.of(record(created, used), now=NOW).age_days == pytest.approx(age)


def test_retrievability_halves_every_thirty_days_since_last_use() -> None:
    assert recency(0) == 1.0 and recency(30) == pytest.approx(0.5) and recency(60) == pytest.approx(0.25)
    used = final_rank(RankInput.of(record(60, 1), now=NOW, relevance=0.8))
    unused = final_rank(RankInput.of(record(60, None), now=NOW, relevance=0.8))
    assert used > unused
    assert used / unused == pytest.approx((0.9 + 0.1 * recency(1)) / (0.9 + 0.1 * recency(60)))
