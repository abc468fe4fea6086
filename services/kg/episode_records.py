"""The parts of an episode book, as plain records: a session's tool error, a failed attempt, a fix,
an open episode, a known problem and the lesson shown for it; and the codec of their vectors
(packed little-endian float32, base64 in JSON). services/kg/episodes.py works on them. Plain module.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


def encode_vector(vector: Vector | None) -> str:
    return "" if vector is None else base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def vector_from_bytes(data: bytes) -> Vector | None:
    """Packed little-endian float32 -> a unit vector (None for no vector or a zero one)."""
    if not data or len(data) % 4:
        return None
    vector = np.frombuffer(data, dtype="<f4").astype(np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 and np.isfinite(norm) else None


def decode_vector(text: str) -> Vector | None:
    return vector_from_bytes(base64.b64decode(text)) if text else None


def vectors_of(encoded: list[Any]) -> list[Vector]:
    return [v for v in (decode_vector(str(x)) for x in encoded) if v is not None]


@dataclass
class ToolError:
    command: str
    line: str
    signature: str
    ts: float
    vector: str = ""  # the error line's embedding, base64 of packed float32 ("" = none)


@dataclass
class Attempt:
    tried: str
    error: str
    signature: str
    count: int = 1
    last: float = 0.0


@dataclass
class Fix:
    text: str
    doc_id: str
    worked: int = 1
    last: float = 0.0


@dataclass
class Episode:
    session_id: str
    project: str
    problem: str
    vector: Vector | None
    started: float
    last: float
    signatures: list[str] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    problem_id: str = ""  # the known problem it joined, once it has
    symptoms: list[Vector] = field(default_factory=list)  # vectors of the error lines seen meanwhile
    terms: list[str] = field(default_factory=list)  # the statement's terms (problem_terms.terms)


@dataclass
class KnownProblem:
    id: str
    project: str
    text: str
    vector: Vector | None
    signatures: list[str]
    fixes: list[Fix] = field(default_factory=list)
    failures: list[Attempt] = field(default_factory=list)
    last: float = 0.0
    # Further ways the problem was told, each confirmed by joining it (MAX_PHRASINGS at most).
    phrasings: list[Vector] = field(default_factory=list)
    # The error lines its episodes' tool calls printed, as vectors (MAX_SYMPTOMS at most): a
    # recurrence is often told by the error the user saw rather than by the first question.
    symptoms: list[Vector] = field(default_factory=list)
    # The terms of its statement and of its confirmed rewordings (problem_terms.terms).
    terms: list[str] = field(default_factory=list)

    def all_vectors(self) -> list[Vector]:
        return ([self.vector] if self.vector is not None else []) + self.phrasings + self.symptoms


@dataclass(frozen=True)
class EpisodeLesson:
    """One line the kg can show: a fix that worked or an attempt that failed, for a matched problem."""

    kind: str  # "solution" or "failure"
    text: str
    project: str
    problem_id: str
    worked: int
    failed: int
    doc_id: str
    similarity: float
    why: str = ""  # what made the prompt this problem: shared identifiers, an error signature, wording
