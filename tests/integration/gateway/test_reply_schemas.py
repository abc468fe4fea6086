"""What ``/openapi.json`` says a route answers is what it answers: real replies, held to the documented schema.

Every key of a reply must be a documented property (nothing undocumented leaks out), every
required property must be there, and each value must have the documented JSON type.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gateway.reply_models import SearchOut, StoredFactOut
from kernel.json_values import JSONObject, as_object, list_at
from tests.integration.gateway.live_stack import LiveStack

# A JSON schema as /openapi.json holds it: nested JSON, read by key.
Schema = JSONObject

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


def mismatches(value: object, schema: Schema, components: Schema, where: str) -> list[str]:
    """How ``value`` departs from the JSON schema ``schema`` (the subset pydantic writes); [] when it fits."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return mismatches(value, as_object(components[ref.rsplit("/", 1)[-1]]), components, where)
    options = schema.get("anyOf")
    if isinstance(options, list):
        tried = [mismatches(value, as_object(option), components, where) for option in options]
        return [] if any(not t for t in tried) else tried[0]
    kind = schema.get("type")
    if isinstance(kind, str) and kind in JSON_TYPES:
        wrong = isinstance(value, bool) and kind in ("integer", "number")
        if wrong or not isinstance(value, JSON_TYPES[kind]):
            return [f"{where}: {value!r} is not {kind}"]
    if isinstance(value, dict):
        return _object_mismatches(value, schema, components, where)
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        return [m for i, item in enumerate(value) for m in mismatches(item, items, components, f"{where}[{i}]")]
    return []


def _object_mismatches(value: Mapping[str, object], schema: Schema, components: Schema, where: str) -> list[str]:
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    found: list[str] = []
    if isinstance(properties, dict):
        found += [f"{where}.{key}: undocumented" for key in value if key not in properties and not extra]
        found += [f"{where}.{key}: missing" for key in list_at(schema, "required") if key not in value]
        for key, item in value.items():
            if key in properties:
                found += mismatches(item, as_object(properties[key]), components, f"{where}.{key}")
    if isinstance(extra, dict):
        for key, item in value.items():
            if not isinstance(properties, dict) or key not in properties:
                found += mismatches(item, extra, components, f"{where}.{key}")
    return found


def at(document: JSONObject, *keys: str) -> JSONObject:
    """The object under ``keys``, one level each; a KeyError or an AssertionError when it is not there."""
    for key in keys:
        inner = document[key]
        assert isinstance(inner, dict), (key, inner)
        document = inner
    return document


def documented(document: Schema, method: str, path: str) -> Schema:
    return at(document, "paths", path, method, "responses", "200", "content", "application/json", "schema")


def project(tmp_path: Path) -> str:
    path = tmp_path / "schemas"
    (path / ".git").mkdir(parents=True)
    return str(path)


def test_real_replies_match_their_documented_schemas(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path)
    document: JSONObject = live.get("/openapi.json")
    components = at(document, "components", "schemas")
    fact = live.post(
        "/api/memory-bank/add",
        {"content": "The orders service deploys with helm --atomic", "cwd": cwd, "tags": ["ops"]},
    )
    stored = StoredFactOut.model_validate(fact).memory
    search = live.post("/api/search", {"query": "how does orders deploy?", "cwd": cwd})
    replies: dict[tuple[str, str], object] = {
        ("post", "/api/memory-bank/add"): fact,
        ("post", "/api/search"): search,
        ("get", "/api/memories/{memory_id}"): live.get(f"/api/memories/{stored.id}", cwd=cwd),
        ("post", "/api/hooks/get-context"): live.post(
            "/api/hooks/get-context", {"session_id": "schema-1", "prompt": "how do we deploy orders?", "cwd": cwd}
        ),
        ("post", "/api/hooks/session-start"): live.post("/api/hooks/session-start", {"session_id": "s2", "cwd": cwd}),
        ("post", "/api/hooks/stop"): live.post(
            "/api/hooks/stop", {"session_id": "schema-1", "assistant_text": "helm upgrade --atomic", "cwd": cwd}
        ),
        ("post", "/api/record-outcome"): live.post(
            "/api/record-outcome", {"session_id": "schema-1", "outcome": "worked", "cwd": cwd}
        ),
        ("get", "/api/stats"): live.get("/api/stats", cwd=cwd),
        ("get", "/api/kg"): live.get("/api/kg", cwd=cwd),
        ("get", "/api/projects"): live.get("/api/projects", cwd=cwd),
        ("get", "/api/versions"): live.get("/api/versions"),
    }
    assert (
        stored.importance is not None and "duplicates" in SearchOut.model_validate(search).memories[0].model_fields_set
    )
    found = {
        f"{method.upper()} {path}": problems
        for (method, path), reply in replies.items()
        if (problems := mismatches(reply, documented(document, method, path), components, "reply"))
    }
    assert found == {}


def test_the_check_sees_an_undocumented_key_a_missing_one_and_a_wrong_type() -> None:
    components: Schema = {
        "Out": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["id", "n"],
        }
    }
    schema: Schema = {"$ref": "#/components/schemas/Out"}
    assert mismatches({"id": "a", "n": 1}, schema, components, "r") == []
    assert mismatches({"id": "a", "n": "1", "secret": 2}, schema, components, "r") == [
        "r.secret: undocumented",
        "r.n: '1' is not integer",
    ]
    assert mismatches({"id": "a"}, schema, components, "r") == ["r.n: missing"]
