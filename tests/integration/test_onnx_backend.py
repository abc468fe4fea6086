"""The ONNX backend serves the same vectors as sentence-transformers (fp32) or close ones (int8),
and knows its limits."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest

from services.embedding.model import Encoder, load_encoder
from services.embedding.onnx_encoder import OnnxEncoder
from services.embedding.onnx_export import OnnxUnsupported, cached_model_path, check_supported, main, model_digest
from services.embedding.packaged_model import packaged_model_path

TEXTS = [
    "x",
    "why does the gateway return 503 after a restart",
    "Ünïcödé 日本語 テスト 🙂 — tabs\tand\nnewlines",
    "word " * 600,  # past max_seq_length: both must truncate the same way
    "def f(x):\n    return x ** 2  # code with symbols {}[]()",
]


def onnx_graph(encoder: Encoder) -> OnnxEncoder:
    """The ONNX encoder behind the seam, for the tests that read its graphs."""
    assert isinstance(encoder, OnnxEncoder)
    return encoder


@pytest.fixture(scope="module")
def torch_encoder() -> Encoder:
    return load_encoder(backend="torch")


@pytest.fixture(scope="module")
def fp32_encoder() -> Encoder:
    return load_encoder(precision="fp32")


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    """The default (int8) graph, here even when the suite runs at fp32 (MNEMEX_EMBEDDING_PRECISION)."""
    return load_encoder()


def test_the_default_is_the_int8_onnx_graph(encoder: Encoder) -> None:
    assert (encoder.backend, encoder.precision) == ("onnx", "int8")


def test_onnx_matches_sentence_transformers(fp32_encoder: Encoder, torch_encoder: Encoder) -> None:
    encoder = fp32_encoder
    assert (encoder.backend, encoder.precision) == ("onnx", "fp32")
    batch = encoder.encode(TEXTS * 3)
    expected = torch_encoder.encode(TEXTS * 3)
    assert batch.shape == expected.shape == (15, 384)
    assert batch.dtype == np.float32
    assert np.abs(batch - expected).max() < 1e-5
    for text, row in zip(TEXTS, expected, strict=False):  # alone, no padding: same answer
        assert np.abs(encoder.encode([text])[0] - row).max() < 1e-5
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_a_vector_depends_on_its_text_alone(precision: str, encoder: Encoder, fp32_encoder: Encoder) -> None:
    """Batched or alone, in any order: the same text gives the same vector (int8 included,
    whose activation scales would otherwise be taken over the whole batch)."""
    chosen = fp32_encoder if precision == "fp32" else encoder
    texts = [f"{'long ' * (i % 7 * 20)}item {i}" for i in range(150)]
    together = chosen.encode(texts)
    for i in (0, 33, 77, 149):
        assert np.abs(together[i] - chosen.encode([texts[i]])[0]).max() < 1e-5


SENTENCES = [
    "why does the gateway return 503 after a restart",
    "pin torch to the CPU wheel so pip never pulls CUDA",
    "the billing service deploys with helm on friday",
    "Caroline went to the LGBTQ support group yesterday",
    "def f(x):\n    return x ** 2",
    "the cache is invalidated on every deploy",
    "Ünïcödé 日本語 テスト 🙂",
    "I painted a sunrise over the lake last weekend",
]


def test_int8_vectors_stay_close_to_fp32_and_keep_the_neighbours(encoder: Encoder, fp32_encoder: Encoder) -> None:
    """The speed is bought with a bounded error: cosine to the exact vector, and the same
    nearest neighbour for paraphrases (the retrieval cost is measured on LoCoMo)."""
    exact, fast = fp32_encoder.encode(SENTENCES), encoder.encode(SENTENCES)
    assert fast.dtype == np.float32 and np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-4)
    cosines = (exact * fast).sum(axis=1)
    assert cosines.min() > 0.97 and cosines.mean() > 0.985, cosines
    queries = [
        "what does a 503 from the gateway after restarting mean?",
        "when do we clear the cache?",
        "which day is the billing deploy?",
    ]
    expected = [0, 5, 2]
    assert list((fp32_encoder.encode(queries) @ exact.T).argmax(axis=1)) == expected
    assert list((encoder.encode(queries) @ fast.T).argmax(axis=1)) == expected


def test_int8_is_derived_from_the_fp32_export_into_its_own_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = Path(packaged_model_path())
    fp32 = cached_model_path(model, tmp_path)
    out = cached_model_path(model, tmp_path, "int8")
    assert out != fp32 and not out.exists()
    assert main(["--out", str(out), "--precision", "int8", "--json"]) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply == {"model": str(model), "onnx": str(out), "precision": "int8"}
    assert 0 < out.stat().st_size < fp32.stat().st_size
    assert not list(tmp_path.glob(".*.tmp"))  # written under a temporary name, then renamed


def test_an_unknown_precision_is_refused_with_the_choices(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MNEMEX_EMBEDDING_PRECISION", "fp16")
    with pytest.raises(SystemExit) as exited:
        main(["--json"])
    assert exited.value.code == 2
    assert "choose one of int8, fp32" in capsys.readouterr().err


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


def test_without_an_int8_graph_the_fp32_graph_serves(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A failed quantization (the seam faked here) falls back to exact ONNX, never to torch."""
    real_load = OnnxEncoder.load

    def load(
        cls: type[OnnxEncoder],
        /,
        model_dir: Path,
        model_id: str,
        cache: Path | None = None,
        threads: int = 0,
        precision: str = "int8",
    ) -> OnnxEncoder:
        if precision == "int8":
            raise OnnxUnsupported("quantization failed: simulated")
        return real_load(model_dir, model_id, cache, threads, precision)

    monkeypatch.setattr(OnnxEncoder, "load", classmethod(load))
    served = load_encoder()
    assert (served.backend, served.precision) == ("onnx", "fp32")
    assert "int8 ONNX unavailable" in caplog.text

    def refuse(cls: type[OnnxEncoder], /, *args: object, **kwargs: object) -> NoReturn:
        raise OnnxUnsupported("simulated: no ONNX graph at all")

    monkeypatch.setattr(OnnxEncoder, "load", classmethod(refuse))
    with pytest.raises(OnnxUnsupported, match="no ONNX graph at all"):  # backend=onnx insists: no torch
        load_encoder(backend="onnx")


