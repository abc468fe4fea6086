"""Hostile JSON on every POST endpoint of the gateway: a 422 naming the field, or accepted; never a 500.

The routes and their fields come from the app's own OpenAPI schema, so a new
endpoint is covered the day it is added. Each field in turn carries:

- a lone surrogate (``"\\ud800"``): not UTF-8, so it can be neither stored nor
  echoed; it is replaced by U+FFFD and the request goes on;
- a number JSON cannot carry (``NaN``, ``Infinity``, ``-Infinity``,
  ``1e400``): REST routes answer 422 naming the field, hook routes read it as
  null (a hook's other data is kept);
- a 25-digit integer: valid JSON, too big for every int field the services
  take; a 422 or a value clamped by validation, never a crash;
- arrays nested 10,000 deep and objects nested 900 deep: a 422 that says the
  value nests too deep, short (never the input echoed back), on every route.

The backends point at a closed port, so a request that passes validation ends
as a 503 (backend unavailable): that is an answer, and it proves the input got
through the door. Raw-body routes (ingest, import, export) get the same values
as a whole JSON document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.reply_models import ImportOut
from kernel.config import Settings
from kernel.json_values import JSONObject, as_object, object_at, parse_object, str_at

CLOSED = "127.0.0.1:9"
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e400")
SURROGATE = '"\\ud800 tail"'
HUGE_INT = "1234567890123456789012345"
HOOK_PREFIX = "/api/hooks/"
DEEP_ARRAYS = "[" * 10_000 + "]" * 10_000
DEEP_OBJECTS = '{"a": ' * 900 + "1" + "}" * 900
TOO_DEEP = "nested deeper than 64 arrays or objects"


def _settings(tmp_path: Path) -> Settings:
    return Settings.from_env(
        {
            "MNEMEX_HOME": str(tmp_path),
            "MNEMEX_USER": "tester",
            "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
            "MNEMEX_EMBEDDING_ADDR": CLOSED,
            "MNEMEX_MEMORY_ADDR": CLOSED,
            "MNEMEX_KG_ADDR": CLOSED,
        }
    )


def _resolve(spec: JSONObject, schema: JSONObject) -> JSONObject:
    while "$ref" in schema:
        name = str_at(schema, "$ref").rsplit("/", 1)[-1]
        schema = object_at(object_at(object_at(spec, "components"), "schemas"), name)
    return schema


def _post_routes(spec: JSONObject) -> Iterator[tuple[str, list[str]]]:
    """(path, JSON body field names; [] for a raw-body route) for every POST route."""
    for path, operations in sorted(object_at(spec, "paths").items()):
        post = as_object(operations).get("post")
        if post is None or path.startswith("/mcp"):
            continue
        content = object_at(object_at(as_object(post), "requestBody"), "content")
        schema = object_at(content, "application/json").get("schema")
        fields = sorted(object_at(_resolve(spec, as_object(schema)), "properties")) if schema else []
        yield path, fields


SPEC = as_object(create_app(Settings.from_env({"MNEMEX_HOME": ".", "MNEMEX_USER": "tester"})).openapi())
ROUTES = list(_post_routes(SPEC))
FIELD_CASES = [(path, field) for path, fields in ROUTES for field in fields]
RAW_ROUTES = [path for path, fields in ROUTES if not fields]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(_settings(tmp_path_factory.mktemp("hostile-json")))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as test_client:
        yield test_client


def _post(client: TestClient, path: str, body: str) -> httpx2.Response:
    reply = client.post(path, content=body.encode("utf-8"), headers={"Content-Type": "application/json"})
    assert reply.status_code < 500 or reply.status_code == 503, (path, body, reply.status_code, reply.text)
    reply.content.decode("utf-8")  # every reply is real UTF-8 (an echoed lone surrogate would not be)
    return reply


def _error(reply: httpx2.Response) -> str:
    """The reply's ``error`` message."""
    return str_at(parse_object(reply.content), "error")


def _body(fields: list[str], field: str, literal: str) -> str:
    """A JSON object with every field of the route set to a plain value, and ``field`` to ``literal``."""
    parts = [f'"{name}": {literal if name == field else json.dumps("x")}' for name in fields]
    return "{" + ", ".join(parts) + "}"


def test_the_schema_lists_the_routes_this_test_must_cover() -> None:
    paths = {path for path, _ in ROUTES}
    assert {"/api/hooks/get-context", "/api/hooks/stop", "/api/memory-bank/add", "/api/search"} <= paths
    assert "/api/ingest" in RAW_ROUTES and len(FIELD_CASES) >= 30


