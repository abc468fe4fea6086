"""A deterministic stand-in for an embedding model, for tests of what a model switch does.

Each word gets a fixed pseudo-random direction (from a hash of the model's name and the word), and
a text's vector is the normalised sum of its words': texts that share words are alike, as with a
real model. Two models with different names share nothing, whether or not their dimensions agree,
as two real models do. It has the ``model_id``, ``dimension`` and ``encode`` of the encoder seam
(``mnemex.upgrade.reembed_kg.Encoder``), and counts the texts it embedded.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"[a-z0-9]+")


class WordEncoder:
    def __init__(self, model_id: str, dimension: int) -> None:
        self.model_id, self.dimension = model_id, dimension
        self.texts = 0  # how many texts it embedded

    def _direction(self, word: str) -> npt.NDArray[np.float32]:
        seed = int.from_bytes(hashlib.blake2b(f"{self.model_id}:{word}".encode(), digest_size=8).digest(), "little")
        return np.random.default_rng(seed).standard_normal(self.dimension).astype(np.float32)

    def vector(self, text: str) -> npt.NDArray[np.float32]:
        total = np.zeros(self.dimension, dtype=np.float32)
        for word in _WORD.findall(text.lower()) or ["<empty>"]:
            total += self._direction(word)
        unit: npt.NDArray[np.float32] = total / np.float32(np.linalg.norm(total))
        return unit

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return np.stack([self.vector(t) for t in texts]) if texts else np.zeros((0, self.dimension), np.float32)

    def packed(self, text: str) -> bytes:
        """The vector as the gateway sends it to the kg: packed little-endian float32."""
        return np.asarray(self.vector(text), dtype="<f4").tobytes()
