from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Iterator

import grpc
import numpy as np
import pytest

from kernel.vectors import unpack
from protos.mnemex.embedding.v1 import embedding_service_pb2 as pb
from protos.mnemex.embedding.v1 import embedding_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder


@pytest.fixture()
def stub(embedding_addr: str) -> Iterator[pb_grpc.EmbeddingServiceStub]:
    with grpc.insecure_channel(embedding_addr) as channel:
        yield pb_grpc.EmbeddingServiceStub(channel)


def test_embed_returns_unit_float32_rows(stub: pb_grpc.EmbeddingServiceStub) -> None:
    reply = stub.Embed(pb.EmbedRequest(texts=["the cat sat", "a dog barked"]), timeout=30)
    assert reply.dimension == 384 and reply.count == 2
    assert reply.model_id == "all-MiniLM-L6-v2"
    vectors = unpack(reply.vectors, reply.dimension)
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_embed_matches_in_process_model(stub: pb_grpc.EmbeddingServiceStub, encoder: Encoder) -> None:
    reply = stub.Embed(pb.EmbedRequest(texts=["pytest fixtures"]), timeout=30)
    expected = encoder.encode(["pytest fixtures"])
    assert np.allclose(unpack(reply.vectors, reply.dimension), expected, atol=1e-5)


def test_info_reports_model_dimension_device(stub: pb_grpc.EmbeddingServiceStub) -> None:
    info = stub.Info(pb.InfoRequest(), timeout=5)
    assert (info.model_id, info.dimension, info.device, info.backend, info.precision) == (
        "all-MiniLM-L6-v2",
        384,
        "cpu",
        "onnx",
        os.environ.get("MNEMEX_EMBEDDING_PRECISION", "int8"),  # the suite's precision (tests/conftest.py)
    )


@pytest.mark.parametrize(
    ("texts", "fragment"),
    [
        ([], "texts is empty"),
        (["ok", "  "], "texts[1] is empty"),
        (["x"] * 129, "too many texts"),
        (["y" * 9000], "too long"),
    ],
)
def test_bad_input_is_invalid_argument(stub: pb_grpc.EmbeddingServiceStub, texts: list[str], fragment: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        stub.Embed(pb.EmbedRequest(texts=texts), timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in (err.value.details() or "")


def test_concurrent_single_text_callers_share_batches(stub: pb_grpc.EmbeddingServiceStub) -> None:
    texts = [f"sentence number {i} about memory" for i in range(48)]
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        replies = list(pool.map(lambda t: stub.Embed(pb.EmbedRequest(texts=[t]), timeout=30), texts))
    assert all(r.count == 1 for r in replies)
    first = unpack(replies[0].vectors, 384)[0]
    assert first.shape == (384,)
