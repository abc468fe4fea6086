"""The ONNX backend serves the same vectors as sentence-transformers, and knows its limits."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from services.embedding.model import load_encoder, packaged_model_path
from services.embedding.onnx_export import OnnxUnsupported, cached_model_path, check_supported, model_digest

TEXTS = [
    "x",
    "why does the gateway return 503 after a restart",
    "Ünïcödé 日本語 テスト 🙂 — tabs\tand\nnewlines",
    "word " * 600,  # past max_seq_length: both must truncate the same way
    "def f(x):\n    return x ** 2  # code with symbols {}[]()",
]


@pytest.fixture(scope="module")
def torch_encoder():  # type: ignore[no-untyped-def]
    return load_encoder(backend="torch")


def test_onnx_matches_sentence_transformers(encoder, torch_encoder) -> None:  # type: ignore[no-untyped-def]
    assert encoder.backend == "onnx"
    batch = encoder.encode(TEXTS * 3)
    expected = torch_encoder.encode(TEXTS * 3)
    assert batch.shape == expected.shape == (15, 384)
    assert batch.dtype == np.float32
    assert np.abs(batch - expected).max() < 1e-5
    for text, row in zip(TEXTS, expected, strict=False):  # alone, no padding: same answer
        assert np.abs(encoder.encode([text])[0] - row).max() < 1e-5
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)


def test_batch_order_is_preserved_when_sorted_by_length(encoder) -> None:  # type: ignore[no-untyped-def]
    texts = [f"{'long ' * (i % 7 * 20)}item {i}" for i in range(150)]
    together = encoder.encode(texts)
    for i in (0, 33, 77, 149):
        assert np.abs(together[i] - encoder.encode([texts[i]])[0]).max() < 1e-5


def test_export_cache_key_follows_the_model_files(tmp_path: Path) -> None:
    model = Path(packaged_model_path())
    copy = tmp_path / "copy"
    shutil.copytree(model, copy, ignore=shutil.ignore_patterns("model.safetensors"))
    os.symlink(model / "model.safetensors", copy / "model.safetensors")
    assert model_digest(copy) == model_digest(model)  # same files, same export
    cfg = copy / "sentence_bert_config.json"
    cfg.write_text(json.dumps({**json.loads(cfg.read_text()), "max_seq_length": 128}))
    assert model_digest(copy) != model_digest(model)  # a changed config is a new export
    assert cached_model_path(copy, tmp_path).parent == tmp_path


def _cls_pooled_copy(tmp_path: Path) -> Path:
    model = Path(packaged_model_path())
    copy = tmp_path / "cls-model"
    shutil.copytree(model, copy, ignore=shutil.ignore_patterns("model.safetensors"))
    os.symlink(model / "model.safetensors", copy / "model.safetensors")
    pooling = copy / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    cfg.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(cfg))
    return copy


def test_unsupported_pooling_is_refused_or_served_by_torch(tmp_path: Path) -> None:
    copy = _cls_pooled_copy(tmp_path)
    with pytest.raises(OnnxUnsupported, match="mean pooling"):
        check_supported(copy)
    with pytest.raises(OnnxUnsupported):
        load_encoder(str(copy), backend="onnx")
    fallback = load_encoder(str(copy), backend="auto")
    assert fallback.backend == "torch"
    assert fallback.encode(["hello"]).shape == (1, 384)
