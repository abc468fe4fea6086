"""TRANSITIONAL (issue 15): services/memory still imports the embedding client from here.

The client is ``kernel.embedding_client.EmbeddingClient`` (peers never import
another service's package). Delete this module when services/memory and its
tests import it from the kernel (tests/unit/test_architecture.py lists it in
``TRANSITIONAL_MODULES``).
"""

from kernel.embedding_client import EmbeddingClient

__all__ = ["EmbeddingClient"]
