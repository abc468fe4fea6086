"""Read JSON a test did not write (a client's config file, a command's ``--json`` output) by path, typed.

    settings = read_json_object(home / ".claude" / "settings.json")
    assert json_str(settings, "mcpServers", "mnemex", "command") == "/usr/bin/python3"
    (group,) = json_list(settings, "hooks", "Stop")

Each step of a path is an object key (str) or an array index (int, negative from the end). A step that
is missing, or meets a value of another type, fails the test with an AssertionError naming the path:
unlike ``kernel.json_values``' lenient readers, which read a default, these never let a wrong shape pass.
"""

from __future__ import annotations

from pathlib import Path

from kernel.json_values import JSONArray, JSONObject, JSONValue, parse_value

Step = str | int


def json_at(value: JSONValue, *path: Step) -> JSONValue:
    """The value at ``path`` inside ``value``."""
    for depth, step in enumerate(path):
        where = "/".join(str(s) for s in path[:depth]) or "(top)"
        if isinstance(step, str):
            assert isinstance(value, dict), f"{where} is {type(value).__name__}, expected an object"
            assert step in value, f"{where} has no key {step!r} (keys: {sorted(value)})"
            value = value[step]
        else:
            assert isinstance(value, list), f"{where} is {type(value).__name__}, expected an array"
            assert -len(value) <= step < len(value), f"{where} has {len(value)} items, no index {step}"
            value = value[step]
    return value


def json_object(value: JSONValue, *path: Step) -> JSONObject:
    found = json_at(value, *path)
    assert isinstance(found, dict), f"{'/'.join(map(str, path))} is {type(found).__name__}, expected an object"
    return found


def json_list(value: JSONValue, *path: Step) -> JSONArray:
    found = json_at(value, *path)
    assert isinstance(found, list), f"{'/'.join(map(str, path))} is {type(found).__name__}, expected an array"
    return found


def json_int(value: JSONValue, *path: Step) -> int:
    found = json_at(value, *path)
    assert isinstance(found, int) and not isinstance(found, bool), f"{'/'.join(map(str, path))} is not an integer"
    return found


def json_number(value: JSONValue, *path: Step) -> float:
    """An int or a float (not a bool) at ``path``."""
    found = json_at(value, *path)
    assert isinstance(found, int | float) and not isinstance(found, bool), f"{'/'.join(map(str, path))} is no number"
    return found


def json_str(value: JSONValue, *path: Step) -> str:
    found = json_at(value, *path)
    assert isinstance(found, str), f"{'/'.join(map(str, path))} is {type(found).__name__}, expected a string"
    return found


def json_strs(value: JSONValue, *path: Step) -> list[str]:
    """The array at ``path``, every item a string."""
    found = json_list(value, *path)
    assert all(isinstance(item, str) for item in found), f"{'/'.join(map(str, path))} holds a non-string"
    return [str(item) for item in found]


def json_str_map(value: JSONValue, *path: Step) -> dict[str, str]:
    """The object at ``path``, every value a string (an ``env`` table)."""
    found = json_object(value, *path)
    assert all(isinstance(item, str) for item in found.values()), f"{'/'.join(map(str, path))} holds a non-string"
    return {key: str(item) for key, item in found.items()}


def parse_json_object(text: str) -> JSONObject:
    value = parse_value(text)
    assert isinstance(value, dict), f"expected a JSON object, got {type(value).__name__}"
    return value


def read_json_object(path: Path) -> JSONObject:
    """The JSON object in the file at ``path`` (UTF-8)."""
    return parse_json_object(path.read_text(encoding="utf-8"))
