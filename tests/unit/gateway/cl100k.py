"""Offline cl100k_base token counts for tests and benchmarks.

tiktoken downloads its encoding file on first use (no network here), so we
use ``bpe-openai``, which bundles cl100k_base; ``test_cl100k_matches_tiktoken``
pins it to token ids tiktoken's own docs publish.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol


class Encoding(Protocol):
    """What the tests use of ``bpe_openai``'s ``Encoding`` (the package ships no type information)."""

    def encode(self, text: str) -> list[int]: ...


@lru_cache(maxsize=1)
def encoding() -> Encoding:
    import bpe_openai

    cl100k: Encoding = bpe_openai.get_encoding("cl100k_base")
    return cl100k


def count(text: str) -> int:
    return len(encoding().encode(text))
