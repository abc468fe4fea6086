"""What every recogniser behind ``kernel.privacy.redact`` is: a pattern, the group that holds the secret,
a check that keeps a match which is no secret after all, and the cheap gates that skip it on texts that
cannot hold a match (issue 36).

Also the boundary checks shared by the rule modules: where a self-naming token may start
(``inside_a_word``), a pattern's leading ``\\b`` taken out so the regex engine can jump to its literal
(``without_leading_boundary``), and the literal every match of a pattern holds (``literal_gate``).
Plain module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Recogniser:
    """``groups``: the secret is the first of these groups that took part (0: the whole match);
    ``keep``: True for a match that is not a secret after all."""

    kind: str
    pattern: re.Pattern[str]
    groups: tuple[int, ...] = (0,)
    keep: Callable[[re.Match[str]], bool] | None = None
    # For a pattern that never spans lines: it runs only on the lines whose lower-cased text holds one of
    # these words (a substring test is far cheaper than a case-insensitive scan of every position).
    line_words: tuple[str, ...] = ()
    # The whole match is the secret, less the separators a borrowed rule matches around it (' AKC...', '=AP...').
    trim: bool = False
    # A cheaper gate for a pattern that is fast on any text: it runs (on the whole text) only when the lower-cased
    # text holds one of these words.
    text_words: tuple[str, ...] = ()
    # The same as a regex, for a literal whose case matters (a case-sensitive literal is found fast).
    gate: re.Pattern[str] | None = None


MARKER_PREFIX = "[REDACTED:"

# Where a self-naming token may start: not inside a word, but right after an escaped line break or tab
# too ("...\\nAKIA..." as a repr() or JSON string shows a pasted multi-line text). Checked on each match
# instead of with a leading look-behind, which would stop the regex engine from jumping to the literal
# ("sk-ant-", "AKIA") and make every pattern try every position (about 50 times slower).
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def inside_a_word(match: re.Match[str], also: str = "") -> bool:
    """True when the match starts right after a word character (or one of ``also``), not after an escape.

    After '_' a token is not inside a word: ``sess_sk-...`` is a session id made of a key."""
    at, text = match.start(), match.string
    if at == 0 or (text[at - 1] not in _WORD_CHARS and text[at - 1] not in also) or text[at - 1] == "_":
        return False
    return not (at >= 2 and text[at - 2] == "\\" and text[at - 1] in "nrt")


def without_leading_boundary(pattern: str) -> tuple[str, bool]:
    """``pattern`` with its leading ``\\b`` (and each ``|\\b``) removed, and whether it had one.

    Only where a literal follows (``\\bsk-ant-``, ``\\b(?:AKIA|ASIA)``): before a class (``\\b\\w``,
    ``\\b[a-z]``) the boundary is what keeps the engine from trying every position, so it stays."""
    flags = "(?i)" if pattern.startswith("(?i)") else ""
    body = pattern[len(flags) :]
    if not re.match(r"\\b(?:\(\?:)?[A-Za-z0-9-]", body):
        return pattern, False
    return flags + body[2:].replace(r"|\b", "|"), True


_LITERAL = re.compile(r"(?:[A-Za-z0-9_~/-]|\\[.\-/~])+")
_ALTERNATIVES = re.compile(r"\(\?:((?:[A-Za-z0-9_]|\\[.\-])+(?:\|(?:[A-Za-z0-9_]|\\[.\-])+)*)\)")


def literal_gate(pattern: str) -> tuple[str, ...]:
    """The lower-cased literals one of which every match of ``pattern`` holds (its literal prefix, or the
    alternatives of a leading ``(?:a|b)``), when it has one of 3 characters or more; otherwise ()."""
    body = pattern.removeprefix("(?i)").removeprefix("\\b")
    depth = 0
    for at, char in enumerate(body):
        if char == "\\" or (at and body[at - 1] == "\\"):
            continue
        depth += char == "("
        depth -= char == ")"
        if char == "|" and depth == 0:
            return ()
    alternatives = _ALTERNATIVES.match(body)
    if alternatives:
        words = [w.replace("\\", "").lower() for w in alternatives.group(1).split("|")]
        return tuple(words) if all(len(w) >= 2 for w in words) else ()
    literal = _LITERAL.match(body)
    word = literal.group(0).replace("\\", "").lower() if literal else ""
    return (word,) if len(word) >= 3 else ()
