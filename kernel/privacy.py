"""Keep secrets and private text out of storage, logs and names.

``redact(text)`` is applied before anything is written: by the memory
service on every write path (store, exchanges, books and their file names,
titles, tags, session ids, updates, imports), by the kg service on every
journal op (``redact_json``), by every log line
(``kernel.logs``), and by ``kernel.projects`` on the names project
ids are made of. Text between ``<private>`` and ``</private>`` is dropped
before anything else sees it. The recognisers live in the package ``kernel.redaction``, one module per family,
and are listed, in order, by ``recognisers_in_order``: self-naming tokens (``self_naming_tokens``,
``provider_formats``), commands (``command_lines``), detect-secrets' rules (``detect_secrets_rules``), context
rules (``context_rules`` compiles them: code, directory binds, headers, places, prose, tools, a secret a
command prints, a secret told to a person in chat, notes or lists: ``told_to_people``), authentication flows'
secrets (``auth_flows``: one-time links, a key's passphrase, OAuth's values), keyed values
(``keyed_values``) and, last, a random token standing alone whatever its context (``random_tokens``); what
counts as a reference to a secret rather than one is in ``values``. Then ``multiline_blocks`` takes what spans
lines (``.pgpass`` lines, Kubernetes Secret data, key bodies without a BEGIN line, a file named for a secret
shown whole (``secret_files``), and the credential columns of tables from ``tables``); backslash-continued
shell lines are read joined as well, and the rest of a value wrapped onto the next line is redacted with it
(``continued_lines``).
What a provider's docs or an RFC print for readers to copy is kept, whichever rule finds it
(``kernel.redaction.documented_examples``).
Plain module.
"""

from __future__ import annotations

import re

from kernel.redaction.continued_lines import redact_continued, redact_wrapped
from kernel.redaction.documented_examples import DOCUMENTED_EXAMPLES
from kernel.redaction.multiline_blocks import redact_blocks
from kernel.redaction.recogniser import MARKER_PREFIX, Recogniser
from kernel.redaction.recognisers_in_order import recognisers

PLACEHOLDER = MARKER_PREFIX + "{kind}]"

_PRIVATE_BLOCK = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
# Invisible characters pasted inside a token ("ghp_ab\u200bcd...") to slip past the recognisers.
# Only removed between two ASCII token characters, so scripts that need them (a ZWNJ in Persian,
# a ZWJ in an emoji sequence) keep them.
_TOKEN_CHAR = r"[A-Za-z0-9_\-./+=:@%]"
# The same characters written as escapes ("\\u200b"), as a repr() or a JSON string shows them, count too.
_INVISIBLE = r"[\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff]"
_INVISIBLE_ESCAPE = r"\\(?:u00ad|u034f|u180e|u200[b-f]|u206[0-4]|ufeff|xad)"
_INVISIBLE_IN_TOKEN = re.compile(rf"(?<={_TOKEN_CHAR})(?:{_INVISIBLE}|{_INVISIBLE_ESCAPE}){{1,16}}(?={_TOKEN_CHAR})")
_BARE_VALUE_GROUP = 7  # the unquoted value of a keyed pattern: trailing punctuation is given back
_TRAILING = ".,;:)]}!?"
_SEPARATORS = " \t\r\n=:\"'"
_RECOGNISERS = recognisers()


def _inside_a_marker(text: str, at: int) -> bool:
    """True when ``at`` lies inside a marker already written ("[REDACTED:detect-secrets:TwilioKeyDetector]" is
    not a key named ``detect-secrets`` with a value)."""
    opened = text.rfind(MARKER_PREFIX, max(0, at - 64), at)
    return opened != -1 and "]" not in text[opened:at]