@pytest.mark.parametrize(("path", "field"), FIELD_CASES, ids=[f"{p}:{f}" for p, f in FIELD_CASES])
def test_a_number_json_cannot_carry_is_named_or_read_as_null(client: TestClient, path: str, field: str) -> None:
    for literal in NON_FINITE:
        reply = _post(client, path, _body([f for p, fs in ROUTES if p == path for f in fs], field, literal))
        if path.startswith(HOOK_PREFIX):
            continue  # read as null: any non-500 answer is right (a field that cannot be null is a 422)
        assert reply.status_code == 422, (path, field, literal, reply.text)
        assert f"{field}: {literal} is not a finite number" in _error(reply), reply.text


@pytest.mark.parametrize(("path", "field"), FIELD_CASES, ids=[f"{p}:{f}" for p, f in FIELD_CASES])
def test_a_lone_surrogate_or_a_huge_integer_never_breaks_a_route(client: TestClient, path: str, field: str) -> None:
    fields = [f for p, fs in ROUTES if p == path for f in fs]
    for literal in (SURROGATE, f"[{SURROGATE}]", f"{{{SURROGATE}: 1}}", HUGE_INT, f"-{HUGE_INT}"):
        reply = _post(client, path, _body(fields, field, literal))
        if reply.status_code == 422:
            assert "\ud800" not in reply.text and "\\ud800" not in reply.text  # never echoed back raw


@pytest.mark.parametrize("path", RAW_ROUTES)
def test_raw_body_routes_survive_the_same_values(client: TestClient, path: str) -> None:
    for literal in (*NON_FINITE, SURROGATE, HUGE_INT, f'{{"title": {SURROGATE}, "n": NaN}}', "[1e400]"):
        _post(client, path, literal)


def test_a_rest_422_names_the_field_and_says_what_to_send(client: TestClient) -> None:
    reply = _post(client, "/api/search", '{"query": "deploys", "limit": NaN}')
    assert reply.status_code == 422
    assert _error(reply) == "limit: NaN is not a finite number"


def test_a_surrogate_in_a_hook_prompt_is_replaced_and_the_hook_answers(client: TestClient) -> None:
    reply = _post(client, "/api/hooks/get-context", '{"session_id": "s", "prompt": "fix \\ud800 the build"}')
    assert reply.status_code == 200, reply.text  # no backend: an empty context, never an error for the hook
    assert "context" in parse_object(reply.content)


@pytest.mark.parametrize(("path", "field"), FIELD_CASES, ids=[f"{p}:{f}" for p, f in FIELD_CASES])
def test_json_nested_too_deep_in_any_field_is_a_short_422(client: TestClient, path: str, field: str) -> None:
    fields = [f for p, fs in ROUTES if p == path for f in fs]
    for literal in (DEEP_ARRAYS, DEEP_OBJECTS):
        reply = _post(client, path, _body(fields, field, literal))
        assert reply.status_code == 422, (path, field, reply.status_code, reply.text[:300])
        assert TOO_DEEP in _error(reply)
        assert len(reply.content) < 1000


@pytest.mark.parametrize("path", [path for path, _ in ROUTES if path != "/api/export"])  # export reads no body
def test_a_whole_body_nested_too_deep_is_refused_on_every_route(client: TestClient, path: str) -> None:
    for body in (DEEP_ARRAYS, DEEP_OBJECTS, '{"exchanges": ' + DEEP_ARRAYS + "}"):
        reply = _post(client, path, body)
        assert len(reply.content) < 2000
        if path == "/api/import":  # a JSONL line that nests too deep is counted as invalid, and named
            tally = ImportOut.model_validate_json(reply.content)
            assert reply.status_code == 200 and tally.invalid == 1, reply.text[:300]
            assert TOO_DEEP in tally.errors[0]
        else:
            assert reply.status_code == 422 and TOO_DEEP in _error(reply), (path, reply.text[:300])


def test_deep_json_on_mcp_is_answered_not_a_500(client: TestClient) -> None:
    call = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_memory", "arguments": %s}}'
    for deep in (DEEP_ARRAYS, DEEP_OBJECTS):
        reply = client.post(
            "/mcp",
            content=(call % deep).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        assert reply.status_code < 500, reply.text[:300]
        assert len(reply.content) < 2000


def test_a_422_never_echoes_a_large_body_back(client: TestClient) -> None:
    body = '{"exchanges": [' + ", ".join(["{}"] * 300_000) + "]}"
    reply = _post(client, "/api/backfill", body)
    assert reply.status_code == 422
    assert len(reply.content) < 5_000, len(reply.content)
    assert "(an array of 300,000 items)" in reply.text
