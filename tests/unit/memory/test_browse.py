"""Browsing without a query: filters, the four orders, stable pages, tag counts, and request checks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TypedDict

import pytest

from services.memory.domain.browse import (
    BrowseQuery,
    BrowseSort,
    FactOwner,
    build_browse_query,
    fact_owners,
    in_project,
    project_counts,
    score_histogram,
    select,
    top_tags,
)
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.record import MemoryRecord
from services.memory.domain.scoring import Counters

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rec(
    uid: str, *, score: float = 0.5, uses: int = 0, wins: float = 0.0, age_days: int = 0, tags: tuple[str, ...] = ()
) -> MemoryRecord:
    return MemoryRecord(
        id=f"working_{uid}",
        collection="working",
        content=uid,
        created=T0 - timedelta(days=age_days),
        counters=Counters(score=score, uses=uses, success_count=wins),
        tags=tags,
    )


RECORDS = [
    rec("a", score=0.9, uses=2, wins=1.0, age_days=3, tags=("x",)),
    rec("b", score=0.4, uses=10, wins=9.0, age_days=1, tags=("x", "y")),
    rec("c", score=0.7, uses=0, age_days=0),
    rec("d", score=0.7, uses=5, wins=0.0, age_days=2, tags=("y",)),
]


class BrowseArgs(TypedDict, total=False):
    """``query``'s arguments that a test sets."""

    collections: Sequence[str]
    tag: str
    sort: str
    archived: str
    limit: int
    offset: int
    kind: str
    session_id: str
    ids: Sequence[str]


def query(
    *,
    collections: Sequence[str] = (),
    tag: str = "",
    sort: str = "",
    archived: str = "",
    limit: int = 20,
    offset: int = 0,
    kind: str = "",
    session_id: str = "",
    ids: Sequence[str] = (),
) -> BrowseQuery:
    return build_browse_query(
        collections=collections,
        tag=tag,
        sort=sort,
        archived=archived,
        limit=limit,
        offset=offset,
        kind=kind,
        session_id=session_id,
        ids=ids,
    )


@pytest.mark.parametrize(
    ("sort", "order"),
    [("recency", "cbda"), ("score", "acdb"), ("wilson", "bcad"), ("uses", "bdac")],
)
def test_each_sort_puts_the_best_first(sort: str, order: str) -> None:
    chosen, total = select(RECORDS, query(sort=sort))
    assert "".join(r.content for r in chosen) == order and total == 4


def test_tag_filter_and_pages() -> None:
    first, total = select(RECORDS, query(tag="y", limit=1, sort="score"))
    second, _ = select(RECORDS, query(tag="y", limit=1, offset=1, sort="score"))
    assert ([r.content for r in first], [r.content for r in second], total) == (["d"], ["b"], 2)
    ties = [rec(f"{i:02d}", score=0.5) for i in range(30)]
    pages = [select(ties, query(sort="score", limit=10, offset=o))[0] for o in (0, 10, 20)]
    assert [r.content for p in pages for r in p] == sorted((f"{i:02d}" for i in range(30)), reverse=True)


def test_top_tags_most_used_first() -> None:
    assert top_tags(RECORDS) == ["x", "y"]
    assert top_tags(RECORDS, 1) == ["x"]


def test_defaults_cover_every_collection() -> None:
    q = query()
    assert q.sort is BrowseSort.RECENCY and len(q.collections) == 5 and q.archived.value == "active"


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"sort": "loud"}, "sort='loud' is unknown"),
        ({"archived": "maybe"}, "archived='maybe' is unknown"),
        ({"limit": 500}, "limit=500 is out of range"),
        ({"collections": ["attic"]}, "unknown collection 'attic'"),
        ({"tag": "t" * 101}, "tag is longer than 100"),
    ],
)
def test_bad_requests_say_how_to_fix_them(kw: BrowseArgs, says: str) -> None:
    with pytest.raises(InvalidRequest, match=says.replace("(", r"\(")):
        query(**kw)


def test_score_histogram_in_tenths() -> None:
    histogram = score_histogram([0.0, 0.05, 0.5, 0.99, 1.0])
    assert histogram["0.0"] == 2 and histogram["0.5"] == 1 and histogram["0.9"] == 2 and sum(histogram.values()) == 5


