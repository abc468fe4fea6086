"""Observation importance by kind, and what a compaction summary keeps."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest

from services.memory.domain.observation_rules import (
    IMPORTANCE_KEY,
    compactable,
    importance_of,
    stored_importance,
    summaries,
    with_observation_importance,
)
from services.memory.domain.record import MemoryRecord, Scalar
from services.memory.domain.scoring import Counters

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def observation(text: str, kind: str, minutes_ago: float, **extra: Scalar) -> MemoryRecord:
    return MemoryRecord(
        id=f"working_{abs(hash((text, minutes_ago)))}",
        collection="working",
        content=text,
        created=NOW - timedelta(minutes=minutes_ago),
        kind=kind,
        session_id="s1",
        extra={"type": "observation", "kind": kind, **extra},
    )


@pytest.mark.parametrize(
    ("kind", "text", "importance"),
    [
        ("change", "Edited gateway/app.py", 0.6),
        ("command", "Ran pytest: 12 passed", 0.4),
        ("command", "Ran pytest: 3 passed, 1 failed", 0.6),
        ("command", "Ran pytest: 12 passed, 0 failed", 0.4),
        ("command", "Ran make [interrupted]", 0.6),
        ("discovery", "Fetched docs.python.org", 0.3),
        ("other", "Used SomeTool", 0.2),
        ("mystery", "?", 0.3),
    ],
)
def test_default_importance_by_kind(kind: str, text: str, importance: float) -> None:
    assert importance_of(kind, text) == importance


def test_the_importance_is_stamped_only_on_observations_without_one() -> None:
    assert with_observation_importance({"type": "observation", "kind": "other"}, "Used X")[IMPORTANCE_KEY] == 0.2
    assert with_observation_importance({"type": "observation", IMPORTANCE_KEY: 0.9}, "x")[IMPORTANCE_KEY] == 0.9
    assert IMPORTANCE_KEY not in with_observation_importance({"source": "docs"}, "x")
    assert stored_importance(observation("Fetched a page", "discovery", 5)) == 0.3  # backfilled: no stamp


def test_what_is_compactable() -> None:
    rule = partial(compactable, now=NOW, after_hours=2.0, below=0.5)
    assert rule(observation("Used X", "other", 180))
    assert not rule(observation("Used X", "other", 60))  # too recent
    assert not rule(observation("Edited a.py", "change", 180))  # important enough
    scored = replace(observation("Used X", "other", 180), counters=Counters(uses=1))
    assert not rule(scored)  # a scored observation has earned its place
    assert not rule(observation("Session activity", "summary", 600))


def test_a_summary_keeps_every_distinct_text_with_its_count() -> None:
    records = [
        observation("Ran ls", "command", 300),
        observation("Fetched docs.python.org", "discovery", 290),
        observation("Ran ls", "command", 280),
        observation("Used Foo\nwith a newline", "other", 270),
    ]
    [summary] = summaries("s1", records, 2000)
    assert summary.text.endswith("Ran ls (x2); Fetched docs.python.org; Used Foo with a newline")
    assert "(4 tool observations)" in summary.text and summary.created == records[-1].created
    assert len(summary.sources) == 4


def test_a_long_session_gets_several_summaries_within_the_limit() -> None:
    records = [observation(f"Used tool number {i} " + "x" * 60, "other", 500 - i) for i in range(40)]
    parts = summaries("s1", records, 600)
    assert len(parts) > 1 and all(len(p.text) <= 600 for p in parts)
    assert sum(len(p.sources) for p in parts) == 40
    for i in range(40):
        assert sum(f"Used tool number {i} " in p.text for p in parts) == 1
