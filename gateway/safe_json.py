"""Decode request JSON that hostile input cannot turn into a 500. Plain module.

Python's ``json`` accepts text the gateway cannot carry on: a lone surrogate
(``"\\ud800"``) cannot be encoded as UTF-8 (not into a reply, not into
protobuf), and ``NaN``, ``Infinity`` and overflowing floats (``1e400``) are
not JSON at all, so no reply that echoes them can be written. ``decode_json``
settles both at the door:

- every lone surrogate (and every byte that is not UTF-8) becomes U+FFFD,
  in keys and values, and the rest of the text is kept;
- a number JSON cannot carry (``NaN``, ``Infinity``, ``-Infinity``, a float
  that overflows, an integer over Python's digit limit) raises
  ``UnrepresentableNumber`` naming where it is, or, with ``non_finite="null"``,
  becomes ``None`` (what JavaScript's ``JSON.stringify`` writes for them).

Nesting deeper than ``MAX_DEPTH`` arrays and objects raises ``TooDeep``:
no request the gateway serves nests that far, and deeper values would hit
Python's recursion limit somewhere later (in the parser itself, in
validation, or in the 422 reply that echoes them), which is a 500.

``json_safe`` makes any value encodable, for replies that echo input back.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Literal, TypeVar

from kernel.json_values import JSONValue

NonFinite = Literal["reject", "null"]
Path = tuple[str | int, ...]

_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_DEPTH = 64  # arrays and objects inside one another; real requests nest a handful deep
T = TypeVar("T")


class TooDeep(ValueError):
    """JSON nested deeper than ``MAX_DEPTH``."""

    def __init__(self) -> None:
        super().__init__(f"JSON nested deeper than {MAX_DEPTH} arrays or objects; send a flatter value")


class UnrepresentableNumber(ValueError):
    """A number JSON cannot carry; ``path`` says where it is (keys and list indexes)."""

    def __init__(self, path: Path, literal: str) -> None:
        where = ".".join(str(p) for p in path) or "body"
        super().__init__(f"{where}: {literal} is not a number JSON can carry; send a finite number")
        self.path = path
        self.literal = literal


class _Unrepresentable:
    """Placeholder the parser leaves where such a number was."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal


def _parse_float(text: str) -> float | _Unrepresentable:
    value = float(text)
    return value if math.isfinite(value) else _Unrepresentable(text)


def _parse_int(text: str) -> int | _Unrepresentable:
    limit = sys.get_int_max_str_digits()
    if limit and len(text.lstrip("-")) > limit:
        return _Unrepresentable(f"an integer of {len(text.lstrip('-')):,} digits")
    return int(text)


def replace_surrogates(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def decode_json(raw: bytes | str, *, non_finite: NonFinite = "reject") -> JSONValue:
    """Parse ``raw`` as described in the module doc; malformed JSON raises ``json.JSONDecodeError``."""
    text = raw if isinstance(raw, str) else raw.decode(json.detect_encoding(raw), "replace")
    found = False

    def mark(value: T) -> T:
        nonlocal found
        found = found or isinstance(value, _Unrepresentable)
        return value

    try:
        # JSON, except where ``found``: there ``_Unrepresentable`` placeholders, which ``_clean`` settles.
        value: JSONValue = json.loads(
            text,
            parse_constant=lambda token: mark(_Unrepresentable(token)),
            parse_float=lambda token: mark(_parse_float(token)),
            parse_int=lambda token: mark(_parse_int(token)),
        )
    except RecursionError:  # the parser's own guard, hundreds of levels down: raised before any deep value exists
        raise TooDeep() from None
    # Fewer brackets than the limit cannot nest past it: most bodies skip the walk.
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_exceeds(value, MAX_DEPTH):
        raise TooDeep()
    # In decoded text only a \u escape can spell a surrogate: without one, strings need no look.
    if not found and "\\u" not in text and not _SURROGATE.search(text):
        return value
    return _clean(value, (), non_finite)


def nesting_exceeds(value: object, limit: int) -> bool:
    """Whether ``value`` holds arrays or objects more than ``limit`` deep; iterative, so any depth is safe."""
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[dict[str, object] | list[object], int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _clean(value: object, path: Path, non_finite: NonFinite) -> JSONValue:
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, _Unrepresentable):
        if non_finite == "null":
            return None
        raise UnrepresentableNumber(path, value.literal)
    if isinstance(value, dict):
        out: dict[str, JSONValue] = {}
        for key, item in value.items():
            clean_key = replace_surrogates(key)
            out[clean_key] = _clean(item, (*path, clean_key), non_finite)
        return out
    if isinstance(value, list):
        return [_clean(item, (*path, index), non_finite) for index, item in enumerate(value)]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise TypeError(f"not a value json.loads makes: {type(value).__name__}")  # unreachable: the parser's own


def json_safe(value: object) -> object:
    """``value`` with lone surrogates replaced, bytes decoded and non-finite floats as strings, so any JSON
    encoder takes it."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {json_safe(k) if isinstance(k, str) else k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def echo_of(value: object, limit: int = 200) -> object:
    """What a 422 reply may echo of an input: the value when its JSON is at most ``limit`` characters, else a
    short description (a reply never repeats a large or deep body back)."""
    try:
        text = json.dumps(json_safe(value), ensure_ascii=False)
    except (RecursionError, TypeError, ValueError):
        text = None
    if text is not None and len(text) <= limit:
        return json_safe(value)
    if isinstance(value, str):
        return f"{replace_surrogates(value[:limit])}... ({len(value):,} characters)"
    if isinstance(value, dict):
        return f"(an object of {len(value):,} keys)"
    if isinstance(value, (list, tuple)):
        return f"(an array of {len(value):,} items)"
    return f"(a {type(value).__name__} value)"