def _kinded() -> list[MemoryRecord]:
    return [
        MemoryRecord(id="working_ex", collection="working", content="ex", created=T0, kind="exchange"),
        MemoryRecord(id="working_ob", collection="working", content="ob", created=T0, extra={"type": "observation"}),
        MemoryRecord(id="working_tk", collection="working", content="tk", created=T0, extra={"type": "takeaway"}),
        MemoryRecord(id="history_ex", collection="history", content="ex2", created=T0, kind="exchange"),
        MemoryRecord(id="memory_bank_f", collection="memory_bank", content="f", created=T0),
        MemoryRecord(id="books_b", collection="books", content="b", created=T0),
        MemoryRecord(id="working_n", collection="working", content="n", created=T0),
    ]


@pytest.mark.parametrize(
    ("kind", "contents"),
    [
        ("exchange", {"ex", "ex2"}),
        ("observation", {"ob"}),
        ("takeaway", {"tk"}),
        ("fact", {"f"}),
        ("book", {"b"}),
        ("other", {"n"}),
        ("", {"ex", "ob", "tk", "ex2", "f", "b", "n"}),
        (" Exchange ", {"ex", "ex2"}),
    ],
)
def test_the_kind_filter_keeps_only_that_kind(kind: str, contents: set[str]) -> None:
    chosen, total = select(_kinded(), query(kind=kind))
    assert {r.content for r in chosen} == contents and total == len(contents)


def test_an_unknown_kind_is_refused_with_the_choices() -> None:
    with pytest.raises(InvalidRequest, match="kind='exchanges' is unknown: use exchange, observation"):
        query(kind="exchanges")


def _fact(uid: str, project: str, scope: str | None, archived: bool = False) -> MemoryRecord:
    extra = {"fact_scope": scope} if scope else {}
    return MemoryRecord(
        id=f"memory_bank_{uid}",
        collection="memory_bank",
        content=uid,
        created=T0,
        project=project,
        extra=extra,
        archived=archived,
    )


def test_a_project_lists_and_counts_only_the_facts_that_hold_there() -> None:
    facts = [
        _fact("own", "ledger", "project"),
        _fact("other", "orchard", "project"),
        _fact("gone", "orchard", "project", archived=True),
        _fact("everyone", "orchard", "user"),
        _fact("old", "orchard", None),  # stored before facts had a scope: user-wide
    ]
    note = MemoryRecord(id="working_x", collection="working", content="x", created=T0, project="orchard")
    assert [r.content for r in in_project([*facts, note], "ledger")] == ["own", "everyone", "old", "x"]
    owners = fact_owners([*facts, note])
    assert owners[:3] == [
        FactOwner("memory_bank_own", "ledger", False),
        FactOwner("memory_bank_other", "orchard", False),
        FactOwner("memory_bank_gone", "orchard", True),
    ]
    assert [o.project for o in owners[3:]] == ["", ""]  # user-wide
    counts = {"working": 1, "memory_bank": 4, "archived": 1}
    assert project_counts(counts, owners, "ledger") == {"working": 1, "memory_bank": 3, "archived": 0}
    assert project_counts(counts, owners, "orchard") == {"working": 1, "memory_bank": 3, "archived": 1}


def test_a_session_and_named_ids_narrow_the_list() -> None:
    records = [
        MemoryRecord(id=f"history_{i}", collection="history", content=str(i), created=T0, session_id=f"s{i % 2}")
        for i in range(6)
    ]
    chosen, total = select(records, query(session_id=" s1 "))
    assert {r.id for r in chosen} == {"history_1", "history_3", "history_5"} and total == 3
    chosen, total = select(records, query(ids=["history_0", "history_3", "history_9"]))
    assert {r.id for r in chosen} == {"history_0", "history_3"} and total == 2
    with pytest.raises(InvalidRequest, match="at most 100 memories"):
        query(ids=[f"history_{i}" for i in range(101)])
    with pytest.raises(InvalidRequest, match="malformed"):
        query(ids=["../x"])
