"""One-line rendering of normalized memories, shared by the CLI and the MCP tools.

    1. [patterns] (2d, s:0.72, w:0.68, 8 uses, [YY~N]) [id:patterns_ab12] content
    2. [memory_bank] (5d, imp:0.9, conf:0.8) [id:memory_bank_cd34] content
    3. [books] (12d, book:Style Guide) [id:books_ef56] content
    4. [history] (40d, s:0.5, w:0.5, 0 uses, seen 5 times) [id:history_0a1b] content

Outcome-scored collections (working, history, patterns) show the raw score,
the Wilson lower bound, the use count and the last outcomes; memory_bank
shows importance and confidence, its ranking signals; books show their title.
A search result that stands for several copies of one text (``duplicates``)
says how often it was seen.
Input is a memory's normalized JSON (``gateway.replies.memory_replies.Memory.to_json``). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import SupportsFloat, SupportsIndex, SupportsInt

SCORED_COLLECTIONS = ("working", "history", "patterns")
_SPACE = re.compile(r"\s+")


def number(value: object, places: int = 2) -> str:
    """0.72 -> "0.72", 0.9 -> "0.9", 1 -> "1.0"; non-numbers -> "?"."""
    if not isinstance(value, str | bytes | bytearray | SupportsFloat | SupportsIndex):
        return "?"
    try:
        text = f"{float(value):.{places}f}".rstrip("0")
    except (TypeError, ValueError):
        return "?"
    return text + "0" if text.endswith(".") else text


def _count(value: object) -> int:
    """``int(value or 0)``: a count field; a value ``int`` cannot read raises as ``int`` does."""
    if not value:
        return 0
    if isinstance(value, str | bytes | SupportsInt | SupportsIndex):
        return int(value)
    raise TypeError(f"int() cannot read a {type(value).__name__}")


def one_line(text: str, max_chars: int | None = None) -> str:
    flat = _SPACE.sub(" ", text or "").strip()
    if max_chars is not None and len(flat) > max_chars:
        return flat[: max(0, max_chars - 1)].rstrip() + "…"
    return flat


def signals(memory: Mapping[str, object]) -> list[str]:
    """The parenthesised facts for one memory, without the parentheses; a search result with
    copies collapsed into it ends with "seen N times"."""
    parts = _collection_signals(memory)
    copies = _count(memory.get("duplicates"))
    if copies > 0:
        parts.append(f"seen {copies + 1} times")
    return parts


def _collection_signals(memory: Mapping[str, object]) -> list[str]:
    collection = memory.get("collection", "")
    parts = [str(memory["age"])] if memory.get("age") else []
    if collection == "memory_bank":
        if memory.get("importance") is not None:
            parts.append(f"imp:{number(memory['importance'])}")
        if memory.get("confidence") is not None:
            parts.append(f"conf:{number(memory['confidence'])}")
        return parts
    if collection == "books":
        metadata = memory.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise TypeError(f"metadata is a {type(metadata).__name__}, not a mapping")
        title = metadata.get("title")
        if title:
            parts.append(f"book:{one_line(str(title), 60)}")
        return parts
    parts.append(f"s:{number(memory.get('score', 0.5))}")
    parts.append(f"w:{number(memory.get('wilson_score', 0.5))}")
    uses = _count(memory.get("uses"))
    parts.append(f"{uses} use" if uses == 1 else f"{uses} uses")
    history = memory.get("outcome_history")
    if history:
        parts.append(str(history))
    return parts


def memory_line(memory: Mapping[str, object], position: int, max_content_chars: int | None = None) -> str:
    """``N. [collection] (signals) [id:...] content`` on one line."""
    facts = signals(memory)
    head = f"{position}. [{memory.get('collection', '?')}]"
    if facts:
        head += f" ({', '.join(facts)})"
    content = one_line(str(memory.get("content", "")), max_content_chars)
    return f"{head} [id:{memory.get('id', '?')}] {content}".rstrip()


def memory_lines(
    memories: Iterable[Mapping[str, object]], start: int = 1, max_content_chars: int | None = None
) -> list[str]:
    return [memory_line(m, i, max_content_chars) for i, m in enumerate(memories, start)]
