"""Values that go on past a line's end (issue 36): shell lines continued with a backslash, and wrapped values.

``mysql -u root \\`` then ``  -pPW shop`` on the next line is one command: the
line recognisers see the flag and its value only when the lines are joined. The
joined block is scanned, and each value found there is redacted where it stands
in the original lines, so the text keeps its layout. Where a value cannot be
placed (it spans the break), the block is given back joined, redacted.

A value wrapped at a terminal's or a mail's width goes on at the start of the
next line: a line that holds only a random-looking run of token characters,
right after a line that ends with a redacted value (or with one and a shell's backslash), is that value's rest.
Called by ``kernel.privacy``. Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kernel.secret_recogniser import MARKER_PREFIX
from kernel.secret_values import looks_random

_CONTINUED = re.compile(r"(?m)^[^\n]{0,4000}\\\r?\n(?:[^\n]{0,4000}\\\r?\n){0,100}[^\n]{0,4000}")
_BREAK = re.compile(r"[ \t]*\\\r?\n[ \t]*")
_MARKER = re.compile(r"(\[REDACTED:[^\]\n]{1,80}\])")


def _found(joined: str, cleaned: str) -> list[tuple[str, str]] | None:
    """The (value, marker) pairs that turned ``joined`` into ``cleaned``; None when they cannot be told apart."""
    parts = _MARKER.split(cleaned)
    pairs: list[tuple[str, str]] = []
    at = 0
    for number in range(0, len(parts) - 1, 2):
        before, marker, after = parts[number], parts[number + 1], parts[number + 2]
        if not joined.startswith(before, at):
            return None
        at += len(before)
        if after:
            end = joined.find(after, at)
        elif number + 2 == len(parts) - 1:
            end = len(joined)
        else:
            return None  # two markers side by side: where the first value ends is unknown
        if end <= at:
            return None
        pairs.append((joined[at:end], marker))
        at = end
    return pairs if joined.startswith(parts[-1], at) else None


def redact_continued(text: str, recognise: Callable[[str], str]) -> str:
    """``text`` with the values ``recognise`` finds in its backslash-continued lines, read joined, redacted."""
    if "\\\n" not in text and "\\\r\n" not in text:
        return text

    def block(match: re.Match[str]) -> str:
        original = match.group(0)
        joined = _BREAK.sub(" ", original)
        cleaned = recognise(joined)
        if cleaned == joined:
            return original
        pairs = _found(joined, cleaned)
        if pairs is None:
            return cleaned
        for value, marker in pairs:
            if value == marker or value.startswith(MARKER_PREFIX):
                continue
            if len(value) < 4 or value not in original:
                return cleaned  # the value spans the break, or is too short to be placed safely
            original = original.replace(value, marker)
        return original

    return _CONTINUED.sub(block, text)


# a shell's backslash may end the first line: "TOKEN=ghp_abc\\" then "def..." is one value cut in two
_WRAPPED = re.compile(r"(\[REDACTED:[^\]\n]{1,80}\])(\\?\r?\n)([A-Za-z0-9+/=_.~-]{8,512})(?=\r?\n|$)")


def redact_wrapped(text: str) -> str:
    """``text`` with the rest of each wrapped value (a random-looking line after a redacted line end) redacted."""
    if MARKER_PREFIX not in text:
        return text

    def rest(match: re.Match[str]) -> str:
        if not looks_random(match.group(3)):
            return match.group(0)
        return match.group(1) + match.group(2) + match.group(1)

    return _WRAPPED.sub(rest, text)
