"""Hand freed heap pages back to the operating system after a big one-off allocation.

    release_free_heap()   # after loading a model

glibc keeps memory that a burst freed (a model file parsed and dropped, in the
loading thread's own arena) for reuse, so it stays resident for the life of the
process. ``malloc_trim(0)`` returns whole free pages in every arena. Measured on
the embedding service after its ONNX model load (issue 19): about 9 MB. A no-op
where the C library has no ``malloc_trim`` (musl, macOS).
"""

from __future__ import annotations

import ctypes


def release_free_heap() -> bool:
    """True when the C library released memory to the system."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return bool(trim(0))
