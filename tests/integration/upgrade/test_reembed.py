"""``reembed`` after switching the embedding model keeps every memory findable, with its scores.

Two models: the real all-MiniLM-L6-v2, and a "new model" that maps its vectors into 512
dimensions through a fixed random orthonormal projection: as good at meaning, but its vectors
share nothing with the old ones (another space, another dimension), as a real switch would.
Memories are stored and scored through a real memory gRPC server with the first; the service
on the second names the switch and the command; a reembed cut short leaves the home refused
until it is run again; the finished one keeps ids, texts and scores, and a dense-only search
with the new model finds every memory first.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import grpc
import numpy as np
import numpy.typing as npt
import pytest

from kernel import vector_model
from kernel.grpc_hosting import RunningService
from kernel.store_health import StoreUnreadable
from kernel.vector_model import VectorModel
from mnemex.upgrade.reembed import reembed_home
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder
from services.memory.composition import MemoryUseCases
from tests.support.loop_thread import LoopThread

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

SCOPE = common_pb.Scope(user="tester", project="reembed")
MEMORIES = (
    ("working", "The staging deploy needs the VPN up before make deploy can reach the registry.", 1),
    ("working", "Our Redis cache evicts with allkeys-lru; raise maxmemory before blaming the client.", 0),
    ("history", "We moved the CI cache to the runner's local disk and builds went from 9 to 4 minutes.", 2),
    ("patterns", "When pytest hangs at collection, look for an import that opens a socket at module level.", 1),
    ("patterns", "Pin the protobuf runtime to the grpcio-tools version that generated the stubs.", 0),
    ("memory_bank", "The team's Postgres runs version 16 on port 5433, not the default 5432.", 0),
)
SCORE_FIELDS = ("score", "wilson_score", "uses", "success_count", "learned_score", "last_outcome", "outcome_history")


class TextEncoder(Protocol):
    """What the memory service's embedder here reads of an encoder: the real one, or Projected."""

    model_id: str
    dimension: int

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]: ...


class Projected:
    """Another model: the base model's vectors through a fixed orthonormal 384 -> 512 projection."""

    def __init__(self, base: Encoder, dimension: int = 512, fail_after: int | None = None) -> None:
        rng = np.random.default_rng(37)
        q, _ = np.linalg.qr(rng.standard_normal((dimension, int(base.dimension))))
        self._base, self._q = base, q.astype(np.float32)
        self.model_id, self.dimension = "minilm-projected-512", dimension
        self._calls_left = fail_after

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if self._calls_left is not None:
            if self._calls_left == 0:
                raise KeyboardInterrupt("the reembed is cut short")
            self._calls_left -= 1
        vectors = np.asarray(self._base.encode(texts), dtype=np.float32) @ self._q.T
        normed: npt.NDArray[np.float32] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return normed


class InProcessEmbedder:
    """The memory service's embedder seam, with the embedding service's Info."""

    def __init__(self, encoder: TextEncoder) -> None:
        self._encoder = encoder

    async def embed(self, texts: list[str], timeout: float | None = None) -> npt.NDArray[np.float32]:
        return np.asarray(self._encoder.encode(texts), dtype=np.float32)

    async def info(self, timeout: float | None = None) -> VectorModel:
        return VectorModel(self._encoder.model_id, self._encoder.dimension)


def start(
    loop_thread: LoopThread, home: Path, encoder: TextEncoder, *, retrieval_mode: str | None = None
) -> RunningService[MemoryUseCases]:
    from services.memory.composition import create_server
    from services.memory.settings import MemorySettings

    settings = MemorySettings(
        address="127.0.0.1:0",
        home=home,
        default_user="tester",
        embedding_addr="",
        maintenance_interval_s=0,
        vector_dim=int(encoder.dimension),
    )
    if retrieval_mode is not None:
        settings = replace(settings, retrieval_mode=retrieval_mode)
    return loop_thread.run(create_server(settings, embedder=InProcessEmbedder(encoder)))


def wait_for_watch(memory: MemoryUseCases) -> None:
    task = memory._model_watch
    assert task is not None
    for _ in range(200):
        if task.done():
            return
        time.sleep(0.05)
    raise AssertionError("the vector model check never finished")


def chroma(home: Path) -> ClientAPI:
    from services.memory.storage.chroma_store import open_client

    return open_client(home, None)


