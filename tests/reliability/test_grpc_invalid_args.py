"""Invalid arguments on every RPC of every service get INVALID_ARGUMENT, never UNKNOWN or INTERNAL.

The cases are keyed by the full method name; a completeness test walks the
service descriptors, so a new RPC without invalid-input cases fails here.
Calls go over real loopback channels to the real servers.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.embedding.v1 import embedding_service_pb2 as emb_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from tests.reliability.inproc import InprocStack

pytestmark = pytest.mark.integration

SERVICES = {
    "embedding": emb_pb.DESCRIPTOR.services_by_name["EmbeddingService"],
    "memory": mem_pb.DESCRIPTOR.services_by_name["MemoryService"],
    "kg": kg_pb.DESCRIPTOR.services_by_name["KnowledgeGraphService"],
}
# RPCs whose request has no field a caller could get wrong.
NO_INPUT = {
    "EmbeddingService/Info",
    "MemoryService/ListScopes",
    "MemoryService/Info",
    "MemoryService/GetRules",
    "KnowledgeGraphService/Info",
}

# Any: the cases deliberately pass values the stubs' types forbid (unknown enum numbers).
M: Any = mem_pb
K: Any = kg_pb
C: Any = common_pb
GOOD_M = C.Scope(user="tester", project="grpc-bad-input")
GOOD_K = C.Scope(user="tester", project="grpc-bad-input")
BAD_M = C.Scope(user="../../etc", project="passwd")
BAD_K = C.Scope(user="../../etc", project="passwd")
GOOD_ID = "working_" + "0" * 32


def floats(values: list[float]) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


@dataclass(frozen=True)
class Case:
    method: str  # "Service/Method"
    name: str
    request: Callable[[], Message | list[Message]]


def memory_cases() -> list[Case]:
    long_sid = "s" * 300
    cases: dict[str, dict[str, Callable[[], Any]]] = {
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
            "not-a-working-id": lambda: M.BackfillRequest(
                exchanges=[
                    M.BackfillItem(
                        scope=GOOD_M, id="history_" + "0" * 32, created_at="2025-01-01T00:00:00Z", user_text="q"
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


def kg_cases() -> list[Case]:
    cases: dict[str, dict[str, Callable[[], Any]]] = {
        "ExtractConcepts": {
            "empty-text": lambda: K.ExtractConceptsRequest(text="  "),
            "text-too-long": lambda: K.ExtractConceptsRequest(text="word " * 10_000),
        },
        "Route": {
            "bad-scope": lambda: K.RouteRequest(scope=BAD_K, concepts=["x"]),
            "empty-scope": lambda: K.RouteRequest(concepts=["x"]),
            "too-many-concepts": lambda: K.RouteRequest(scope=GOOD_K, concepts=[f"c{i}" for i in range(1000)]),
        },
        "RecordOutcome": {
            "bad-scope": lambda: K.RecordOutcomeRequest(
                scope=BAD_K, concepts=["x"], collections=["working"], outcome=1
            ),
            "no-outcome": lambda: K.RecordOutcomeRequest(scope=GOOD_K, concepts=["x"], collections=["working"]),
            "nothing-to-learn": lambda: K.RecordOutcomeRequest(scope=GOOD_K, collections=["working"], outcome=1),
            "nothing-to-credit": lambda: K.RecordOutcomeRequest(scope=GOOD_K, concepts=["x"], outcome=1),
            "bad-collection-name": lambda: K.RecordOutcomeRequest(
                scope=GOOD_K, concepts=["x"], collections=["a b/c"], outcome=1
            ),
            "problem-too-long": lambda: K.RecordOutcomeRequest(
                scope=GOOD_K, concepts=["x"], collections=["working"], outcome=1, problem="p" * 50_000
            ),
        },
        "RecordAction": {
            "bad-scope": lambda: K.RecordActionRequest(
                scope=BAD_K, context_type="coding", action="a", collection="working", outcome=1
            ),
            "empty-action": lambda: K.RecordActionRequest(
                scope=GOOD_K, context_type="coding", action="", collection="working", outcome=1
            ),
            "action-with-a-pipe": lambda: K.RecordActionRequest(
                scope=GOOD_K, context_type="coding", action="pytest | tee", collection="working", outcome=1
            ),
            "no-outcome": lambda: K.RecordActionRequest(
                scope=GOOD_K, context_type="coding", action="a", collection="working"
            ),
        },
        "IndexFact": {
            "bad-scope": lambda: K.IndexFactRequest(scope=BAD_K, fact_id="f", text="x"),
            "empty-fact-id": lambda: K.IndexFactRequest(scope=GOOD_K, fact_id="", text="x"),
            "empty-text": lambda: K.IndexFactRequest(scope=GOOD_K, fact_id="f", text=""),
        },
        "Recall": {
            "bad-scope": lambda: K.RecallRequest(scope=BAD_K, text="why is postgres slow"),
            "empty-text": lambda: K.RecallRequest(scope=GOOD_K, text="  "),
            "text-too-long": lambda: K.RecallRequest(scope=GOOD_K, text="x" * 20_001),
            "fact-limit-too-high": lambda: K.RecallRequest(scope=GOOD_K, text="postgres", fact_limit=1_000_000),
            "lesson-limit-too-high": lambda: K.RecallRequest(scope=GOOD_K, text="postgres", lesson_limit=11),
        },
        "Effectiveness": {
            "bad-scope": lambda: K.EffectivenessRequest(scope=BAD_K),
            "bad-context-type": lambda: K.EffectivenessRequest(scope=GOOD_K, context_type="no spaces|pipes"),
            "limit-too-high": lambda: K.EffectivenessRequest(scope=GOOD_K, limit=1_000_000),
        },
        "FactsForEntities": {
            "bad-scope": lambda: K.FactsForEntitiesRequest(scope=BAD_K, entities=["x"]),
            "limit-too-high": lambda: K.FactsForEntitiesRequest(scope=GOOD_K, entities=["x"], limit=1_000_000),
        },
        "SolutionsFor": {
            "bad-scope": lambda: K.SolutionsForRequest(scope=BAD_K, problem="x"),
            "empty-problem": lambda: K.SolutionsForRequest(scope=GOOD_K, problem=""),
        },
        "Neighbors": {
            "bad-scope": lambda: K.NeighborsRequest(scope=BAD_K, entity="x"),
            "empty-entity": lambda: K.NeighborsRequest(scope=GOOD_K, entity=" "),
        },
        "Traverse": {
            "bad-scope": lambda: K.TraverseRequest(scope=BAD_K, seeds=["x"]),
            "no-seeds": lambda: K.TraverseRequest(scope=GOOD_K),
            "depth-too-high": lambda: K.TraverseRequest(scope=GOOD_K, seeds=["x"], max_depth=100),
            "decay-above-1": lambda: K.TraverseRequest(scope=GOOD_K, seeds=["x"], decay=5.0),
            "decay-nan": lambda: K.TraverseRequest(scope=GOOD_K, seeds=["x"], decay=math.nan),
        },
        "RemoveDocs": {
            "bad-scope": lambda: K.RemoveDocsRequest(scope=BAD_K, doc_ids=["x"]),
            "no-doc-ids": lambda: K.RemoveDocsRequest(scope=GOOD_K),
        },
        "Graph": {
            "bad-scope": lambda: K.GraphRequest(scope=BAD_K),
            "limit-too-high": lambda: K.GraphRequest(scope=GOOD_K, limit=10_000_000),
        },
        "Stats": {"bad-scope": lambda: K.StatsRequest(scope=BAD_K)},
        "Export": {"bad-scope": lambda: K.ExportRequest(scope=BAD_K)},
        "Import": {
            "bad-scope": lambda: K.ImportRequest(scope=BAD_K, graph_json="{}"),
            "not-json": lambda: K.ImportRequest(scope=GOOD_K, graph_json="{nope"),
            "json-list": lambda: K.ImportRequest(scope=GOOD_K, graph_json="[1, 2]"),
            "empty": lambda: K.ImportRequest(scope=GOOD_K, graph_json=""),
            "wrong-shape": lambda: K.ImportRequest(
                scope=GOOD_K, graph_json='{"routing": 5, "entities": "x", "facts": [1]}'
            ),
        },
    }
    return [Case(f"KnowledgeGraphService/{m}", n, f) for m, named in cases.items() for n, f in named.items()]


def embedding_cases() -> list[Case]:
    return [
        Case("EmbeddingService/Embed", "no-texts", lambda: emb_pb.EmbedRequest()),
        Case("EmbeddingService/Embed", "empty-text", lambda: emb_pb.EmbedRequest(texts=["ok", "  "])),
        Case("EmbeddingService/Embed", "too-many-texts", lambda: emb_pb.EmbedRequest(texts=["t"] * 1000)),
        Case("EmbeddingService/Embed", "text-too-long", lambda: emb_pb.EmbedRequest(texts=["x" * 100_000])),
    ]


CASES = memory_cases() + kg_cases() + embedding_cases()
# Found by this suite; each is a BUG with the fix in the report.
KNOWN_BUGS: dict[str, str] = {}


def _address(stack: InprocStack, method: str) -> str:
    service = method.split("/")[0]
    return {
        "MemoryService": stack.memory_addr,
        "KnowledgeGraphService": stack.kg_addr,
        "EmbeddingService": stack.embedding_addr,
    }[service]


def _full_name(method: str) -> str:
    service, name = method.split("/")
    for descriptor in SERVICES.values():
        if descriptor.name == service:
            return f"/{descriptor.full_name}/{name}"
    raise KeyError(method)


def _method_descriptor(method: str) -> Any:
    service, name = method.split("/")
    for descriptor in SERVICES.values():
        if descriptor.name == service:
            return descriptor.methods_by_name[name]
    raise KeyError(method)


def call(channel: grpc.Channel, method: str, request: Message | list[Message]) -> tuple[grpc.StatusCode, str, Any]:
    """Invoke any RPC generically; returns (code, details, reply or None)."""
    descriptor = _method_descriptor(method)
    from google.protobuf import message_factory

    reply_class = message_factory.GetMessageClass(descriptor.output_type)
    path = _full_name(method)
    kwargs = {"request_serializer": lambda m: m.SerializeToString(), "response_deserializer": reply_class.FromString}
    try:
        if descriptor.client_streaming:
            reply = channel.stream_unary(path, **kwargs)(iter(request), timeout=60)  # type: ignore[arg-type]
        elif descriptor.server_streaming:
            reply = list(channel.unary_stream(path, **kwargs)(request, timeout=60))
        else:
            reply = channel.unary_unary(path, **kwargs)(request, timeout=60)
    except grpc.RpcError as exc:
        return exc.code(), exc.details() or "", None
    return grpc.StatusCode.OK, "", reply


def test_every_rpc_of_every_service_has_invalid_input_cases() -> None:
    covered = {case.method for case in CASES}
    missing = []
    for descriptor in SERVICES.values():
        for method in descriptor.methods:
            key = f"{descriptor.name}/{method.name}"
            if key not in covered and key not in NO_INPUT:
                missing.append(key)
    assert not missing, f"add invalid-input cases for: {missing}"


@pytest.fixture(scope="module")
def channels(stack: InprocStack) -> Iterator[dict[str, grpc.Channel]]:
    opened = {
        name: grpc.insecure_channel(addr, options=[("grpc.max_send_message_length", 32 * 1024 * 1024)])
        for name, addr in (
            ("MemoryService", stack.memory_addr),
            ("KnowledgeGraphService", stack.kg_addr),
            ("EmbeddingService", stack.embedding_addr),
        )
    }
    yield opened
    for channel in opened.values():
        channel.close()


def _param(case: Case) -> Any:
    key = f"{case.method}:{case.name}"
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[key])] if key in KNOWN_BUGS else []
    return pytest.param(case, id=key, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_invalid_argument(case: Case, channels: dict[str, grpc.Channel]) -> None:
    code, details, reply = call(channels[case.method.split("/")[0]], case.method, case.request())
    if case.method == "MemoryService/Import" and code == grpc.StatusCode.OK:
        # Import reports bad lines in-band so one bad line never stops a restore.
        assert reply.invalid == 1 and reply.imported == 0, reply
        return
    assert code == grpc.StatusCode.INVALID_ARGUMENT, f"{case.method} [{case.name}] -> {code.name}: {details[:300]}"
    assert len(details) >= 15, f"the message should say what is wrong and how to fix it: {details!r}"


@pytest.mark.parametrize("method", sorted(NO_INPUT))
def test_rpcs_without_input_answer_ok(method: str, channels: dict[str, grpc.Channel]) -> None:
    request_class = {
        "EmbeddingService/Info": emb_pb.InfoRequest,
        "MemoryService/ListScopes": mem_pb.ListScopesRequest,
        "MemoryService/Info": mem_pb.InfoRequest,
        "MemoryService/GetRules": mem_pb.GetRulesRequest,
        "KnowledgeGraphService/Info": kg_pb.InfoRequest,
    }
    code, details, _ = call(channels[method.split("/")[0]], method, request_class[method]())
    assert code == grpc.StatusCode.OK, details


def test_unknown_ids_are_not_found_not_invalid(channels: dict[str, grpc.Channel]) -> None:
    memory = channels["MemoryService"]
    for method, request in [
        ("MemoryService/Get", M.GetRequest(scope=GOOD_M, id=GOOD_ID)),
        ("MemoryService/Update", M.UpdateRequest(scope=GOOD_M, id=GOOD_ID, content="new text")),
        ("MemoryService/Archive", M.ArchiveRequest(scope=GOOD_M, id=GOOD_ID)),
        ("MemoryService/RemoveBook", M.RemoveBookRequest(scope=GOOD_M, title="No Such Book")),
        ("MemoryService/UndoConsolidation", M.UndoConsolidationRequest(scope=GOOD_M, id=GOOD_ID)),
    ]:
        code, details, _ = call(memory, method, request)
        assert code == grpc.StatusCode.NOT_FOUND, f"{method} -> {code.name}: {details}"


# Regression: memory used to embed whole texts, and the embedding service refuses more than 8,192 chars,
# so any memory or exchange between 8,193 chars and the limits failed as UNAVAILABLE.
def test_long_texts_within_the_limits_are_stored(channels: dict[str, grpc.Channel]) -> None:
    memory = channels["MemoryService"]
    words = " ".join(f"step{i} checks the retry budget of the upload worker" for i in range(250))  # ~13,000 chars
    code, details, reply = call(
        memory, "MemoryService/Store", M.StoreRequest(scope=GOOD_M, collection="working", content=words)
    )
    assert code == grpc.StatusCode.OK, f"Store of {len(words):,} chars -> {code.name}: {details[:200]}"
    code, details, reply = call(
        memory,
        "MemoryService/RecordExchange",
        M.RecordExchangeRequest(scope=GOOD_M, session_id="long-answer", user_text="explain", assistant_text=words * 2),
    )
    assert code == grpc.StatusCode.OK and reply.exchange_id, f"RecordExchange -> {code.name}: {details[:200]}"
