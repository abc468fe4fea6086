"""Error messages that quote what the caller sent, kept short.

A gRPC status message travels in a trailer, and a trailer over the peer's
metadata limit (16 KB by default) reaches the client as RESOURCE_EXHAUSTED
instead of the real error. Messages often quote the offending value
(``no book titled 'x...'``), and that value may be megabytes long. So:

- ``quoted(value)`` is the ``repr`` of at most the first ``QUOTE_CHARS``
  characters, followed by the full length when it was cut;
- ``bounded(message)`` shortens every quoted literal longer than
  ``QUOTE_CHARS`` the same way, then caps the whole message at
  ``MESSAGE_CHARS``. The gRPC call policy applies it to every domain error,
  so a message built without ``quoted`` is still safe to send.

Pure module (no grpc import).
"""

from __future__ import annotations

import re

QUOTE_CHARS = 80
MESSAGE_CHARS = 1_000

# A quoted literal ('...' or "...", as repr writes them) longer than QUOTE_CHARS; one
# character class per quote kind keeps the scan of a multi-MB message fast.
_LONG = QUOTE_CHARS + 1
_LONG_LITERAL = re.compile(f"'[^'\\n]{{{_LONG},}}'|\"[^\"\\n]{{{_LONG},}}\"")


def _length_note(total: int) -> str:
    return f"... ({total:,} characters)"


def quoted(value: str, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` when short; else the repr of its first ``limit`` characters and its length."""
    if len(value) <= limit:
        return repr(value)
    return repr(value[:limit]) + _length_note(len(value))


def _shorten(match: re.Match[str]) -> str:
    literal = match.group(0)
    quote, body = literal[0], literal[1:-1]
    return quote + body[:QUOTE_CHARS] + quote + _length_note(len(body))


def bounded(message: str) -> str:
    """``message`` with long quoted literals cut (see module doc), at most ``MESSAGE_CHARS`` long."""
    if len(message) <= QUOTE_CHARS:
        return message
    shortened = _LONG_LITERAL.sub(_shorten, message)
    if len(shortened) <= MESSAGE_CHARS:
        return shortened
    return shortened[:MESSAGE_CHARS] + f"... (message cut from {len(shortened):,} characters)"
