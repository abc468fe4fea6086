"""Session order (which memory was written next to which) and the session-context factors."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from services.memory.domain.record import MemoryRecord
from services.memory.retrieval.session_boost import boost, context_factors
from services.memory.storage.session_neighbours import SessionOrder

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def turn(memory_id: str, minute: int, session: str | None = "s1", archived: bool = False) -> MemoryRecord:
    return MemoryRecord(
        id=memory_id,
        collection="history",
        content=memory_id,
        created=T0 + timedelta(minutes=minute),
        session_id=session,
        archived=archived,
    )


def test_neighbours_follow_creation_order_not_insertion_order() -> None:
    order = SessionOrder()
    for record in (turn("c", 3), turn("a", 1), turn("b", 2), turn("x", 2, session="s2")):
        order.place(record)
    assert order.neighbours("a") == (None, "b")
    assert order.neighbours("b") == ("a", "c")
    assert order.neighbours("c") == ("b", None)
    assert order.neighbours("x") == (None, None)
    assert order.session_of("b") == "s1" and order.session_of("x") == "s2"
    assert order.neighbours("unknown") == (None, None)


def test_archiving_or_removing_a_turn_joins_its_neighbours() -> None:
    order = SessionOrder()
    for record in (turn("a", 1), turn("b", 2), turn("c", 3)):
        order.place(record)
    order.place(turn("b", 2, archived=True))
    assert order.neighbours("a") == (None, "c") and order.session_of("b") is None
    order.place(turn("b", 2))  # restored
    assert order.neighbours("a") == (None, "b")
    order.drop("b")
    order.drop("b")  # twice is harmless
    assert order.neighbours("c") == ("a", None)
    assert len(order) == 2


def test_a_memory_that_moves_session_or_time_is_reordered() -> None:
    order = SessionOrder()
    for record in (turn("a", 1), turn("b", 2), turn("c", 3)):
        order.place(record)
    order.place(replace(turn("a", 1), created=T0 + timedelta(minutes=4)))
    assert order.neighbours("c") == ("b", "a")
    order.place(turn("c", 3, session="s2"))
    assert order.neighbours("b") == (None, "a") and order.neighbours("c") == (None, None)
    order.place(turn("c", 3, session=None))
    assert order.session_of("c") is None and len(order) == 2


def test_equal_times_are_ordered_by_id() -> None:
    order = SessionOrder()
    for memory_id in ("m2", "m1", "m3"):
        order.place(turn(memory_id, 5))
    assert order.neighbours("m2") == ("m1", "m3")


def factors(
    relevance: list[float], sessions: list[str | None], around: list[tuple[str | None, str | None]]
) -> list[float]:
    ids = [f"m{i}" for i in range(len(relevance))]
    out: list[float] = context_factors(
        ids, np.asarray(relevance), sessions, around, neighbour_weight=0.5, session_weight=0.4
    ).tolist()
    return out


def test_a_memory_alone_keeps_its_relevance() -> None:
    assert factors([0.7, 0.2], [None, None], [(None, None), (None, None)]) == [1.0, 1.0]
    assert boost(0.7, 1.0) == pytest.approx(0.7)


def test_a_neighbour_counts_only_when_it_is_a_candidate() -> None:
    # m1 was written right after m0; m2's neighbour "gone" is not among the candidates
    out = factors([0.8, 0.1, 0.1], [None, None, None], [(None, "m1"), ("m0", None), ("gone", None)])
    assert out[1] == pytest.approx(1 - 0.5 * 0.8)
    assert out[0] == pytest.approx(1 - 0.5 * 0.1)
    assert out[2] == 1.0


def test_peers_average_the_best_three_others_of_the_session() -> None:
    relevance = [0.9, 0.6, 0.3, 0.2, 0.5]
    sessions: list[str | None] = ["s", "s", "s", "s", "t"]
    out = factors(relevance, sessions, [(None, None)] * 5)
    assert out[0] == pytest.approx(1 - 0.4 * (0.6 + 0.3 + 0.2) / 3)
    assert out[3] == pytest.approx(1 - 0.4 * (0.9 + 0.6 + 0.3) / 3)
    assert out[4] == 1.0  # alone in its session


def test_context_never_lowers_relevance_and_stays_in_unit_range() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        relevance = rng.uniform(0, 1, n)
        sessions: list[str | None] = [str(rng.integers(0, 4)) if rng.random() < 0.8 else None for _ in range(n)]
        around: list[tuple[str | None, str | None]] = [
            (f"m{rng.integers(0, n)}" if rng.random() < 0.5 else None, f"m{rng.integers(0, n + 5)}") for _ in range(n)
        ]
        out = factors(relevance.tolist(), sessions, around)
        boosted = [boost(r, f) for r, f in zip(relevance.tolist(), out, strict=True)]
        assert all(b >= r - 1e-12 and b <= 1.0 for b, r in zip(boosted, relevance.tolist(), strict=True))


def test_weights_of_zero_turn_it_off() -> None:
    out = context_factors(
        ["a", "b"], np.asarray([0.9, 0.9]), ["s", "s"], [(None, "b"), ("a", None)], neighbour_weight=0, session_weight=0
    )
    assert out.tolist() == [1.0, 1.0]


def test_linked_places_match_a_fresh_sort_after_random_writes() -> None:
    """The links kept on every write agree with sorting each session from scratch."""
    rng = np.random.default_rng(7)
    order = SessionOrder()
    live: dict[str, MemoryRecord] = {}
    for step in range(600):
        memory_id = f"m{rng.integers(0, 40)}"
        if rng.random() < 0.25:
            order.drop(memory_id)
            live.pop(memory_id, None)
            continue
        record = turn(
            memory_id,
            int(rng.integers(0, 30)),
            session=str(rng.choice(["a", "b", "c"])) if rng.random() < 0.9 else None,
            archived=bool(rng.random() < 0.1),
        )
        order.place(record)
        live[memory_id] = record
        if step % 50 == 0 or step == 599:
            placed = [r for r in live.values() if r.session_id and not r.archived]
            for record in placed:
                peers = sorted((p.created_ts, p.id) for p in placed if p.session_id == record.session_id)
                at = peers.index((record.created_ts, record.id))
                expected = (
                    record.session_id,
                    peers[at - 1][1] if at > 0 else None,
                    peers[at + 1][1] if at + 1 < len(peers) else None,
                )
                assert order.place_of(record.id) == expected
            assert len(order) == len(placed)
