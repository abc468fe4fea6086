"""Strict reads of the kg's own JSON: journal ops, snapshots and imported exports.

``kernel.json_values`` reads a mistyped field as its default; the kg instead refuses it,
as indexing the untyped value did: a field of the wrong type raises ``TypeError`` (a
number that does not parse, ``ValueError``), so ``KgStore.import_json`` refuses a
malformed import in its dry run instead of half-reading it. Plain module.
"""

from __future__ import annotations

from kernel.json_values import JSONArray, JSONObject, JSONValue


def obj(value: JSONValue) -> JSONObject:
    """``value`` as a JSON object; ``TypeError`` when it is not one."""
    if isinstance(value, dict):
        return value
    raise TypeError(f"expected a JSON object, got {type(value).__name__}")


def arr(value: JSONValue) -> JSONArray:
    """``value`` as a JSON array; ``TypeError`` when it is not one."""
    if isinstance(value, list):
        return value
    raise TypeError(f"expected a JSON array, got {type(value).__name__}")


def text(value: JSONValue) -> str:
    """``value`` as a string; ``TypeError`` when it is not one."""
    if isinstance(value, str):
        return value
    raise TypeError(f"expected a string, got {type(value).__name__}")


def to_int(value: JSONValue) -> int:
    """``int(value)``: a number (truncated), a bool or a numeric string; ``TypeError`` for the rest."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"int() of {type(value).__name__}")


def to_float(value: JSONValue) -> float:
    """``float(value)``: a number, a bool or a numeric string; ``TypeError`` for the rest."""
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"float() of {type(value).__name__}")
