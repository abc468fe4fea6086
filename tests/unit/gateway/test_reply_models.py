"""Every JSON route declares the model of its reply, so ``/openapi.json`` describes each one.

The exceptions are named here with their reason: the viewer's pages answer HTML (and its live
events are a server-sent stream), and the export is an NDJSON stream of records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.routing import BaseRoute

from gateway.app import create_app
from tests.support.dead_backends import dead_settings

# The web viewer's routes answer HTML pages and fragments (htmx), and /ui/live/events is a
# text/event-stream; none of them is an API and none is in the schema.
HTML_VIEWER_PREFIX = "/ui"
# Streams: one JSON object a line, as long as the stream runs; no single reply to model.
STREAMS = {"/api/export": "application/x-ndjson, every memory and graph of the caller's user"}


def api_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    """The app's routes, the included routers' too."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):  # FastAPI keeps an included router whole
            yield from api_routes(route.original_router.routes)


def has_a_model(route: APIRoute) -> bool:
    """A pydantic model: a bare ``dict`` annotation gives FastAPI a "model" that documents nothing."""
    model = route.response_model
    return isinstance(model, type) and issubclass(model, BaseModel)


def routes_without_a_model(app: FastAPI) -> list[str]:
    return [
        f"{','.join(sorted(route.methods or ()))} {route.path}"
        for route in api_routes(app.routes)
        if not has_a_model(route) and not route.path.startswith(HTML_VIEWER_PREFIX) and route.path not in STREAMS
    ]


def test_every_json_route_declares_its_reply_model(isolated_home: Path) -> None:
    app = create_app(dead_settings(isolated_home))
    assert routes_without_a_model(app) == []
    paths = {route.path for route in api_routes(app.routes)}
    assert set(STREAMS) <= paths, "an exception names a route that is gone"


class Modelled(BaseModel):
    n: int


def test_the_check_fails_on_a_route_without_a_model() -> None:
    app = FastAPI()
    router = APIRouter(prefix="/api")

    @router.get("/plain")
    async def plain() -> dict[str, object]:
        return {}

    @router.get("/modelled", response_model=Modelled)
    async def modelled() -> dict[str, object]:
        return {"n": 1}

    app.include_router(router)
    assert routes_without_a_model(app) == ["GET /api/plain"]


def test_openapi_refers_each_json_reply_to_a_named_schema(isolated_home: Path) -> None:
    document = create_app(dead_settings(isolated_home)).openapi()
    unnamed = []
    for path, operations in document["paths"].items():
        if path in STREAMS:
            continue
        for method, operation in operations.items():
            schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
            if "$ref" not in schema:
                unnamed.append(f"{method.upper()} {path}")
    assert unnamed == []
    assert "MemoryOut" in document["components"]["schemas"]
