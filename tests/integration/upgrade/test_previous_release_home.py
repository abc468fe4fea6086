"""A home written by the previous release's code opens with every memory, score and kg lesson.

``tests/fixtures/homes/schema1`` was written by ``make_home.py`` with the code of the commit
before versioned homes (its ``expected.json`` names the commit, and holds what that code read
back). Today's memory and kg services (real gRPC servers, real Chroma, the real embedding
server) start on a copy: the home has no ``schema.json``, so both stores count as schema 1;
the memory store is migrated to schema 2 and the home stamped. Then every memory is read back
by id and found by search with the scores the old code gave it, and the kg still gives the
known problem's lesson.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, TypedDict

import grpc
import numpy as np
import pytest

from kernel import home_schema, vector_model
from kernel.grpc_hosting import RunningService
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as kg_grpc
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder
from services.memory.composition import MemoryUseCases
from tests.support.loop_thread import LoopThread

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "homes" / "schema1"
ScoreField = Literal[
    "score", "wilson_score", "uses", "success_count", "learned_score", "last_outcome", "outcome_history"
]
SCORE_FIELDS: tuple[ScoreField, ...] = (
    "score",
    "wilson_score",
    "uses",
    "success_count",
    "learned_score",
    "last_outcome",
    "outcome_history",
)


class ExpectedMemory(TypedDict):
    id: str
    collection: str
    content: str
    score: float
    wilson_score: float
    uses: int
    success_count: float
    learned_score: float
    last_outcome: str
    outcome_history: str


class ExpectedHome(TypedDict):
    """``expected.json`` (``tests/fixtures/homes/make_home.py``): what the previous release read back."""

    user: str
    project: str
    lesson_prompt: str
    memories: list[ExpectedMemory]
    lessons: list[dict[str, str]]
    made_by_commit: str


@pytest.fixture()
def expected() -> ExpectedHome:
    data: ExpectedHome = json.loads((FIXTURE / "expected.json").read_text())
    return data


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    copy = tmp_path / "old-home"
    shutil.copytree(FIXTURE / "home", copy)
    return copy


@pytest.fixture()
def services(loop_thread: LoopThread, embedding_addr: str, home: Path) -> Iterator[tuple[str, str, MemoryUseCases]]:
    from kernel.embedding_client import EmbeddingClient
    from kernel.grpc_channel import channel
    from services.kg.kg_servicer import create_server as create_kg
    from services.kg.settings import KgSettings
    from services.memory.composition import create_server as create_memory
    from services.memory.settings import MemorySettings

    settings = MemorySettings(
        address="127.0.0.1:0", home=home, default_user="tester", embedding_addr=embedding_addr, maintenance_interval_s=0
    )

    async def start_memory() -> RunningService[MemoryUseCases]:  # the client's channel belongs to the servers' loop
        return await create_memory(settings, embedder=EmbeddingClient(channel(embedding_addr)))

    memory = loop_thread.run(start_memory())
    kg = loop_thread.run(create_kg(KgSettings(address="127.0.0.1:0", home=home)))
    yield f"127.0.0.1:{memory.port}", f"127.0.0.1:{kg.port}", memory.core
    loop_thread.run(memory.stop(0))
    loop_thread.run(kg.stop(0))


def test_the_fixture_is_an_unversioned_home_from_the_previous_release(expected: ExpectedHome) -> None:
    assert not (FIXTURE / "home" / home_schema.MARKER).exists()
    assert len(expected["made_by_commit"]) == 40
    assert {m["collection"] for m in expected["memories"]} == {"history", "patterns", "working", "memory_bank"}
    assert any(m["uses"] for m in expected["memories"]) and expected["lessons"]


def test_every_memory_score_and_lesson_survives_the_upgrade(
    services: tuple[str, str, MemoryUseCases], expected: ExpectedHome, home: Path, encoder: Encoder
) -> None:
    memory_addr, kg_addr, memory = services
    scope = common_pb.Scope(user=expected["user"], project=expected["project"])
    with grpc.insecure_channel(memory_addr) as chan:
        stub = pb_grpc.MemoryServiceStub(chan)
        for old in expected["memories"]:
            got = stub.Get(pb.GetRequest(scope=scope, id=old["id"]), timeout=30).memory
            assert (got.collection, got.content) == (old["collection"], old["content"])
            assert {name: getattr(got, name) for name in SCORE_FIELDS} == pytest.approx(
                {name: old[name] for name in SCORE_FIELDS}
            )
            found = stub.Search(
                pb.SearchRequest(scope=scope, query=old["content"], collections=[old["collection"]], limit=3),
                timeout=30,
            ).memories
            assert found and found[0].id == old["id"], [m.content for m in found]
    with grpc.insecure_channel(kg_addr) as chan:
        prompt = expected["lesson_prompt"]
        vector = np.asarray(encoder.encode([prompt])[0], dtype="<f4").tobytes()
        reply = kg_grpc.KnowledgeGraphServiceStub(chan).EpisodeLessons(
            kg_pb.EpisodeLessonsRequest(scope=scope, session_id="s9", query_vector=vector, prompt=prompt, limit=6),
            timeout=10,
        )
        assert [{"kind": x.kind, "text": x.text} for x in reply.lessons] == expected["lessons"]

    schema = home_schema.read_schema(home)
    assert schema.marked and schema.stores == {"memory": 2, "kg": 1}
    record = vector_model.read_record(home)  # the schema 2 step, then the embedding service's model
    assert record is not None
    deadline = time.monotonic() + 20
    while record.model is None and time.monotonic() < deadline:
        time.sleep(0.1)
        record = vector_model.read_record(home) or record
    assert record.model is not None and record.model.model_id == "all-MiniLM-L6-v2"
    assert memory.vector_model_problem is None
