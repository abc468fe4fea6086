"""Values that go on past a line's end (issue 36): shell lines continued with a backslash, and wrapped values.

``mysql -u root \\`` then ``  -pPW shop`` on the next line is one command: the
line recognisers see the flag and its value only when the lines are joined. The
joined block is scanned, and each value found there is redacted where it stands
in the original lines, so the text keeps its layout. Where a value cannot be
placed (it spans the break), the block is given back joined, redacted.

A value wrapped at a terminal's or a mail's width goes on at the start of the
next line: a line that holds only a random-looking run of token characters,
right after a line that ends with a redacted value (or with one and a shell's backslash), is that value's rest.

A value split over variables (``const a = "..."; const b = "..."; const secretAccessKey = a + b``) goes on in
the line that joins them into a secret's name, or in the lines that append to it (``key = "..."`` then
``key += "..."``): the literals of those variables, above it, are redacted (``redact_joined_parts``, called by
``kernel.redaction.multiline_blocks``). Called by ``kernel.privacy``. Plain module.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from kernel.redaction.recogniser import MARKER_PREFIX
from kernel.redaction.values import about_a_secret, looks_random, value_is_code

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


# A secret's name given the join of variables: secretAccessKey = a + b, $key = $a . $b, token = [a, b].join(""),
# apiKey = `${a}${b}`, password = f"{a}{b}", key = "".join([a, b]), key = a.concat(b).
_JOINED = re.compile(
    r"(?m)(?<![\w.$])([\w$.]{0,60}?(?i:password|passwd|pwd|pass|secret|token|api_?key|apikey|access_?key|key|"
    r"credential)[\w$]{0,30})[\"']?[ \t]*(?::=|=|:)[ \t]*"
    r"(\$?[A-Za-z_]\w{0,40}(?:[ \t]*(?:\+|\.\.?|\|\|)[ \t]*\$?[A-Za-z_]\w{0,40}){1,5}|"
    r"\[[ \t]*[A-Za-z_$][\w$]{0,40}(?:[ \t]*,[ \t]*[A-Za-z_$][\w$]{0,40}){1,5}[ \t]*\]\.join\([\"']{2}\)|"
    r"[\"']{2}\.join\([\[(][ \t]*[A-Za-z_]\w{0,40}(?:[ \t]*,[ \t]*[A-Za-z_]\w{0,40}){1,5}[ \t]*[\])]\)|"
    r"`(?:\$\{[A-Za-z_$][\w$]{0,40}\}){2,6}`|f[\"'](?:\{[A-Za-z_]\w{0,40}\}){2,6}[\"']|"
    r"[A-Za-z_$][\w$]{0,40}\.concat\([A-Za-z_$][\w$]{0,40}(?:[ \t]*,[ \t]*[A-Za-z_$][\w$]{0,40}){0,4}\))"
    r"[ \t]*;?[ \t]*$"
)
_JOINED_WORDS = ("+", ".", "join", "${", "{", "concat", "||", "+=", ".=")
_PART_NAME = re.compile(r"\$?[A-Za-z_][\w$]{0,40}")
_NOT_PARTS = frozenset(("join", "concat", "f"))
_STRONG_JOINED = re.compile(r"(?i)pass|pwd|secret|private|credential")


# A literal assigned to a variable, or appended to it, alone on its line: const a = "...";  $a = '...';  a := "...";
# key += "..."; $key .= '...'; or a marker an earlier rule left in the literal's place (PASS=[REDACTED:...])
_ASSIGNED = re.compile(
    r"(?m)(?<![\w$.])(?P<name>\$?[A-Za-z_][\w$]{0,40})[ \t]*(?P<op>\+=|\.=|:=|=)[ \t]*"
    r"(?:(?P<quote>[\"'`])(?P<value>[^\"'`\n]{1,256})(?P=quote)|(?P<marker>\[REDACTED:[^\]\n]{1,80}\]))[ \t]*;?[ \t]*$"
)
_APPEND = ("+=", ".=")
_SECRET_NAME = re.compile(r"(?i)pass|pwd|secret|token|key|credential")


def _piece(assigned: re.Match[str]) -> str:
    return assigned.group("value") or assigned.group("marker")


class _Assignments:
    """Each variable's literal assignments and appends, in the order they stand, and where each ends."""

    def __init__(self, text: str) -> None:
        self._found: dict[str, tuple[list[int], list[re.Match[str]]]] = {}
        for assigned in _ASSIGNED.finditer(text):
            ends, matches = self._found.setdefault(assigned.group("name"), ([], []))
            ends.append(assigned.end())
            matches.append(assigned)

    def last_before(self, name: str, before: int) -> re.Match[str] | None:
        """The last literal assigned to ``name`` before ``before``."""
        ends, matches = self._found.get(name, ([], []))
        at = bisect.bisect_right(ends, before)
        return matches[at - 1] if at else None

    def appended(self) -> list[list[re.Match[str]]]:
        """Each chain of a secret's name given a literal, then more appended (key = "..."; key += "...")."""
        chains: list[list[re.Match[str]]] = []
        for name, (_, matches) in self._found.items():
            if not _SECRET_NAME.search(name) or about_a_secret(name.lstrip("$")):
                continue
            chain: list[re.Match[str]] = []
            for assigned in matches:
                if assigned.group("op") not in _APPEND:
                    chain = [assigned]
                    chains.append(chain)
                elif chain:
                    chain.append(assigned)
        return [chain for chain in chains if len(chain) > 1]


