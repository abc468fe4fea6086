"""An in-process memory core over an in-memory Chroma, with deterministic hash vectors.

For tests of the search pipeline that do not need the gRPC surface or the real
embedding model: ``make_core(tmp_path)`` is the service's composition root
(``MemoryUseCases``) on an ephemeral Chroma; ``unit`` packs a vector as the wire does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import chromadb
import numpy as np
import numpy.typing as npt
from chromadb.config import Settings as ChromaSettings

from services.memory.composition import MemoryUseCases
from services.memory.retrieval.hybrid import RetrievalSettings
from services.memory.settings import MemorySettings
from services.memory.storage.chroma_store import ChromaStore


def unit(v: npt.NDArray[np.float32]) -> bytes:
    scaled: npt.NDArray[np.float32] = v / np.linalg.norm(v)
    return scaled.astype("<f4").tobytes()


class HashEmbedder:
    """Deterministic vectors from the text's hash: the embedding service is not under test here."""

    async def embed(self, texts: list[str], timeout: float | None = None) -> npt.NDArray[np.float32]:
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(384) for t in texts]
        out = np.asarray(rows, dtype=np.float32)
        normed: npt.NDArray[np.float32] = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed


def make_core(
    tmp_path: Path,
    mode: str = "hybrid",
    retrieval: RetrievalSettings | None = None,
    embedder: HashEmbedder | None = None,
) -> MemoryUseCases:
    client = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
    for existing in client.list_collections():  # the ephemeral client is shared per process
        client.delete_collection(existing if isinstance(existing, str) else existing.name)
    settings = MemorySettings(home=tmp_path, maintenance_interval_s=0, retrieval_mode=mode)
    if retrieval is not None:
        settings = replace(
            settings,
            retrieval_mode=retrieval.mode,
            neighbour_weight=retrieval.neighbour_weight,
            session_weight=retrieval.session_weight,
        )
    return MemoryUseCases(settings, ChromaStore(client), embedder if embedder is not None else HashEmbedder())
