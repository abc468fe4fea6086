"""JSON with comments and trailing commas (JSONC, as OpenCode reads ``opencode.json``).

:func:`strip_jsonc` turns JSONC into plain JSON text for ``json.loads``: it
drops ``//`` and ``/* */`` comments and commas before ``}`` or ``]``, never
touching anything inside a string. It also says whether there were comments,
because a file that has them cannot be rewritten without losing them.
"""

from __future__ import annotations

import re

# A string literal (escapes included, unterminated to the end), or a comma with only white space before a closer.
_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"?|,(?=\s*[}\]])', re.DOTALL)


def strip_jsonc(text: str) -> tuple[str, bool]:
    """(plain JSON text, whether ``text`` had comments). Line breaks are kept, so error positions still match."""
    out: list[str] = []
    comments = False
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            comments = True
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            comments = True
            end = text.find("*/", i + 2)
            body = text[i : n if end < 0 else end + 2]
            out.append("\n" * body.count("\n") or " ")
            i = n if end < 0 else end + 2
        else:
            out.append(char)
            i += 1
    return _drop_trailing_commas("".join(out)), comments


def _string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at ``start`` (the end of text when unterminated)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _drop_trailing_commas(text: str) -> str:
    """Each comma that only a ``}`` or ``]`` follows becomes a space (columns kept); string literals are skipped."""
    return _STRING_OR_TRAILING_COMMA.sub(lambda found: " " if found.group(0) == "," else found.group(0), text)
