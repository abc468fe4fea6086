"""Loads the sentence-transformers model offline and encodes batches.

Plain module: no gRPC. ``Encoder`` is the seam the service and the
in-process benchmark share.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np
import numpy.typing as npt

from kernel import offline
from services.embedding.packaged_model import check_packaged_weights, model_directory

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger("mnemex.embedding")


class Encoder(Protocol):
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    precision: str  # "fp32", or "int8" for the quantized ONNX graph

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Return a (len(texts), dimension) float32 array of unit vectors."""


_SENTENCE_TRANSFORMERS_BACKENDS: dict[str, Literal["torch", "onnx", "openvino"]] = {
    "torch": "torch",
    "onnx": "onnx",
    "openvino": "openvino",
}


TORCH_EXTRA_HINT = "pip install 'mnemex[torch]'"


@dataclass
class SentenceTransformerEncoder:
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    _model: SentenceTransformer  # imported lazily (torch loads only where this backend runs)
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

        model_dir = model_directory(model_path)
        check_packaged_weights(model_dir)
        path = str(model_dir)
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

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
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

        path = model_directory(model_path)
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
        check_packaged_weights(path)  # a damaged model file: say so, rather than fall back and fail on torch
        if backend == "onnx":
            raise failure
        log.warning("ONNX unavailable (%s); serving with sentence-transformers on torch", failure)
        backend = "torch"
    return SentenceTransformerEncoder.load(model_path, device, backend)
