"""Element-wise ``minimum``/``maximum`` for one number or for numpy columns.

A formula written with these (and arithmetic) serves both the one-candidate
paths, with Python's ``min``/``max`` (no numpy call overhead), and the
vectorised prompt path, with numpy's: ``ranking`` and ``retrieval.hybrid``
each keep their formula once this way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import numpy as np

X = TypeVar("X", float, np.ndarray)  # one number, or a float64 column


class Ops(NamedTuple):
    minimum: Callable[[Any, Any], Any]
    maximum: Callable[[Any, Any], Any]


ONE = Ops(min, max)
COLUMNS = Ops(np.minimum, np.maximum)


def clip01(value: X, ops: Ops) -> X:
    clipped: X = ops.minimum(ops.maximum(value, 0.0), 1.0)
    return clipped
