"""JSON for hooks without importing ``json`` (whose decoder pulls in ``re``: ~9 ms).

Uses CPython's ``_json`` accelerator directly; falls back to ``json`` where
that is missing. ``loads`` accepts exactly what ``json.loads`` accepts
(errors are ValueError); ``dumps`` writes ASCII JSON for dict/list/str/
int/float/bool/None.

``JSONValue`` and ``JSONObject`` name what ``loads`` returns, for annotations only: they
exist under ``TYPE_CHECKING`` (``typing`` costs an import), so a hook imports them the same way.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover - other interpreters
    _json = None  # type: ignore[assignment]  # the module or None: mypy types the import as the module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
    JSONObject: TypeAlias = "dict[str, JSONValue]"

_WHITESPACE = " \t\n\r"


class _Context:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, str] = {}  # noqa: RUF012 - the C scanner's cache

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_scan = _json.make_scanner(_Context()) if _json is not None else None  # type: ignore[arg-type]  # _json is untyped; _Context has the attributes it reads


def loads(text: str) -> JSONValue:
    if _scan is None:
        import json

        parsed: JSONValue = json.loads(text)
        return parsed
    start = 0
    while start < len(text) and text[start] in _WHITESPACE:
        start += 1
    try:
        scanned: tuple[JSONValue, int] = _scan(text, start)
    except StopIteration:
        raise ValueError("not JSON") from None
    value, end = scanned
    if text[end:].strip(_WHITESPACE):
        raise ValueError("extra data after JSON value")
    return value


def dumps(value: object) -> str:
    if _json is None:
        import json

        return json.dumps(value)
    parts: list[str] = []
    _encode(value, parts, 0)
    return "".join(parts)


def _encode(value: object, out: list[str], depth: int) -> None:
    if depth > 64:
        raise ValueError("nesting too deep")
    if isinstance(value, str):
        out.append(_json.encode_basestring_ascii(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(float.__repr__(value) if value == value and value not in (float("inf"), float("-inf")) else "null")
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in value.items():
            if not first:
                out.append(", ")
            first = False
            out.append(_json.encode_basestring_ascii(str(key)))
            out.append(": ")
            _encode(item, out, depth + 1)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(", ")
            _encode(item, out, depth + 1)
        out.append("]")
    else:
        out.append(_json.encode_basestring_ascii(str(value)))
