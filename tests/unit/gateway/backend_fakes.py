"""In-memory backends for the prompt path and teaching (the protocols of ``gateway/backends.py``).

Each fake keeps what a test needs to say and to check: the memories it holds, the kg's
answers, every request it was sent. A name in ``down`` makes that call fail as a backend
that cannot answer (``BackendError`` with ``UNAVAILABLE``), the way the gRPC adapters report it.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from gateway.backends import BackendError, Backends
from kernel.vectors import unpack
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

DIM = 16
SCOPE = common_pb.Scope(user="ana", project="shop")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def _fail_if_down(down: set[str], service: str, call: str) -> None:
    if call in down:
        raise BackendError(service, "UNAVAILABLE", f"{call}: connection refused")


@dataclass
class FakeEmbedding:
    """Deterministic unit vectors: the same text always gives the same vector."""

    down: set[str] = field(default_factory=set)
    texts: list[str] = field(default_factory=list)  # every text embedded, in order
    reconnects: list[bool] = field(default_factory=list)

    async def embed(self, texts: list[str], timeout: float, *, reconnect: bool = False) -> npt.NDArray[np.float32]:
        _fail_if_down(self.down, "embedding", "embed")
        self.texts += texts
        self.reconnects.append(reconnect)
        rows = [vector(text) for text in texts]
        return np.stack(rows).astype(np.float32)


def vector(text: str) -> npt.NDArray[np.float32]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    row = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    unit: npt.NDArray[np.float32] = row / np.linalg.norm(row)
    return unit


@dataclass
class FakeMemory:
    """A memory service holding ``memories``: PrepareContext keeps those sharing a word with the
    query (in the order held, up to the limit), returns the lesson ids asked that are live, and
    records the injection (unless a preview)."""

    memories: list[mem_pb.Memory] = field(default_factory=list)
    scoring_required: bool = False
    down: set[str] = field(default_factory=set)
    prepared: list[mem_pb.PrepareContextRequest] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)  # ids asked of Get

    def by_id(self, memory_id: str) -> mem_pb.Memory | None:
        return next((m for m in self.memories if m.id == memory_id), None)

    async def prepare_context(
        self, request: mem_pb.PrepareContextRequest, timeout: float
    ) -> mem_pb.PrepareContextResponse:
        _fail_if_down(self.down, "memory", "prepare_context")
        self.prepared.append(request)
        wanted = _words(request.search.query)
        found = [m for m in self.memories if not m.archived and wanted & _words(m.content)][: request.search.limit]
        lessons = [m for i in request.lesson_ids if (m := self.by_id(i)) is not None and not m.archived]
        if not request.preview:
            self.injected += [m.id for m in [*found, *lessons]]
        return mem_pb.PrepareContextResponse(
            memories=found,
            lessons=lessons,
            scoring_required=self.scoring_required,
            injected_ids=[m.id for m in found],
        )

    async def get(self, request: mem_pb.GetRequest, timeout: float) -> mem_pb.Memory | None:
        _fail_if_down(self.down, "memory", "get")
        self.reads.append(request.id)
        return self.by_id(request.id)


@dataclass
class FakeKg:
    """A knowledge graph whose Recall and EpisodeLessons answer what the test set, whose episode
    book keeps each session's first prompt as its problem, and whose action graph counts outcomes."""

    recalled: kg_pb.RecallResponse = field(default_factory=kg_pb.RecallResponse)
    episodes: list[kg_pb.EpisodeLesson] = field(default_factory=list)
    down: set[str] = field(default_factory=set)
    recalls: list[kg_pb.RecallRequest] = field(default_factory=list)
    episode_asks: list[kg_pb.EpisodeLessonsRequest] = field(default_factory=list)
    turns: list[kg_pb.RecordTurnRequest] = field(default_factory=list)
    extracted: list[str] = field(default_factory=list)
    outcomes: list[kg_pb.RecordOutcomeRequest] = field(default_factory=list)
    actions: list[kg_pb.RecordActionRequest] = field(default_factory=list)
    tool_errors: list[kg_pb.RecordToolErrorRequest] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)  # session -> its episode's problem

    async def recall(self, request: kg_pb.RecallRequest, timeout: float) -> kg_pb.RecallResponse:
        _fail_if_down(self.down, "kg", "recall")
        self.recalls.append(request)
        return self.recalled

    async def episode_lessons(self, request: kg_pb.EpisodeLessonsRequest, timeout: float) -> list[kg_pb.EpisodeLesson]:
        _fail_if_down(self.down, "kg", "episode_lessons")
        self.episode_asks.append(request)
        return list(self.episodes[: request.limit])

    async def extract_concepts(self, text: str, timeout: float) -> kg_pb.ExtractConceptsResponse:
        _fail_if_down(self.down, "kg", "extract_concepts")
        self.extracted.append(text)
        return kg_pb.ExtractConceptsResponse(concepts=sorted(_words(text)), context_type="debugging")

    async def record_turn(self, request: kg_pb.RecordTurnRequest, timeout: float) -> kg_pb.RecordTurnResponse:
        _fail_if_down(self.down, "kg", "record_turn")
        self.turns.append(request)
        status = "continued" if request.session_id in self.problems else "opened"
        problem = self.problems.setdefault(request.session_id, request.prompt)
        return kg_pb.RecordTurnResponse(problem=problem, status=status)

    async def record_outcome(self, request: kg_pb.RecordOutcomeRequest, timeout: float) -> None:
        _fail_if_down(self.down, "kg", "record_outcome")
        self.outcomes.append(request)

    async def record_action(self, request: kg_pb.RecordActionRequest, timeout: float) -> kg_pb.RecordActionResponse:
        _fail_if_down(self.down, "kg", "record_action")
        self.actions.append(request)
        same = [a for a in self.actions if a.action == request.action]
        worked = sum(1 for a in same if a.outcome == common_pb.OUTCOME_WORKED)
        return kg_pb.RecordActionResponse(success_rate=worked / len(same), total=len(same))

    async def record_tool_error(self, request: kg_pb.RecordToolErrorRequest, timeout: float) -> str:
        _fail_if_down(self.down, "kg", "record_tool_error")
        self.tool_errors.append(request)
        return "sig:" + request.command.split()[0]


@dataclass
class Fakes:
    memory: FakeMemory = field(default_factory=FakeMemory)
    kg: FakeKg = field(default_factory=FakeKg)
    embedding: FakeEmbedding = field(default_factory=FakeEmbedding)

    @property
    def backends(self) -> Backends:
        return Backends(memory=self.memory, kg=self.kg, embedding=self.embedding)


class MemoryFields(TypedDict, total=False):
    """The ``mem_pb.Memory`` fields the tests set beside id, content and collection."""

    archived: bool
    metadata_json: str


def memory(memory_id: str, content: str, **fields: Unpack[MemoryFields]) -> mem_pb.Memory:
    collection = memory_id.split("_", 1)[0] if "_" in memory_id else "history"
    return mem_pb.Memory(id=memory_id, content=content, collection=collection, **fields)


def unpacked(packed: bytes) -> npt.NDArray[np.float32]:
    """A packed little-endian float32 vector, as the kg and the memory service receive it."""
    row: npt.NDArray[np.float32] = unpack(packed, len(packed) // 4)[0]
    return row


def by_outcome(requests: list[kg_pb.RecordOutcomeRequest]) -> dict[int, list[str]]:
    grouped: dict[int, list[str]] = defaultdict(list)
    for request in requests:
        grouped[int(request.outcome)] += list(request.doc_ids)
    return dict(grouped)
