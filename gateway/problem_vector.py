"""The vector the kg judges a problem statement by: the whole prompt's, and its head line's.

A report's first line is usually its statement ("memory usage high, keeps going up"); what follows
is detail that two people tell differently (versions, steps, pasted output, an environment line).
MiniLM reads the first 256 tokens of the whole text, so a long report's vector leans on that
detail. The kg gets the normalised sum of the two vectors: on real duplicate bug reports
(bench/bench_duplicate_reports.py, the calibration half, at the judge's margin) it recalled 0.61 of
recurrences against 0.57 with the whole text alone, with near-miss lessons down from 0.11 to 0.08
and no two problems filed as one. A prompt of one line (or one short sentence) is its own head,
and costs no second embedding.

Used where the gateway hands the kg a statement: the scored turns (teaching.py) and the prompt
whose lessons are asked for (prompt_context.py). Memory search keeps the whole prompt's vector.
"""

from __future__ import annotations

import logging
import re

import numpy as np
import numpy.typing as npt

from gateway.backends import BackendError, EmbeddingBackend

log = logging.getLogger("mnemex.gateway.problem_vector")

EMBED_CHARS = 2_000  # MiniLM reads ~256 tokens; more text only costs time
HEAD_CHARS = 200  # a first line longer than this is not a statement
MIN_REST_CHARS = 80  # the rest of a prompt shorter than this adds nothing to tell apart
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def head(prompt: str) -> str:
    """The statement line of a prompt, or '' when the prompt is its own statement."""
    text = prompt.strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    if len(lines) == 1:
        parts = _SENTENCE_END.split(first, maxsplit=1)
        first = parts[0] if len(parts) == 2 else ""
    if not first or len(first) > HEAD_CHARS or len(text) - len(first) < MIN_REST_CHARS:
        return ""
    return first


def combined(whole: npt.NDArray[np.float32], statement: npt.NDArray[np.float32] | None) -> npt.NDArray[np.float32]:
    """The unit vector halfway between the whole prompt's and its head's (the whole one alone without a head)."""
    if statement is None:
        return whole
    total = np.asarray(whole, dtype=np.float32) + np.asarray(statement, dtype=np.float32)
    norm = float(np.linalg.norm(total))
    return total / norm if norm > 0 else whole


async def statement_vector(
    embedding: EmbeddingBackend, prompt: str, timeout: float, whole: npt.NDArray[np.float32] | None = None
) -> npt.NDArray[np.float32] | None:
    """The kg's vector of ``prompt`` (``whole``: its vector, when already embedded); None when the
    embedding service cannot answer and no whole vector is at hand."""
    statement = head(prompt)
    texts = ([] if whole is not None else [prompt[:EMBED_CHARS]]) + ([statement] if statement else [])
    if not texts:
        return whole
    try:
        rows = await embedding.embed(texts, timeout)
    except BackendError as exc:
        log.info("statement vector from the whole prompt only: %s", exc.code)
        return whole
    base = whole if whole is not None else np.asarray(rows[0], dtype=np.float32)
    return combined(base, np.asarray(rows[-1], dtype=np.float32) if statement else None)