def test_a_corrupt_cached_graph_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache holds derived files only: a truncated served graph is rebuilt at load."""
    from services.embedding.onnx_cache import served_files

    model = Path(packaged_model_path())
    monkeypatch.setenv("MNEMEX_MODEL_CACHE", str(tmp_path))
    load_encoder()
    broken = served_files(model, "int8").single
    broken.write_bytes(b"not an onnx graph, cut short by a full disk")
    served = load_encoder()
    assert (served.backend, served.precision) == ("onnx", "int8")
    assert broken.stat().st_size > 1_000_000
    assert served.encode(["hello"]).shape == (1, 384)


def test_int8_batches_run_per_sequence_scales_and_match_each_text_alone(encoder: Encoder) -> None:
    """Batched int8 rows are the text-alone vectors: mixed lengths (padding inside each chunk),
    any order; the per-sequence graph run on one text is the original graph's vector bit for bit."""
    texts = TEXTS + SENTENCES + [f"{'step ' * (i * 13 % 90)}fix {i}: retry the flaky {i % 5} test" for i in range(40)]
    encoder = onnx_graph(encoder)
    together = encoder.encode(texts)
    reversed_ = encoder.encode(texts[::-1])[::-1]
    alone = np.concatenate([encoder.encode([t]) for t in texts])  # the graph quantize_dynamic wrote
    rows_session = encoder._rows()
    assert rows_session is not None  # batches went through the per-sequence graph
    for batched in (together, reversed_):
        assert np.abs(batched - alone).max() < 1e-6
        assert (batched * alone).sum(axis=1).min() >= 0.99999
    rows_alone = np.concatenate([encoder._feed(encoder._arrays([t]), rows_session) for t in texts])
    assert np.array_equal(rows_alone, alone)


