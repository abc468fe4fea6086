"""The parts of an episode book, as plain records: a session's tool error, a failed attempt, a fix,
an open episode, a known problem and the lesson shown for it, and the record of two known problems
merged; the codec of their vectors (packed little-endian float32, base64 in JSON) and of a known
problem. services/kg/episodes.py and problem_merges.py work on them. Plain module.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from kernel.json_values import JSONObject, JSONValue
from services.kg.json_fields import arr, obj, text, to_float, to_int
from services.kg.problem_terms import terms as terms_of

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


def comparable(vectors: Iterable[Vector], vector: Vector) -> list[Vector]:
    """The ``vectors`` that can be compared with ``vector``: of its dimension. A vector of another
    dimension was made by another embedding model (``mnemex reembed`` brings the kg's to the new one),
    and a cosine between two models' vectors means nothing."""
    return [v for v in vectors if v.shape == vector.shape]


def vectors_of(encoded: Iterable[object]) -> list[Vector]:
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
    episodes: int = 1  # how many episodes were filed under it

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


def _fields(value: JSONValue, kind: str, names: frozenset[str]) -> JSONObject:
    """The JSON object of a ``kind``, refused (``TypeError``, as ``kind(**value)`` was) with a field it lacks."""
    fields = obj(value)
    unknown = fields.keys() - names
    if unknown:
        raise TypeError(f"{kind} got unexpected fields {sorted(unknown)}")
    return fields


def _whole(value: JSONValue) -> int:
    """An integer field as stored; ``TypeError`` for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TypeError(f"expected an integer, got {type(value).__name__}")


def _number(value: JSONValue) -> float:
    """A number field as stored (an int stays an int); ``TypeError`` for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    raise TypeError(f"expected a number, got {type(value).__name__}")


_ATTEMPT_FIELDS = frozenset({"tried", "error", "signature", "count", "last"})
_TOOL_ERROR_FIELDS = frozenset({"command", "line", "signature", "ts", "vector"})


def attempt_of(value: JSONValue) -> Attempt:
    """An ``Attempt`` from its ``attempt_json``."""
    a = _fields(value, "Attempt", _ATTEMPT_FIELDS)
    return Attempt(
        text(a["tried"]), text(a["error"]), text(a["signature"]), _whole(a.get("count", 1)), _number(a.get("last", 0.0))
    )


def tool_error_of(value: JSONValue) -> ToolError:
    """A ``ToolError`` from its stored JSON (``EpisodeBook.to_json``)."""
    e = _fields(value, "ToolError", _TOOL_ERROR_FIELDS)
    return ToolError(
        text(e["command"]), text(e["line"]), text(e["signature"]), _number(e["ts"]), text(e.get("vector", ""))
    )


def attempt_json(a: Attempt) -> JSONObject:
    return {"tried": a.tried, "error": a.error, "signature": a.signature, "count": a.count, "last": a.last}


def fix_json(f: Fix) -> JSONObject:
    return {"text": f.text, "doc_id": f.doc_id, "worked": f.worked, "last": f.last}


def fix_of(value: JSONValue) -> Fix:
    f = obj(value)
    return Fix(str(f["text"]), str(f.get("doc_id", "")), to_int(f["worked"]), to_float(f["last"]))


def problem_json(p: KnownProblem) -> JSONObject:
    return {
        "id": p.id,
        "project": p.project,
        "text": p.text,
        "vector": encode_vector(p.vector),
        "signatures": list(p.signatures),
        "fixes": [fix_json(f) for f in p.fixes],
        "failures": [attempt_json(a) for a in p.failures],
        "last": p.last,
        "phrasings": [encode_vector(v) for v in p.phrasings],
        "symptoms": [encode_vector(v) for v in p.symptoms],
        "terms": list(p.terms),
        "episodes": p.episodes,
    }


def problem_of(value: JSONValue) -> KnownProblem:
    p = obj(value)
    return KnownProblem(
        str(p["id"]),
        str(p["project"]),
        str(p["text"]),
        decode_vector(str(p.get("vector", ""))),
        [str(s) for s in arr(p.get("signatures", []))],
        [fix_of(f) for f in arr(p.get("fixes", []))],
        [attempt_of(a) for a in arr(p.get("failures", []))],
        to_float(p.get("last", 0.0)),
        vectors_of(arr(p.get("phrasings", []))),
        vectors_of(arr(p.get("symptoms", []))),
        # a book written before terms were kept: its statement's (the text it kept)
        [str(t) for t in arr(p["terms"])] if "terms" in p else terms_of(str(p["text"])),
        to_int(p.get("episodes", 1)),  # a book written before episodes were counted: at least the one that opened it
    )


@dataclass
class ProblemMerge:
    """Known problem ``merged`` folded into ``keep`` (both of ``project``): the merged problem as it was,
    and exactly what it added to ``keep``, so that undoing it takes back that and nothing else."""

    id: str
    project: str
    keep: str
    merged: str
    at: float
    original: JSONObject  # the merged problem as it was (problem_json)
    took_vector: bool = False  # ``keep`` had no statement vector and took the merged one's
    phrasings: list[str] = field(default_factory=list)  # encoded vectors added to keep's phrasings
    symptoms: list[str] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)  # each counted into keep's fix of that text
    failures: list[Attempt] = field(default_factory=list)  # each counted into keep's attempt (tried, signature)
    sessions: list[str] = field(default_factory=list)  # open episodes moved from merged to keep
    last_before: float = 0.0  # keep's ``last`` before, and after the merge
    last_after: float = 0.0
    undone_at: float = 0.0  # when it was undone (0: it holds)

    @property
    def statement(self) -> str:
        return str(self.original.get("text", ""))

    def to_json(self) -> JSONObject:
        return {
            "id": self.id,
            "project": self.project,
            "keep": self.keep,
            "merged": self.merged,
            "at": self.at,
            "original": self.original,
            "took_vector": self.took_vector,
            "phrasings": list(self.phrasings),
            "symptoms": list(self.symptoms),
            "signatures": list(self.signatures),
            "terms": list(self.terms),
            "fixes": [fix_json(f) for f in self.fixes],
            "failures": [attempt_json(a) for a in self.failures],
            "sessions": list(self.sessions),
            "last_before": self.last_before,
            "last_after": self.last_after,
            "undone_at": self.undone_at,
        }

    @classmethod
    def from_json(cls, value: JSONValue) -> ProblemMerge:
        m = obj(value)
        return cls(
            str(m["id"]),
            str(m["project"]),
            str(m["keep"]),
            str(m["merged"]),
            to_float(m["at"]),
            dict(obj(m["original"])),
            bool(m.get("took_vector", False)),
            [str(v) for v in arr(m.get("phrasings", []))],
            [str(v) for v in arr(m.get("symptoms", []))],
            [str(s) for s in arr(m.get("signatures", []))],
            [str(t) for t in arr(m.get("terms", []))],
            [fix_of(f) for f in arr(m.get("fixes", []))],
            [attempt_of(a) for a in arr(m.get("failures", []))],
            [str(s) for s in arr(m.get("sessions", []))],
            to_float(m.get("last_before", 0.0)),
            to_float(m.get("last_after", 0.0)),
            to_float(m.get("undone_at", 0.0)),
        )