@pytest.fixture()
def old_home(loop_thread: LoopThread, encoder: Encoder, tmp_path: Path) -> Iterator[tuple[Path, list[pb.Memory]]]:
    """A home whose memories were stored and scored with the first model."""
    home = tmp_path / "home"
    running = start(loop_thread, home, encoder)
    worked = common_pb.OUTCOME_WORKED
    with grpc.insecure_channel(f"127.0.0.1:{running.port}") as chan:
        stub = pb_grpc.MemoryServiceStub(chan)
        ids: list[str] = []
        for collection, content, wins in MEMORIES:
            memory_id = stub.Store(pb.StoreRequest(scope=SCOPE, collection=collection, content=content)).memory.id
            for _ in range(wins):
                reply = stub.Score(
                    pb.ScoreRequest(
                        scope=SCOPE,
                        session_id="s1",
                        outcome=worked,
                        memory_scores={memory_id: worked},
                        related=pb.IdList(ids=[memory_id]),
                    )
                )
                memory_id = next((x.new_id for x in reply.scored if x.new_id), memory_id)  # promoted
            ids.append(memory_id)
        before = [stub.Get(pb.GetRequest(scope=SCOPE, id=i)).memory for i in ids]
    wait_for_watch(running.core)
    loop_thread.run(running.stop(0))
    yield home, before


def test_reembed_keeps_every_memory_findable_with_its_scores(
    loop_thread: LoopThread, encoder: Encoder, old_home: tuple[Path, list[pb.Memory]]
) -> None:
    home, before = old_home
    record = vector_model.read_record(home)
    assert record is not None and record.model == VectorModel("all-MiniLM-L6-v2", 384)
    new_model = Projected(encoder)

    # The switch without a reembed is named, with the command.
    switched = start(loop_thread, home, new_model)
    wait_for_watch(switched.core)
    problem = switched.core.vector_model_problem
    loop_thread.run(switched.stop(0))
    assert problem is not None and "mnemex down && mnemex reembed" in problem
    assert "all-MiniLM-L6-v2 (384 dimensions)" in problem and "minilm-projected-512" in problem

    # Cut short after the first batch: the home is refused until the reembed is run again.
    with pytest.raises(KeyboardInterrupt):
        reembed_home(chroma(home), home, Projected(encoder, fail_after=1))
    with pytest.raises(StoreUnreadable, match="run `mnemex down && mnemex reembed` again"):
        start(loop_thread, home, new_model)
    seen: list[tuple[int, int]] = []
    report = reembed_home(chroma(home), home, new_model, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (report.memories, report.memories)
    assert (report.already_done, report.collections) == (1, 3)  # working, history, patterns and the user's memory_bank
    assert not (home / vector_model.PROGRESS).exists()
    assert vector_model.read_record(home) == vector_model.Record(VectorModel("minilm-projected-512", 512))

    running = start(loop_thread, home, new_model, retrieval_mode="dense")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as chan:
            stub = pb_grpc.MemoryServiceStub(chan)
            for old in before:
                got = stub.Get(pb.GetRequest(scope=SCOPE, id=old.id)).memory
                assert (got.collection, got.content) == (old.collection, old.content)
                assert {n: getattr(got, n) for n in SCORE_FIELDS} == pytest.approx(
                    {n: getattr(old, n) for n in SCORE_FIELDS}
                )
                found = stub.Search(pb.SearchRequest(scope=SCOPE, query=old.content, limit=3)).memories
                assert found and found[0].id == old.id, [m.content for m in found]
        wait_for_watch(running.core)
        assert running.core.vector_model_problem is None
    finally:
        loop_thread.run(running.stop(0))


def test_a_home_written_by_a_newer_mnemex_is_refused_untouched(
    loop_thread: LoopThread, encoder: Encoder, old_home: tuple[Path, list[pb.Memory]]
) -> None:
    from kernel import home_schema

    home, _ = old_home
    (home / home_schema.MARKER).write_text('{"format": "mnemex-home", "stores": {"memory": 9}, "written_by": "9.0"}')
    files = sorted(p.relative_to(home) for p in home.rglob("*"))
    with pytest.raises(home_schema.HomeTooNewError, match=r"schema 9, written by mnemex 9\.0.*upgrade mnemex"):
        start(loop_thread, home, encoder)
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == files
    shutil.rmtree(home)


def test_a_swap_cut_short_is_finished_not_redone(encoder: Encoder, old_home: tuple[Path, list[pb.Memory]]) -> None:
    """Killed between dropping a collection and renaming its filled sibling: the sibling is complete."""
    from mnemex.upgrade import reembed

    home, before = old_home
    new_model = Projected(encoder)
    client = chroma(home)
    name = sorted(c.name for c in client.list_collections() if c.name.startswith(reembed.PREFIX))[0]
    rows = client.get_collection(name, embedding_function=None).count()
    reembed._fill(client, client.get_collection(name, embedding_function=None), new_model, 8000, lambda n: None)
    client.delete_collection(name)
    vector_model.write_progress(home, VectorModel(new_model.model_id, 512), [])

    report = reembed_home(chroma(home), home, new_model)
    assert report.resumed == [name] and report.already_done == 1
    swapped = chroma(home).get_collection(name, embedding_function=None)
    got = swapped.get(include=["embeddings", "metadatas"])
    embeddings = got["embeddings"]
    assert embeddings is not None and swapped.count() == rows and all(len(v) == 512 for v in embeddings)
    assert not any(c.name.startswith(reembed.SIBLING) for c in chroma(home).list_collections())
    assert sum(c.count() for c in chroma(home).list_collections()) == len(before)
