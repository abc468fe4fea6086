"""Invalid requests for every memory-service RPC (see ``invalid_requests`` for the shared pieces)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from google.protobuf.message import Message

from tests.reliability.invalid_requests import BAD_M, GOOD_ID, GOOD_M, C, Case, M, floats


def memory_cases() -> list[Case]:
    long_sid = "s" * 300
    cases: dict[str, dict[str, Callable[[], Message | list[Message]]]] = {
        "Store": {
            "bad-scope": lambda: M.StoreRequest(scope=BAD_M, collection="working", content="x"),
            "unknown-collection": lambda: M.StoreRequest(scope=GOOD_M, collection="secrets", content="x"),
            "empty-content": lambda: M.StoreRequest(scope=GOOD_M, collection="working", content="   "),
            "content-too-long": lambda: M.StoreRequest(scope=GOOD_M, collection="working", content="x" * 60_000),
            "vector-wrong-length": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", vector=b"\x00" * 10
            ),
            "vector-wrong-dimension": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", vector=floats([0.1] * 128)
            ),
            "vector-nan": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="nan vector", vector=floats([math.nan] * 384)
            ),
            "importance-outside-bank": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", importance=0.5
            ),
            "importance-above-1": lambda: M.StoreRequest(
                scope=GOOD_M, collection="memory_bank", content="x", importance=7.0
            ),
            "confidence-nan": lambda: M.StoreRequest(
                scope=GOOD_M, collection="memory_bank", content="x", confidence=math.nan
            ),
            "metadata-not-object": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", metadata_json="[1]"
            ),
            "metadata-not-json": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", metadata_json="{x"
            ),
            "metadata-reserved-key": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", metadata_json='{"score": 1}'
            ),
            "too-many-tags": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", tags=[f"t{i}" for i in range(50)]
            ),
            "tag-too-long": lambda: M.StoreRequest(scope=GOOD_M, collection="working", content="x", tags=["t" * 500]),
            "unknown-initial-outcome": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", initial_outcome=99
            ),
            "session-id-too-long": lambda: M.StoreRequest(
                scope=GOOD_M, collection="working", content="x", session_id=long_sid
            ),
        },
        "Search": {
            "bad-scope": lambda: M.SearchRequest(scope=BAD_M, query="x"),
            "nothing-to-search": lambda: M.SearchRequest(scope=GOOD_M),
            "limit-too-high": lambda: M.SearchRequest(scope=GOOD_M, query="x", limit=100_000),
            "days-back-too-high": lambda: M.SearchRequest(scope=GOOD_M, days_back=5000),
            "unknown-sort": lambda: M.SearchRequest(scope=GOOD_M, query="x", sort_by=42),
            "unknown-collection": lambda: M.SearchRequest(scope=GOOD_M, query="x", collections=["secrets"]),
            "filters-not-json": lambda: M.SearchRequest(scope=GOOD_M, query="x", metadata_filters_json="{nope"),
            "filters-bad-operator": lambda: M.SearchRequest(
                scope=GOOD_M, query="x", metadata_filters_json='{"score": {"$regex": ".*"}}'
            ),
            "malformed-id": lambda: M.SearchRequest(scope=GOOD_M, id="bad id with spaces/../"),
            "query-vector-wrong-length": lambda: M.SearchRequest(scope=GOOD_M, query_vector=b"\x01\x02\x03"),
            "query-vector-nan": lambda: M.SearchRequest(scope=GOOD_M, query_vector=floats([math.nan] * 384)),
            "weight-unknown-collection": lambda: M.SearchRequest(
                scope=GOOD_M, query="x", collection_weights={"secrets": 2.0}
            ),
            "weight-negative": lambda: M.SearchRequest(scope=GOOD_M, query="x", collection_weights={"patterns": -3.0}),
            "weight-nan": lambda: M.SearchRequest(scope=GOOD_M, query="x", collection_weights={"patterns": math.nan}),
            "too-many-boost-ids": lambda: M.SearchRequest(scope=GOOD_M, query="x", boost_ids=[GOOD_ID] * 5000),
            "query-too-long": lambda: M.SearchRequest(scope=GOOD_M, query="q" * 50_000),
        },
        "Get": {
            "bad-scope": lambda: M.GetRequest(scope=BAD_M, id=GOOD_ID),
            "empty-id": lambda: M.GetRequest(scope=GOOD_M, id=""),
            "malformed-id": lambda: M.GetRequest(scope=GOOD_M, id="../../etc/passwd"),
        },
        "List": {
            "bad-scope": lambda: M.ListRequest(scope=BAD_M, collection="working"),
            "unknown-collection": lambda: M.ListRequest(scope=GOOD_M, collection="secrets"),
            "unknown-sort": lambda: M.ListRequest(scope=GOOD_M, collection="working", sort_by=42),
        },
        "Update": {
            "bad-scope": lambda: M.UpdateRequest(scope=BAD_M, id=GOOD_ID, content="x"),
            "empty-id": lambda: M.UpdateRequest(scope=GOOD_M, id="", content="x"),
            "nothing-to-update": lambda: M.UpdateRequest(scope=GOOD_M, id=GOOD_ID),
            "importance-above-1": lambda: M.UpdateRequest(scope=GOOD_M, id=GOOD_ID, importance=3.0),
            "empty-content": lambda: M.UpdateRequest(scope=GOOD_M, id=GOOD_ID, content=" "),
            "content-too-long": lambda: M.UpdateRequest(scope=GOOD_M, id=GOOD_ID, content="x" * 60_000),
        },
        "Archive": {
            "bad-scope": lambda: M.ArchiveRequest(scope=BAD_M, id=GOOD_ID),
            "empty-id": lambda: M.ArchiveRequest(scope=GOOD_M, id=""),
            "reason-too-long": lambda: M.ArchiveRequest(scope=GOOD_M, id=GOOD_ID, reason="r" * 5_000),
        },
        "Score": {
            "bad-scope": lambda: M.ScoreRequest(scope=BAD_M, outcome=C.OUTCOME_WORKED),
            "nothing-to-score": lambda: M.ScoreRequest(scope=GOOD_M),
            "unknown-outcome": lambda: M.ScoreRequest(scope=GOOD_M, outcome=42),
            "unknown-memory-outcome": lambda: M.ScoreRequest(scope=GOOD_M, memory_scores={GOOD_ID: 42}),
            "malformed-memory-id": lambda: M.ScoreRequest(
                scope=GOOD_M, memory_scores={"no spaces allowed": C.OUTCOME_WORKED}
            ),
            "too-many-related": lambda: M.ScoreRequest(
                scope=GOOD_M, outcome=C.OUTCOME_WORKED, related=M.IdList(ids=[GOOD_ID] * 500)
            ),
            "session-id-too-long": lambda: M.ScoreRequest(scope=GOOD_M, outcome=C.OUTCOME_WORKED, session_id=long_sid),
        },
        "RecordExchange": {
            "bad-scope": lambda: M.RecordExchangeRequest(scope=BAD_M, session_id="s", assistant_text="a"),
            "session-id-too-long": lambda: M.RecordExchangeRequest(
                scope=GOOD_M, session_id=long_sid, assistant_text="a"
            ),
        },
        "Backfill": {
            "bad-scope": lambda: M.BackfillRequest(
                exchanges=[M.BackfillItem(scope=BAD_M, id="working_000000000000001", created_at="2025-01-01T00:00:00Z")]
            ),
            "not-a-history-id": lambda: M.BackfillRequest(
                exchanges=[
                    M.BackfillItem(
                        scope=GOOD_M, id="patterns_" + "0" * 32, created_at="2025-01-01T00:00:00Z", user_text="q"
                    )
                ]
            ),
            "bad-created-at": lambda: M.BackfillRequest(
                exchanges=[M.BackfillItem(scope=GOOD_M, id="working_000000000000001", created_at="soon", user_text="q")]
            ),
            "session-id-too-long": lambda: M.BackfillRequest(
                exchanges=[
                    M.BackfillItem(
                        scope=GOOD_M,
                        id="working_000000000000001",
                        session_id=long_sid,
                        created_at="2025-01-01T00:00:00Z",
                        user_text="q",
                    )
                ]
            ),
        },
        "GetScoringState": {
            "bad-scope": lambda: M.GetScoringStateRequest(scope=BAD_M, session_id="s"),
            "session-id-too-long": lambda: M.GetScoringStateRequest(scope=GOOD_M, session_id=long_sid),
        },
        "RecordInjection": {
            "bad-scope": lambda: M.RecordInjectionRequest(scope=BAD_M, session_id="s", ids=[GOOD_ID]),
            "too-many-ids": lambda: M.RecordInjectionRequest(scope=GOOD_M, session_id="s", ids=[GOOD_ID] * 1000),
            "malformed-id": lambda: M.RecordInjectionRequest(scope=GOOD_M, session_id="s", ids=["bad id"]),
            "session-id-too-long": lambda: M.RecordInjectionRequest(scope=GOOD_M, session_id=long_sid, ids=[GOOD_ID]),
        },
        "PrepareContext": {
            "bad-scope": lambda: M.PrepareContextRequest(
                scope=BAD_M, session_id="s", search=M.SearchRequest(query="x")
            ),
            "session-id-too-long": lambda: M.PrepareContextRequest(scope=GOOD_M, session_id=long_sid),
            "too-many-lesson-ids": lambda: M.PrepareContextRequest(
                scope=GOOD_M, session_id="s", lesson_ids=[f"history_{i}" for i in range(17)]
            ),
            "nothing-to-search": lambda: M.PrepareContextRequest(
                scope=GOOD_M, session_id="s", search=M.SearchRequest()
            ),
            "limit-too-high": lambda: M.PrepareContextRequest(
                scope=GOOD_M, session_id="s", search=M.SearchRequest(query="x", limit=100_000)
            ),
            "query-vector-wrong-length": lambda: M.PrepareContextRequest(
                scope=GOOD_M, session_id="s", search=M.SearchRequest(query="x", query_vector=b"\x01\x02\x03")
            ),
            "weight-unknown-collection": lambda: M.PrepareContextRequest(
                scope=GOOD_M, session_id="s", search=M.SearchRequest(query="x", collection_weights={"secrets": 2.0})
            ),
        },
        "IngestBook": {
            "bad-scope": lambda: M.IngestBookRequest(scope=BAD_M, title="t", data=b"text", filename="t.txt"),
            "empty-data": lambda: M.IngestBookRequest(scope=GOOD_M, title="t", data=b"", filename="t.txt"),
            "unsupported-format": lambda: M.IngestBookRequest(
                scope=GOOD_M, title="t", data=b"MZ\x90", filename="setup.exe"
            ),
            "no-title-no-filename": lambda: M.IngestBookRequest(scope=GOOD_M, data=b"some text"),
            "too-large": lambda: M.IngestBookRequest(
                scope=GOOD_M, title="t", data=b"a" * (10 * 1024 * 1024 + 1), filename="t.txt"
            ),
            "not-a-pdf": lambda: M.IngestBookRequest(
                scope=GOOD_M, title="fake", data=b"this is not a pdf at all", filename="fake.pdf"
            ),
            "truncated-pdf": lambda: M.IngestBookRequest(
                scope=GOOD_M, title="cut", data=b"%PDF-1.7\n1 0 obj\n<< /Type", filename="cut.pdf"
            ),
            "source-too-long": lambda: M.IngestBookRequest(
                scope=GOOD_M, title="t", data=b"text", filename="t.txt", source="s" * 5_000
            ),
        },
        "IngestBookStream": {
            "bad-scope": lambda: M.IngestBookStreamRequest(
                book=M.IngestBookRequest(scope=BAD_M, title="t", data=b"text", filename="t.txt")
            ),
            "no-book": lambda: M.IngestBookStreamRequest(),
            "unsupported-format": lambda: M.IngestBookStreamRequest(
                book=M.IngestBookRequest(scope=GOOD_M, title="t", data=b"MZ\x90", filename="setup.exe")
            ),
            "not-a-pdf": lambda: M.IngestBookStreamRequest(
                book=M.IngestBookRequest(
                    scope=GOOD_M, title="fake", data=b"this is not a pdf at all", filename="fake.pdf"
                )
            ),
        },
        "ListBooks": {"bad-scope": lambda: M.ListBooksRequest(scope=BAD_M)},
        "RemoveBook": {
            "bad-scope": lambda: M.RemoveBookRequest(scope=BAD_M, title="t"),
            "empty-title": lambda: M.RemoveBookRequest(scope=GOOD_M, title="  "),
        },
        "Stats": {"bad-scope": lambda: M.StatsRequest(scope=BAD_M)},
        "RunMaintenance": {"bad-scope": lambda: M.RunMaintenanceRequest(scope=BAD_M)},
        "Export": {"bad-scope": lambda: M.ExportRequest(scope=BAD_M)},
        "Import": {
            "not-json": lambda: [M.ImportRequest(record_json="{nope")],
            "json-array": lambda: [M.ImportRequest(record_json="[1, 2]")],
            "bad-scope": lambda: [
                M.ImportRequest(
                    record_json=json.dumps(
                        {"scope": {"user": "../x", "project": "p"}, "collection": "working", "content": "x"}
                    )
                )
            ],
            "unknown-collection": lambda: [
                M.ImportRequest(
                    record_json=json.dumps(
                        {"scope": {"user": "tester", "project": "p"}, "collection": "secrets", "content": "x"}
                    )
                )
            ],
            "empty-content": lambda: [
                M.ImportRequest(
                    record_json=json.dumps(
                        {"scope": {"user": "tester", "project": "p"}, "collection": "working", "content": ""}
                    )
                )
            ],
            "metadata-not-object": lambda: [
                M.ImportRequest(
                    record_json=json.dumps(
                        {
                            "scope": {"user": "tester", "project": "p"},
                            "collection": "working",
                            "content": "x",
                            "metadata": [1],
                        }
                    )
                )
            ],
            "malformed-id": lambda: [
                M.ImportRequest(
                    record_json=json.dumps(
                        {
                            "scope": {"user": "tester", "project": "p"},
                            "collection": "working",
                            "content": "x",
                            "id": "../../x",
                        }
                    )
                )
            ],
        },
        "FindConsolidationCandidates": {
            "bad-scope": lambda: M.FindConsolidationCandidatesRequest(scope=BAD_M),
            "unknown-kind": lambda: M.FindConsolidationCandidatesRequest(scope=GOOD_M, kinds=["everything"]),
            "limit-too-high": lambda: M.FindConsolidationCandidatesRequest(scope=GOOD_M, limit=5000),
        },
        "Consolidate": {
            "bad-scope": lambda: M.ConsolidateRequest(scope=BAD_M, source_ids=[GOOD_ID], content="x"),
            "no-sources": lambda: M.ConsolidateRequest(scope=GOOD_M, content="merged"),
            "too-many-sources": lambda: M.ConsolidateRequest(
                scope=GOOD_M, source_ids=[f"working_{i:032d}" for i in range(30)], content="merged"
            ),
            "empty-content": lambda: M.ConsolidateRequest(scope=GOOD_M, source_ids=[GOOD_ID], content="  "),
            "malformed-id": lambda: M.ConsolidateRequest(scope=GOOD_M, source_ids=["../../x"], content="merged"),
            "unknown-collection": lambda: M.ConsolidateRequest(
                scope=GOOD_M, source_ids=[GOOD_ID], content="merged", collection="secrets"
            ),
        },
        "UndoConsolidation": {
            "bad-scope": lambda: M.UndoConsolidationRequest(scope=BAD_M, id=GOOD_ID),
            "empty-id": lambda: M.UndoConsolidationRequest(scope=GOOD_M, id=""),
            "malformed-id": lambda: M.UndoConsolidationRequest(scope=GOOD_M, id="../../x"),
        },
        "Browse": {
            "bad-scope": lambda: M.BrowseRequest(scope=BAD_M),
            "unknown-collection": lambda: M.BrowseRequest(scope=GOOD_M, collections=["secrets"]),
            "unknown-sort": lambda: M.BrowseRequest(scope=GOOD_M, sort="alphabetical"),
            "unknown-archived": lambda: M.BrowseRequest(scope=GOOD_M, archived="sometimes"),
            "limit-too-high": lambda: M.BrowseRequest(scope=GOOD_M, limit=100_000),
            "malformed-id": lambda: M.BrowseRequest(scope=GOOD_M, ids=["../../x"]),
            "too-many-ids": lambda: M.BrowseRequest(scope=GOOD_M, ids=[GOOD_ID] * 101),
            "session-too-long": lambda: M.BrowseRequest(scope=GOOD_M, session_id="s" * 201),
        },
        "Restore": {
            "bad-scope": lambda: M.RestoreRequest(scope=BAD_M, id=GOOD_ID),
            "empty-id": lambda: M.RestoreRequest(scope=GOOD_M, id=""),
            "malformed-id": lambda: M.RestoreRequest(scope=GOOD_M, id="../../x"),
        },
        "ListSessions": {
            "bad-scope": lambda: M.ListSessionsRequest(scope=BAD_M),
            "limit-too-high": lambda: M.ListSessionsRequest(scope=GOOD_M, limit=100_000),
        },
        "ListTurns": {
            "bad-scope": lambda: M.ListTurnsRequest(scope=BAD_M, session_id="s1"),
            "neither-session-nor-memory": lambda: M.ListTurnsRequest(scope=GOOD_M),
            "malformed-memory-id": lambda: M.ListTurnsRequest(scope=GOOD_M, memory_id="../../x"),
            "limit-too-high": lambda: M.ListTurnsRequest(scope=GOOD_M, session_id="s1", limit=100_000),
        },
        "OutcomeLog": {
            "bad-scope": lambda: M.OutcomeLogRequest(scope=BAD_M, memory_id=GOOD_ID),
            "malformed-memory-id": lambda: M.OutcomeLogRequest(scope=GOOD_M, memory_id="../../x"),
            "limit-too-high": lambda: M.OutcomeLogRequest(scope=GOOD_M, memory_id=GOOD_ID, limit=100_000),
        },
        "Overview": {
            "bad-scope": lambda: M.OverviewRequest(scope=BAD_M),
        },
    }
    return [Case(f"MemoryService/{m}", n, f) for m, named in cases.items() for n, f in named.items()]
