"""The three backends as the prompt path sees them: small protocols, one per service.

``prompt_context``, ``lessons``, ``teaching`` and ``problem_vector`` depend on
these, not on ``Rpc``: each protocol holds only the calls they make, taking the
request message and returning the reply (or the value in it). The gRPC
implementations are thin adapters over ``Rpc`` (``gateway/rpc_backends.py``),
built once in the composition root (``gateway/gateway_composition.py``); unit
tests hand in fakes that keep everything in memory
(``tests/unit/gateway/backend_fakes.py``).

Every call raises ``BackendError`` when the service refuses or cannot answer;
its ``code`` is the gRPC status name (``"UNAVAILABLE"``), which the callers log
and report as they are best-effort.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


class BackendError(Exception):
    """A backend call that failed: the service, the gRPC status name (``code``) and its detail."""

    def __init__(self, service: str, code: str, details: str = "") -> None:
        super().__init__(f"{service}: {code}: {details}" if details else f"{service}: {code}")
        self.service = service
        self.code = code
        self.details = details


class EmbeddingBackend(Protocol):
    async def embed(self, texts: list[str], timeout: float, *, reconnect: bool = False) -> npt.NDArray[np.float32]:
        """(len(texts), dim) float32 unit vectors. ``reconnect``: a channel still reconnecting after its
        backend restarted gets a short grace instead of failing at once (the prompt path)."""
        ...


class MemoryBackend(Protocol):
    async def prepare_context(
        self, request: mem_pb.PrepareContextRequest, timeout: float
    ) -> mem_pb.PrepareContextResponse:
        """The prompt's memories, lessons and scoring state; the injection is recorded (unless a preview).
        Waits a short grace for a reconnecting channel."""
        ...

    async def get(self, request: mem_pb.GetRequest, timeout: float) -> mem_pb.Memory | None:
        """One memory by id; None when there is no such memory."""
        ...


class KgBackend(Protocol):
    async def recall(self, request: kg_pb.RecallRequest, timeout: float) -> kg_pb.RecallResponse:
        """Concepts, route, facts and lessons for a text; waits a short grace for a reconnecting channel."""
        ...

    async def episode_lessons(
        self, request: kg_pb.EpisodeLessonsRequest, timeout: float
    ) -> list[kg_pb.EpisodeLesson]: ...

    async def extract_concepts(self, text: str, timeout: float) -> kg_pb.ExtractConceptsResponse: ...

    async def record_turn(self, request: kg_pb.RecordTurnRequest, timeout: float) -> kg_pb.RecordTurnResponse: ...

    async def record_outcome(self, request: kg_pb.RecordOutcomeRequest, timeout: float) -> None: ...

    async def record_action(self, request: kg_pb.RecordActionRequest, timeout: float) -> kg_pb.RecordActionResponse: ...

    async def record_tool_error(self, request: kg_pb.RecordToolErrorRequest, timeout: float) -> str:
        """The signature the kg filed the error under."""
        ...


@dataclass(frozen=True)
class Backends:
    """The three backends together, as the prompt path and teaching take them."""

    memory: MemoryBackend
    kg: KgBackend
    embedding: EmbeddingBackend
