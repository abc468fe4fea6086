"""The JSON a reply becomes at the edge (``JsonObject``, what each ``to_json`` returns), and the JSON
objects a backend carries in proto string fields (``json_object``)."""

from __future__ import annotations

import json

# What leaves through ``to_json``; JSON's own values, nested, so ``object`` (a stored memory's
# metadata is whatever JSON object the client stored).
JsonObject = dict[str, object]


def json_object(text: str) -> JsonObject:
    """A JSON object carried in a proto string field; anything else (empty, malformed, a list) is {}."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}
