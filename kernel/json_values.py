"""JSON as a type, and lenient typed reads of it. Plain module, standard library only.

``json.loads`` returns ``Any``, and a value typed ``Any`` switches strict mypy off for
everything read from it. Code that reads JSON it did not write (a hook's stdin, a
client's settings file, an imported transcript, a reply in a test) types it as
``JSONValue`` instead and reads fields through the helpers here, which check the
type they hand back:

    event = parse_object(stdin_text)            # JSONObject, or ValueError
    prompt = str_at(event, "prompt")            # "" when missing or not a string
    for part in objects_at(event, "content"):   # each dict element of a list field
        ...

A field of the wrong type reads as the default, as a missing one does: these are
readers of input that may be malformed, where skipping a bad field beats failing
the whole read. Code that must reject a malformed field checks ``value_at`` itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TypeAlias, TypeGuard

JSONScalar = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]  # recursive; mypy resolves it
JSONObject = dict[str, JSONValue]
JSONArray = list[JSONValue]


def parse_value(text: str | bytes) -> JSONValue:
    """``json.loads`` typed; raises ``ValueError`` (``json.JSONDecodeError``) on text that is not JSON."""
    value: JSONValue = json.loads(text)
    return value


def parse_object(text: str | bytes) -> JSONObject:
    """The JSON object ``text`` holds; ``ValueError`` when it is not JSON or not an object."""
    value = parse_value(text)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


def as_object(value: object) -> JSONObject:
    """``value`` when it is a JSON object (a dict with string keys), else an empty one."""
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return value
    return {}


def as_list(value: object) -> JSONArray:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def value_at(obj: Mapping[str, object], key: str) -> JSONValue:
    """The raw value under ``key`` (``None`` when missing), for callers that check its type themselves."""
    value = obj.get(key)
    return value if _is_json(value) else None


def object_at(obj: Mapping[str, object], key: str) -> JSONObject:
    return as_object(obj.get(key))


def list_at(obj: Mapping[str, object], key: str) -> JSONArray:
    return as_list(obj.get(key))


def objects_at(obj: Mapping[str, object], key: str) -> Iterator[JSONObject]:
    """Each element of the array under ``key`` that is an object; other elements are skipped."""
    for item in list_at(obj, key):
        if isinstance(item, dict):
            yield item


def str_at(obj: Mapping[str, object], key: str, default: str = "") -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else default


def int_at(obj: Mapping[str, object], key: str, default: int = 0) -> int:
    """An integer field; a bool is not one, and a float counts only when it is whole."""
    value = obj.get(key)
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return default


def float_at(obj: Mapping[str, object], key: str, default: float = 0.0) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return float(value)


def bool_at(obj: Mapping[str, object], key: str, default: bool = False) -> bool:
    value = obj.get(key)
    return value if isinstance(value, bool) else default


def strs_at(obj: Mapping[str, object], key: str) -> list[str]:
    """The string elements of the array under ``key``."""
    return [item for item in list_at(obj, key) if isinstance(item, str)]


def _is_json(value: object) -> TypeGuard[JSONValue]:
    return value is None or isinstance(value, str | int | float | bool | list | dict)