def test_the_cache_keeps_only_the_served_files_and_they_give_the_built_graphs_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoder: Encoder
) -> None:
    """At int8 the cache holds the two served graphs and the one weights file they share (the
    30,522 x 384 fp32 word embeddings, mapped from disk), under 100 MB and nothing else: no fp32
    export, no graph with its weights inside. Their vectors are those of the int8 graph with its
    weights inside, bit for bit; a torn weights file is rebuilt at the next load."""
    import onnxruntime as ort

    from services.embedding.onnx_cache import served_files

    model = Path(packaged_model_path())
    monkeypatch.setenv("MNEMEX_MODEL_CACHE", str(tmp_path / "cache"))
    served = onnx_graph(load_encoder())
    files = served_files(model, "int8")
    assert sorted((tmp_path / "cache").iterdir()) == sorted(files.files())
    assert sum(p.stat().st_size for p in files.files()) <= 100_000_000
    assert files.weights.stat().st_size > 40_000_000  # the word embeddings, once for both graphs
    assert files.single.stat().st_size < 15_000_000 and files.rows is not None
    assert files.rows.stat().st_size < 15_000_000

    inside = cached_model_path(model, tmp_path, "int8")
    assert main(["--out", str(inside), "--precision", "int8"]) == 0
    with_weights = ort.InferenceSession(str(inside), providers=["CPUExecutionProvider"])
    for text in TEXTS:
        assert np.array_equal(served.encode([text]), served._feed(served._arrays([text]), with_weights))
    texts = TEXTS + SENTENCES
    assert np.array_equal(served.encode(texts), encoder.encode(texts))  # batches: the shared rows graph

    expected = served.encode(TEXTS[:2])
    del served, with_weights  # a session reading a file cut short under it dies of SIGBUS
    files.weights.unlink()
    files.weights.write_bytes(b"cut short")
    again = load_encoder()
    assert files.weights.stat().st_size > 40_000_000
    assert np.array_equal(again.encode(TEXTS[:2]), expected)


def test_fp32_is_built_on_demand_into_its_own_served_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from services.embedding.onnx_cache import served_files

    model = Path(packaged_model_path())
    cache = tmp_path / "cache"
    monkeypatch.setenv("MNEMEX_MODEL_CACHE", str(cache))
    served = onnx_graph(load_encoder(precision="fp32"))
    files = served_files(model, "fp32")
    assert files.rows is None
    assert sorted(cache.iterdir()) == sorted(files.files())
    assert sum(p.stat().st_size for p in files.files()) <= 100_000_000
    inside = tmp_path / "inside" / "fp32.onnx"
    assert main(["--out", str(inside), "--precision", "fp32"]) == 0
    import onnxruntime as ort

    with_weights = ort.InferenceSession(str(inside), providers=["CPUExecutionProvider"])
    for text in TEXTS:
        assert np.array_equal(served.encode([text]), served._feed(served._arrays([text]), with_weights))


def _varied_texts(count: int) -> list[str]:
    """Prose, code, unicode, numbers, and long texts cut at max_seq_length (256 tokens)."""
    words = "deploy cache gateway retry billing helm friday lake sunrise test flaky token vector".split()
    texts = list(TEXTS) + list(SENTENCES)
    for i in range(count - len(texts)):
        picked = " ".join(words[(i * 7 + k * 3) % len(words)] for k in range(3 + i % 11))
        if i % 5 == 0:
            texts.append(f"def f{i}(x):\n    return x * {i}  # {picked}")
        elif i % 5 == 1:
            texts.append(f"Ünïcödé {i} 日本語 — {picked} 🙂")
        elif i % 5 == 2:
            texts.append((picked + ". ") * (40 + i % 60))  # several hundred tokens: truncated at 256
        else:
            texts.append(f"{picked.capitalize()} on {i % 28 + 1} March, error {500 + i % 4}?")
    return texts


def test_the_graph_built_without_torch_matches_sentence_transformers(tmp_path: Path, torch_encoder: Encoder) -> None:
    """The fp32 graph written from the safetensors weights (in a process where torch cannot be
    imported) gives sentence-transformers' vectors: cosine >= 0.9999 over 300 varied texts."""
    import subprocess
    import sys

    model = Path(packaged_model_path())
    blocked = "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None; "
    run = "from services.embedding.onnx_cache import main; raise SystemExit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", blocked + run, "--model", str(model), "--root", str(tmp_path), "--precision", "fp32"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    served = OnnxEncoder.load(model, "all-MiniLM-L6-v2", cache=tmp_path, precision="fp32")
    texts = _varied_texts(300)
    assert sum(len(served._tokenizer.encode(t).ids) >= 256 for t in texts) >= 40  # long ones were cut
    ours, theirs = served.encode(texts), torch_encoder.encode(texts)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.9999, (cosines.min(), texts[int(cosines.argmin())][:80])


