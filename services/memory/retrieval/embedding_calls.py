"""Embeddings: query and memory texts to unit vectors, and vectors sent on the wire.

``Embedder`` is the seam to the embedding service (``kernel.embedding_client``
in production, a deterministic fake in tests). ``Vectors`` clips texts to what
the model reads, checks the shape that comes back and turns every failure into
``EmbeddingUnavailable``; ``vector_from_bytes`` checks a caller's packed
float32 vector.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from services.memory.domain.arrays import Vector
from services.memory.domain.memory_errors import EmbeddingUnavailable, InvalidRequest


class Embedder(Protocol):
    async def embed(self, texts: list[str], timeout: float | None = None) -> Vector:
        """(len(texts), dim) float32 unit vectors."""


def vector_from_bytes(data: bytes, dim: int) -> Vector:
    if len(data) != dim * 4:
        raise InvalidRequest(
            f"vector has {len(data)} bytes; expected {dim * 4} (packed little-endian float32 x {dim}), "
            "or send no vector to have the text embedded server side"
        )
    vector = np.frombuffer(data, dtype="<f4").astype(np.float32)
    if not np.all(np.isfinite(vector)):
        raise InvalidRequest("vector contains NaN or infinity")
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        raise InvalidRequest("vector is all zeros: send a real embedding")
    return vector / norm


class Vectors:
    def __init__(self, embedder: Embedder | None, *, dim: int, max_chars: int, timeout_s: float) -> None:
        self._embedder = embedder
        self.dim = dim
        self._max_chars = max_chars  # the model reads ~256 tokens; longer texts are stored whole
        self._timeout_s = timeout_s

    async def embed(self, texts: list[str]) -> Vector:
        if self._embedder is None:
            raise EmbeddingUnavailable("no embedding service configured: send vectors, or set MNEMEX_EMBEDDING_ADDR")
        clipped = [text[: self._max_chars] for text in texts]
        try:
            vectors = await self._embedder.embed(clipped, timeout=self._timeout_s)
        except Exception as exc:
            raise EmbeddingUnavailable(f"embedding service failed ({type(exc).__name__}: {exc})") from exc
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape != (len(texts), self.dim):
            raise EmbeddingUnavailable(
                f"embedding service returned shape {vectors.shape}; this memory service expects dimension "
                f"{self.dim} (MNEMEX_MEMORY_VECTOR_DIM)"
            )
        return vectors

    async def vector_for(self, text: str, given: bytes = b"") -> Vector:
        """The caller's vector when given, else ``text`` embedded."""
        if given:
            return vector_from_bytes(given, self.dim)
        vectors = await self.embed([text])
        first: Vector = vectors[0]
        return first