def _split_secret(name: str, pieces: list[str]) -> bool:
    """Pieces that, joined, make a secret for ``name``: random, a password for a password's name, or one of them
    redacted already."""
    whole = "".join(v for v in pieces if not v.startswith(MARKER_PREFIX))
    redacted_piece = any(v.startswith(MARKER_PREFIX) for v in pieces)
    if value_is_code(whole or "x") or "://" in whole or " " in whole:
        return False
    password = _STRONG_JOINED.search(name) is not None and len(whole) >= 8 and not whole.isalpha()
    return redacted_piece or password or looks_random(whole)


_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "credential")


def _joins(text: str, lowered: str) -> list[re.Match[str]]:
    """The joins into a secret's name, looked for only on the lines that hold a secret's word and a joiner."""
    found: list[re.Match[str]] = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = lowered[start:end]
        if any(w in line for w in _SECRET_WORDS) and any(w in line for w in _JOINED_WORDS):
            joined = _JOINED.search(text, start, end)
            if joined is not None:
                found.append(joined)
        start = end + 1
    return found


def redact_joined_parts(text: str, marker: str) -> str:
    """``text`` with the literals of variables joined into a secret's name redacted: ``const a = "..."; const b =
    "..."; const secretAccessKey = a + b`` (a key split over variables to slip past a scan). The joined value must
    look like a secret (random, or any value for a password's or a secret's name), or have a piece redacted already."""
    if "\n" not in text or not any(word in text for word in _JOINED_WORDS):
        return text
    lowered = text.lower()
    if not any(word in lowered for word in _SECRET_WORDS) or len(lowered) != len(text):
        return text
    spans: list[tuple[int, int]] = []
    joins = _joins(text, lowered)
    assignments = _Assignments(text if joins or "+=" in text or ".=" in text else "")
    for joined in joins:
        name = joined.group(1)
        if about_a_secret(name):
            continue
        parts = [p for p in _PART_NAME.findall(joined.group(2)) if p not in _NOT_PARTS]
        found = [m for m in (assignments.last_before(part, joined.start()) for part in parts) if m is not None]
        if len(found) != len(parts) or len(found) < 2:
            continue  # every part a literal above, or it is not a split secret
        if _split_secret(name, [_piece(m) for m in found]):
            spans += [m.span("value") for m in found if m.group("value") and not _piece(m).startswith(MARKER_PREFIX)]
    for chain in assignments.appended():
        if _split_secret(chain[0].group("name"), [_piece(m) for m in chain]):
            spans += [m.span("value") for m in chain if m.group("value") and not _piece(m).startswith(MARKER_PREFIX)]
    for start, end in sorted(set(spans), reverse=True):
        text = text[:start] + marker + text[end:]
    return text
