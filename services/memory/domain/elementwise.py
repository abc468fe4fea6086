"""Element-wise ``minimum``/``maximum`` for one number or for numpy columns.

A formula written with these (and arithmetic) serves both the one-candidate
paths, with Python's ``min``/``max`` (no numpy call overhead), and the
vectorised prompt path, with numpy's: ``ranking`` and ``retrieval.hybrid``
each keep their formula once this way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

import numpy as np

from services.memory.domain.arrays import Column

X = TypeVar("X", float, Column)  # one number, or a float64 column


class Ops(NamedTuple, Generic[X]):
    minimum: Callable[[X, float], X]
    maximum: Callable[[X, float], X]


ONE: Ops[float] = Ops(min, max)
COLUMNS: Ops[Column] = Ops(np.minimum, np.maximum)


def clip01(value: X, ops: Ops[X]) -> X:
    clipped: X = ops.minimum(ops.maximum(value, 0.0), 1.0)
    return clipped
