"""The catalogue of invalid gRPC requests: shared pieces, and the kg and embedding cases.

Every case is keyed by its full method name; ``test_grpc_invalid_args`` sends each
one to the real servers and walks the service descriptors, so a new RPC without
cases fails there. The memory service's cases are in ``invalid_memory_requests``.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from google.protobuf.message import Message

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.embedding.v1 import embedding_service_pb2 as emb_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

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

# The cases deliberately pass values the stubs' types forbid (unknown enum numbers), so they build their
# messages through the modules as ModuleType, whose attributes mypy leaves unchecked.
M: ModuleType = mem_pb
K: ModuleType = kg_pb
C: ModuleType = common_pb
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


def kg_cases() -> list[Case]:
    cases: dict[str, dict[str, Callable[[], Message | list[Message]]]] = {
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
        "RecordTurn": {
            "bad-scope": lambda: K.RecordTurnRequest(scope=BAD_K, session_id="s1", prompt="x", outcome=1),
            "empty-session": lambda: K.RecordTurnRequest(scope=GOOD_K, session_id=" ", prompt="x", outcome=1),
            "no-outcome": lambda: K.RecordTurnRequest(scope=GOOD_K, session_id="s1", prompt="x"),
            "unknown-outcome": lambda: K.RecordTurnRequest(scope=GOOD_K, session_id="s1", prompt="x", outcome=99),
            "vector-not-float32": lambda: K.RecordTurnRequest(
                scope=GOOD_K, session_id="s1", prompt="x", outcome=1, prompt_vector=b"abc"
            ),
            "prompt-too-long": lambda: K.RecordTurnRequest(
                scope=GOOD_K, session_id="s1", prompt="p" * 20_001, outcome=1
            ),
            "doc-id-too-long": lambda: K.RecordTurnRequest(
                scope=GOOD_K, session_id="s1", prompt="x", outcome=1, doc_id="d" * 1_000
            ),
        },
        "RecordToolError": {
            "bad-scope": lambda: K.RecordToolErrorRequest(scope=BAD_K, session_id="s1", command="make"),
            "empty-session": lambda: K.RecordToolErrorRequest(scope=GOOD_K, session_id="", command="make"),
            "session-too-long": lambda: K.RecordToolErrorRequest(scope=GOOD_K, session_id="s" * 1_000, command="m"),
            "nothing-failed": lambda: K.RecordToolErrorRequest(scope=GOOD_K, session_id="s1", command=" ", output=""),
            "output-too-long": lambda: K.RecordToolErrorRequest(
                scope=GOOD_K, session_id="s1", command="make", output="e" * 20_001
            ),
            "error-vector-not-float32": lambda: K.RecordToolErrorRequest(
                scope=GOOD_K, session_id="s1", command="make", output="error: x", error_vector=b"abcde"
            ),
        },
        "EpisodeLessons": {
            "bad-scope": lambda: K.EpisodeLessonsRequest(scope=BAD_K, session_id="s1", prompt="x"),
            "vector-not-float32": lambda: K.EpisodeLessonsRequest(scope=GOOD_K, query_vector=b"12345"),
            "vector-too-long": lambda: K.EpisodeLessonsRequest(scope=GOOD_K, query_vector=floats([0.1] * 5_000)),
            "limit-too-high": lambda: K.EpisodeLessonsRequest(scope=GOOD_K, prompt="x", limit=1_000_000),
            "prompt-too-long": lambda: K.EpisodeLessonsRequest(scope=GOOD_K, prompt="p" * 20_001),
            "session-too-long": lambda: K.EpisodeLessonsRequest(scope=GOOD_K, session_id="s" * 1_000),
        },
        "ListProblems": {
            "bad-scope": lambda: K.ListProblemsRequest(scope=BAD_K),
            "empty-scope": lambda: K.ListProblemsRequest(),
            "limit-too-high": lambda: K.ListProblemsRequest(scope=GOOD_K, limit=1_000_000),
        },
        "MergeProblems": {
            "bad-scope": lambda: K.MergeProblemsRequest(scope=BAD_K, keep="p1", merge="p2"),
            "empty-keep": lambda: K.MergeProblemsRequest(scope=GOOD_K, merge="p2"),
            "empty-merge": lambda: K.MergeProblemsRequest(scope=GOOD_K, keep="p1"),
            "not-a-problem-id": lambda: K.MergeProblemsRequest(scope=GOOD_K, keep="p1", merge="working_abc"),
            "id-too-long": lambda: K.MergeProblemsRequest(scope=GOOD_K, keep="p" + "1" * 300, merge="p2"),
        },
        "UnmergeProblems": {
            "bad-scope": lambda: K.UnmergeProblemsRequest(scope=BAD_K, merge_id="m1"),
            "empty-merge-id": lambda: K.UnmergeProblemsRequest(scope=GOOD_K),
            "not-a-merge-id": lambda: K.UnmergeProblemsRequest(scope=GOOD_K, merge_id="p1"),
        },
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
