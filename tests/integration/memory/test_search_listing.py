"""Search as a list (``distinct_relevant``) on a store filled like a backfill: real Chroma, real model, real gRPC.

A backfill stores the same exchange once per session it appeared in, and the
same tool observation every time the tool ran, so a plain search returned five
identical exchanges and five identical observations as its top 10; and, with
no relevance floor, a terraform query returned a React file edit. Listed, each
text comes back once with its copies, the limit counts distinct memories, and
a query about something the store does not hold gets nothing and says so.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.memory.domain.distinct_results import text_key

REPEATED_EXCHANGE = (
    "why does useEffect run twice in development?",
    "React 18 StrictMode mounts, unmounts and remounts every component in development to surface missing "
    "cleanups. Added a cleanup that aborts the fetch with an AbortController.",
)
REPEATED_OBSERVATION = "Edited src/components/SearchForm.tsx"
DISTINCT_EXCHANGES = [
    (
        "the Button re-renders on every keystroke",
        "Wrapped onSearch in useCallback and memoised Button with React.memo.",
    ),
    (
        "the dark mode toggle forgets its value after reload",
        "Persisted the theme in localStorage and read it in a lazy useState initialiser.",
    ),
    ("set up Tailwind in the Vite app", "Installed tailwindcss and postcss and added tailwind.config.js."),
    (
        "the product list flickers when the filter changes",
        "Kept the previous data with TanStack Query placeholderData so the list stays until the new page arrives.",
    ),
    ("jest cannot import the SVG icons", "Mapped svg files to a stub component in moduleNameMapper in jest.config.js."),
    ("form validation for the signup page", "Used react-hook-form with a zod schema resolver."),
    ("the modal does not trap focus", "Switched the modal to Radix Dialog, which traps focus and closes on Escape."),
    (
        "how do we share the cart between pages?",
        "Moved the cart into a Zustand store with a persist middleware; components subscribe to slices.",
    ),
    ("storybook fails after upgrading to React 18", "Replaced ReactDOM.render in preview.js with createRoot."),
    (
        "the useEffect in ProductPage fetches twice",
        "The effect depended on an object literal recreated every render; moved it into useMemo.",
    ),
    ("state updates in the effect cause an infinite loop", "The effect set state it also listed as a dependency."),
    ("why is the context consumer re-rendering", "The provider value was a new object each render; memoised it."),
    ("the useEffect cleanup never runs", "The cleanup was returned inside an if; returned it from the effect always."),
    (
        "useEffect fires on every render",
        "The dependency array was missing; added [userId] so the effect runs when the user changes.",
    ),
    (
        "the effect reads a stale value of count",
        "The callback closed over the first render's count; added count to the dependencies.",
    ),
    (
        "how do I run an effect only once on mount?",
        "Pass an empty dependency array; in StrictMode it still mounts twice in development.",
    ),
    ("the websocket opens twice in development", "StrictMode double-mounts; the effect now closes the socket."),
    ("useLayoutEffect warning on the server", "Switched to useEffect for code that only runs in the browser."),
    (
        "the table re-renders whenever the parent renders",
        "Memoised the row component with React.memo and passed stable callbacks from useCallback.",
    ),
    ("Too many re-renders error in the Counter component", "setCount was called during render; moved it to a handler."),
]
DISTINCT_OBSERVATIONS = [
    "Edited src/App.tsx (3 edits)",
    "Ran npm test: Tests: 2 failed, 41 passed, 43 total",
    "Wrote src/hooks/useDebounce.ts (18 lines)",
    "Edited src/pages/Checkout.tsx",
]
COPIES = 5


def iso(minutes_ago: int) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat(timespec="seconds")


def backfill(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    """The copies are the newest (a time-window listing meets them first), the distinct memories older."""
    serial = iter(range(10**14, 10**15))
    exchanges, observations = [], []

    def exchange(user: str, assistant: str, session: str, minutes_ago: int) -> None:
        exchanges.append(
            pb.BackfillItem(
                scope=scope,
                id=f"history_{next(serial)}",
                session_id=session,
                created_at=iso(minutes_ago),
                user_text=user,
                assistant_text=assistant,
            )
        )

    def observation(text: str, session: str, minutes_ago: int) -> None:
        metadata = {"type": "observation", "kind": "change"}
        observations.append(
            pb.BackfillItem(
                scope=scope,
                id=f"history_{next(serial)}",
                session_id=session,
                created_at=iso(minutes_ago),
                content=text,
                metadata_json=json.dumps(metadata),
            )
        )

    for i in range(COPIES):
        exchange(*REPEATED_EXCHANGE, f"copy-session-{i}", minutes_ago=i + 1)
        observation(REPEATED_OBSERVATION, f"copy-session-{i}", minutes_ago=i + 1)
    for i, (user, assistant) in enumerate(DISTINCT_EXCHANGES):
        exchange(user, assistant, f"session-{i}", minutes_ago=60 + i)
    for i, text in enumerate(DISTINCT_OBSERVATIONS):
        observation(text, f"session-{i}", minutes_ago=60 + i)
    reply = stub.Backfill(pb.BackfillRequest(exchanges=exchanges, observations=observations), timeout=60)
    assert len(reply.stored_ids) == len(exchanges) + len(observations)


def listed(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope, *, query: str = "", days_back: int = 0
) -> pb.SearchResponse:
    reply: pb.SearchResponse = stub.Search(
        pb.SearchRequest(scope=scope, limit=10, distinct_relevant=True, query=query, days_back=days_back),
        timeout=30,
    )
    return reply


def copies_of(reply: pb.SearchResponse, memory_id: str) -> list[str]:
    return list(reply.duplicate_ids[memory_id].ids) if memory_id in reply.duplicate_ids else []


def assert_distinct(reply: pb.SearchResponse) -> None:
    keys = [text_key(m.content) for m in reply.memories]
    assert len(keys) == len(set(keys)), [m.content[:60] for m in reply.memories]


def test_copies_of_a_backfilled_exchange_come_back_once_with_their_count(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    backfill(stub, scope)
    reply = listed(stub, scope, query="useEffect runs twice in development")
    assert_distinct(reply)
    first = reply.memories[0]
    assert "StrictMode" in first.content
    assert len(copies_of(reply, first.id)) == COPIES - 1
    assert reply.relevance_judged
    everything = {m.id for m in reply.memories} | {i for ids in reply.duplicate_ids.values() for i in ids.ids}
    assert len(everything) == len(reply.memories) + sum(len(ids.ids) for ids in reply.duplicate_ids.values())


def test_the_top_ten_is_ten_distinct_memories_when_the_store_has_them(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    backfill(stub, scope)
    newest = listed(stub, scope, days_back=1)  # no query: every memory is listed, the copies first
    assert_distinct(newest)
    assert len(newest.memories) == 10 and not newest.relevance_judged
    counts = sorted(len(copies_of(newest, m.id)) for m in newest.memories)
    assert counts[-2:] == [COPIES - 1, COPIES - 1]  # the exchange and the observation, each seen five times
    about_react = listed(stub, scope, query="React components re-rendering and useEffect hooks")
    assert_distinct(about_react)
    assert len(about_react.memories) == 10
    assert any(copies_of(about_react, m.id) for m in about_react.memories)


def test_a_query_about_something_absent_finds_nothing_relevant(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    backfill(stub, scope)
    for query in ("terraform state lock", "kafka consumer lag", "postgres connection pool exhausted"):
        reply = listed(stub, scope, query=query)
        assert reply.relevance_judged
        assert [m.content for m in reply.memories] == [], query


def test_a_relevant_query_still_returns_its_memory_first(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope
) -> None:
    backfill(stub, scope)
    dark_mode = listed(stub, scope, query="dark mode setting lost on refresh")
    assert "localStorage" in dark_mode.memories[0].content
    # an identifier is far from every text in meaning (low cosine), but the memory that names it is relevant
    identifier = listed(stub, scope, query="moduleNameMapper")
    assert "moduleNameMapper" in identifier.memories[0].content
    assert identifier.memories[0].embedding_similarity < 0.3


def test_a_plain_search_is_unchanged(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    """Without ``distinct_relevant`` (get-context, the LoCoMo benchmark) the search ranks as before."""
    backfill(stub, scope)
    plain = stub.Search(pb.SearchRequest(scope=scope, query="terraform state lock", limit=10), timeout=30)
    assert len(plain.memories) == 10 and not plain.duplicate_ids and not plain.relevance_judged
