"""Domain errors of the memory service, mapped once to gRPC codes by ``ERRORS`` in ``transport/memory_servicer.py``.

Messages say what is wrong and how to fix it; they reach the caller verbatim.
"""

from __future__ import annotations


class MemoryServiceError(Exception):
    """Base class; never raised directly."""


class InvalidRequest(MemoryServiceError):
    """Bad input (-> INVALID_ARGUMENT)."""


class MemoryNotFound(MemoryServiceError):
    """An id (or book title) that does not exist in the scope (-> NOT_FOUND)."""


class LimitReached(MemoryServiceError):
    """A configured cap stops the write (-> FAILED_PRECONDITION)."""


class EmbeddingUnavailable(MemoryServiceError):
    """The embedding service could not be reached (-> UNAVAILABLE)."""