def _replacement(recogniser: Recogniser, match: re.Match[str]) -> str:
    if _inside_a_marker(match.string, match.start()):
        return match.group(0)
    if recogniser.keep is not None and recogniser.keep(match):
        if len(recogniser.groups) < 2:
            return match.group(0)
        # a keyed value that is not a secret ("name: password = hunter2") may still hold one: scan it again
        cut = match.end(2) - match.start()
        whole = match.group(0)
        return whole[:cut] + recogniser.pattern.sub(lambda m: _replacement(recogniser, m), whole[cut:])
    group = next((g for g in recogniser.groups if match.group(g) is not None), 0)
    start, end = match.span(group)
    if start != match.start() and _inside_a_marker(match.string, start):
        return match.group(0)  # "scheme://[REDACTED:url-token]@host" holds no password after its ':'
    if recogniser.trim:
        text = match.string
        while start < end and text[start] in _SEPARATORS:
            start += 1
        while end > start and text[end - 1] in _SEPARATORS:
            end -= 1
    if match.string.startswith(MARKER_PREFIX, start, end) or match.string.startswith(MARKER_PREFIX, start + 1, end):
        return match.group(0)  # already a marker (bare, or quoted): redacting it again would rename its kind
    if match.string[start:end].strip("\"'") in DOCUMENTED_EXAMPLES:
        return match.group(0)  # printed by a provider's docs or an RFC for readers to copy: public, whichever rule
    if group == _BARE_VALUE_GROUP and len(recogniser.groups) > 1:
        value = match.group(group)
        kept = len(value) - len(value.rstrip(_TRAILING))
        if kept < len(value):
            end -= kept
    whole, offset = match.group(0), match.start()
    return whole[: start - offset] + PLACEHOLDER.format(kind=recogniser.kind) + whole[end - offset :]


def strip_private(text: str) -> str:
    return _PRIVATE_BLOCK.sub("", text)


def redact(text: str) -> str:
    """Drop <private> blocks, then replace every recognised secret with ``[REDACTED:<kind>]``."""
    if not text:
        return text
    out = _recognise(_INVISIBLE_IN_TOKEN.sub("", strip_private(text)))
    out = redact_wrapped(redact_continued(out, _recognise))
    return redact_blocks(out, lambda kind: PLACEHOLDER.format(kind=kind))


def _recognise(out: str) -> str:
    """``out`` with what every line recogniser finds replaced."""
    lowered = out.lower()  # the gates read the text as it came in (a marker's words open no gate)
    holds = lowered.__contains__  # (any(map(...)) over a bound method: about twice as fast as a generator)
    current, current_lowered = out, lowered  # the text as it now is, lower-cased once per change
    for recogniser in _RECOGNISERS:
        if recogniser.text_words and not any(map(holds, recogniser.text_words)):
            continue
        if recogniser.line_words and not any(map(holds, recogniser.line_words)):
            continue  # no line holds one of its words
        if recogniser.gate is not None and recogniser.gate.search(out) is None:
            continue
        if recogniser.line_words:
            if current is not out:
                current, current_lowered = out, out.lower()
            out = _redact_lines(recogniser, out, current_lowered)
        else:
            out = recogniser.pattern.sub(lambda m, r=recogniser: _replacement(r, m), out)  # type: ignore[misc]
    return out


def _redact_lines(recogniser: Recogniser, text: str, lowered: str) -> str:
    """``recogniser`` (whose pattern never spans lines) applied to the lines that hold one of its words
    (``lowered``: ``text`` lower-cased)."""
    if len(lowered) != len(text):  # a character whose lower case is longer: positions differ, go line by line
        lines = text.split("\n")
        for number, line in enumerate(lines):
            if any(word in line.lower() for word in recogniser.line_words):
                lines[number] = recogniser.pattern.sub(lambda m: _replacement(recogniser, m), line)
        return "\n".join(lines)
    starts: set[int] = set()
    for word in recogniser.line_words:
        at = lowered.find(word)
        while at != -1:
            starts.add(lowered.rfind("\n", 0, at) + 1)
            at = lowered.find("\n", at)
            at = -1 if at == -1 else lowered.find(word, at)
    if not starts:
        return text
    parts: list[str] = []
    done = 0
    changed = False
    for start in sorted(starts):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        parts.append(text[done:start])
        line = text[start:end]
        redacted = recogniser.pattern.sub(lambda m: _replacement(recogniser, m), line)
        changed = changed or redacted is not line
        parts.append(redacted)
        done = end
    if not changed:
        return text  # the same object: the caller keeps its lower-cased copy
    parts.append(text[done:])
    return "".join(parts)


def contains_secret(text: str) -> bool:
    """True when ``redact`` would change ``text`` beyond joining a token split by invisible characters."""
    if _PRIVATE_BLOCK.search(text) is not None:
        return True
    return redact(text) != _INVISIBLE_IN_TOKEN.sub("", text)


def redact_json(value: object) -> object:
    """``value`` with every string in it (keys included) redacted; other values as they are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(v) for v in value]
    return value