def test_the_torch_backend_without_torch_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ImportError, match=r"pip install 'mnemex\[torch\]'"):
        load_encoder(backend="torch")


def test_the_first_start_builds_the_graphs_and_says_so_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mnemex up` prepares what the embedding service opens: a start and a done line while the
    cache is empty, nothing at later starts, and nothing for a backend that serves no ONNX; the
    cache then holds the served files alone, 100 MB at most."""
    from services.embedding.first_start import prepare_model, served_graphs

    cache = tmp_path / "cache"
    monkeypatch.setenv("MNEMEX_MODEL_CACHE", str(cache))
    monkeypatch.delenv("MNEMEX_EMBEDDING_PRECISION", raising=False)  # the default's graphs
    lines: list[str] = []
    assert prepare_model(lines.append)
    assert len(lines) == 2, lines
    assert "preparing the embedding model for its first start" in lines[0] and "s;" in lines[0]
    assert lines[1].startswith("embedding model ready in ")
    served = served_graphs(Path(packaged_model_path()), "int8")
    assert served.exists()
    assert sorted(cache.iterdir()) == sorted(served.files())
    assert sum(p.stat().st_size for p in cache.iterdir()) <= 100_000_000
    assert prepare_model(lines.append) and len(lines) == 2  # a later start: silent

    monkeypatch.setenv("MNEMEX_MODEL_CACHE", str(tmp_path / "other"))
    monkeypatch.setenv("MNEMEX_EMBEDDING_BACKEND", "torch")
    assert prepare_model(lines.append) and len(lines) == 2
    assert not (tmp_path / "other").exists()


def test_the_first_start_removes_what_an_older_version_or_another_precision_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older mnemex kept five variants (fp32, int8, int8-rows, their mapped copies with .data files)
    under an older export's digest; switching precision leaves the other one's files. `mnemex up`
    removes them, says how much it freed, and leaves another model's files and a build in progress."""
    from services.embedding.first_start import prepare_model, served_graphs

    model = Path(packaged_model_path())
    cache = tmp_path / "cache"
    monkeypatch.setenv("MNEMEX_MODEL_CACHE", str(cache))
    monkeypatch.setenv("MNEMEX_EMBEDDING_PRECISION", "fp32")
    assert prepare_model(lambda line: None)
    fp32 = served_graphs(model, "fp32")
    fp32_bytes = sum(p.stat().st_size for p in fp32.files())
    old = [f"{model.name}-fcf18bbf45299038{variant}" for variant in (".onnx", "-int8.onnx", "-int8-rows.onnx")] + [
        f"{model.name}-fcf18bbf45299038{v}-mapped.onnx{d}" for v in ("", "-int8", "-int8-rows") for d in ("", ".data")
    ]
    for name in old:
        (cache / name).write_bytes(b"x" * 1_000_000)
    (cache / "other-model-0123456789abcdef.onnx").write_bytes(b"another model's graph")
    (cache / f".{model.name}-build.xyz").mkdir()  # a staging folder: a build in progress

    monkeypatch.delenv("MNEMEX_EMBEDDING_PRECISION")
    lines: list[str] = []
    assert prepare_model(lines.append)
    int8 = served_graphs(model, "int8")
    assert int8.exists() and not any(p.exists() for p in fp32.files())
    assert not any((cache / name).exists() for name in old)
    assert (cache / "other-model-0123456789abcdef.onnx").exists()
    assert (cache / f".{model.name}-build.xyz").is_dir()
    assert "removed 11 cached ONNX file(s)" in lines[-1], lines
    assert f"{(9_000_000 + fp32_bytes) / 1e6:.0f} MB freed from {cache}" in lines[-1], lines
