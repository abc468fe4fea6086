"""Vectors on the wire: row-major little-endian float32 ``bytes``.

That is the contract of every ``bytes`` vector field in ``protos/``: ``EmbedResponse.vectors``
(``count * dimension`` values, ``protos/mnemex/embedding/v1/embedding_service.proto``) and the
kg's problem and prompt embeddings (``protos/mnemex/kg/v1/kg_service.proto``). The embedding
service packs what it encodes; its clients unpack.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def pack(vectors: npt.ArrayLike) -> bytes:
    """Row-major little-endian float32 bytes, the wire format for vectors."""
    return np.ascontiguousarray(vectors, dtype="<f4").tobytes()


def unpack(data: bytes, dimension: int) -> npt.NDArray[np.float32]:
    """The (rows, dimension) float32 matrix ``data`` packs; a read-only view, no copy."""
    if dimension <= 0:
        raise ValueError("dimension must be positive")
    flat = np.frombuffer(data, dtype="<f4")
    if flat.size % dimension:
        raise ValueError(f"{flat.size} floats do not divide into rows of {dimension}")
    return flat.reshape(-1, dimension)
