"""The numpy array types memory passes around, each named once.

``Vector`` is float32 as the embedding service packs it (``kernel.vectors``): one
embedding, or a matrix of them, one per row. Columns of per-candidate numbers that
ranking computes are float64.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]  # an embedding, or rows of embeddings
Column = npt.NDArray[np.float64]  # one number per candidate
Mask = npt.NDArray[np.bool_]  # one flag per row
Positions = npt.NDArray[np.intp]  # row indexes (slots), as argsort and flatnonzero return them
Labels = npt.NDArray[np.int64]  # the ANN index's stable row ids
