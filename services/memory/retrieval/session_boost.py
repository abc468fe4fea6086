"""Session context: a candidate gains relevance from the candidates around it in its session.

Plain module (numpy). A memory written during a conversation is half of
something: the answer to a question asked one turn before, the decision an
incident two turns earlier led to. So once every candidate of a search has its
own relevance (``hybrid.hybrid_relevance``), two signals from its session
raise it:

    neighbour = the higher relevance of the memories written just before and just after
                it in its session (``storage.session_neighbours``), counted only when that
                neighbour is itself a candidate of this search (0 otherwise)
    peers     = the mean of the ``k`` highest relevances among the *other* candidates of
                its session (missing ones count 0; k = 3)
    relevance = 1 - (1 - relevance) * (1 - a * neighbour) * (1 - b * peers)
                (a = neighbour_weight 0.5, b = session_weight 0.4)

The combination is a noisy-OR: it stays in [0, 1], it never lowers a
relevance, and a memory with no session (a memory_bank fact, a book chunk) or
no relevant company keeps exactly the relevance it had. Only candidates take
part, so the cost is a pass over the candidate list, not over the collection.

Measured on LoCoMo (bench/locomo, categories 1-4, turn recall@10): 0.745 without,
0.776 with, and the same shape held in leave-one-conversation-out fits of the
weights; ``MNEMEX_RETRIEVAL_NEIGHBOUR_WEIGHT=0`` and ``..._SESSION_WEIGHT=0``
turn each signal off. Dense mode (the baseline) uses neither.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

PEERS = 3  # how many of a session's other candidates the peer signal averages

Around = tuple[str | None, str | None]  # (written just before, written just after) in the session
Value = TypeVar("Value", float, npt.NDArray[np.float64])


def context_factors(
    ids: Sequence[str],
    relevance: npt.NDArray[np.float64],
    sessions: Sequence[str | None],
    around: Sequence[Around],
    *,
    neighbour_weight: float,
    session_weight: float,
) -> npt.NDArray[np.float64]:
    """Per candidate, the factor ``f`` with boosted relevance ``1 - (1 - relevance) * f``.

    ``ids``, ``relevance``, ``sessions`` and ``around`` describe the same candidates,
    in the same order; a factor of 1.0 leaves a relevance unchanged.
    """
    n = len(ids)
    factors = np.ones(n, dtype=np.float64)
    if n == 0 or (neighbour_weight <= 0 and session_weight <= 0):
        return factors
    values = np.asarray(relevance, dtype=np.float64).tolist()
    if neighbour_weight > 0:
        position = {memory_id: i for i, memory_id in enumerate(ids)}
        for i, (before, after) in enumerate(around):
            near = max(
                values[position[before]] if before in position else 0.0,
                values[position[after]] if after in position else 0.0,
            )
            if near > 0:
                factors[i] *= 1.0 - neighbour_weight * near
    if session_weight > 0:
        members: dict[str, list[int]] = defaultdict(list)
        for i, session in enumerate(sessions):
            if session:
                members[session].append(i)
        for group in members.values():
            if len(group) < 2:
                continue
            best = sorted(group, key=lambda i: -values[i])[: PEERS + 1]
            for i in group:
                others = [values[j] for j in best if j != i][:PEERS]
                factors[i] *= 1.0 - session_weight * sum(others) / PEERS
    return factors


def boost(relevance: Value, factor: Value) -> Value:
    """Relevance after session context (``context_factors``): of one candidate, or of columns of them."""
    boosted: Value = 1.0 - (1.0 - relevance) * factor
    return boosted
