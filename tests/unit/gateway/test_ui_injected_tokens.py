"""What a session turn's injection cost, as the viewer estimates it from the memories injected."""

from __future__ import annotations

from typing import Any

from gateway import formatting
from gateway.ui.data import DEFAULT_CONTEXT_LIMIT, injected_tokens


def _memory(id: str, content: str) -> dict[str, Any]:
    return {"id": id, "collection": "memory_bank", "content": content, "metadata": {}, "score": 0.5, "tags": []}


def test_a_turns_tokens_are_those_of_the_block_get_context_formats() -> None:
    memories = [_memory("memory_bank_1", "Deploy with Helm on the blue cluster"), _memory("memory_bank_2", "x" * 900)]
    block = formatting.known_context(
        memories,
        budget=formatting.block_chars(DEFAULT_CONTEXT_LIMIT),
        content_limit=formatting.INJECTED_MEMORY_CHARS,
    )
    assert block and injected_tokens(memories) == formatting.token_cost(block)
    assert injected_tokens(memories) < formatting.token_cost("x" * 900)  # each line is cut as injected
    assert injected_tokens([]) == 0
