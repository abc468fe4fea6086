"""The gateway's FastAPI application: hook endpoints, the memory REST API, MCP.

``create_app(settings, rpc=None)`` builds the ``gateway.gateway_composition.Gateway``
(``app.state.gateway``). When no ``Rpc`` is given, the app makes its own, whose
channels open on first use (on the server's own event loop), and the lifespan
closes them on shutdown. The gateway holds no state.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from gateway import input_validation, ui
from gateway.gateway_composition import Gateway
from gateway.gateway_errors import GatewayError
from gateway.mcp import http as mcp_http
from gateway.middleware import BearerAuth, BodyLimit, HomeHeader
from gateway.prompt_context import Deadlines
from gateway.routes import (
    admin_routes,
    backfill_routes,
    book_routes,
    graph_routes,
    hook_routes,
    memory_routes,
    portability_routes,
    problem_routes,
    system_routes,
)
from gateway.rpc import Rpc
from gateway.safe_json import echo_of, json_safe
from gateway.web_guard import HostRule, WebGuard
from gateway.work_slots import WorkSlots
from kernel import __version__
from kernel.config import Settings, home_id, split_host_port
from kernel.json_values import as_list, as_object, list_at, str_at

log = logging.getLogger("mnemex.gateway")

DEFAULT_BODY_LIMIT = 2 * 1024 * 1024
# JSON ingest carries base64 (4/3 of the file); multipart carries the raw file.
INGEST_BODY_LIMIT = input_validation.MAX_BOOK_BYTES * 4 // 3 + 64 * 1024
# mnemex backfill sends batches of at most 1.5 MB (mnemex/backfill/plan.py; one exchange alone when it is larger):
# twice the default covers a batch whose non-ASCII text the client escaped, and any one real exchange. A larger
# body is refused by its size before it is read, let alone parsed (60 MB of {} once took 1.6 GB to parse).
BACKFILL_BODY_LIMIT = 4 * 1024 * 1024


def _validation_message(errors: object) -> str:
    """'where: msg; ...' of the first five of FastAPI's validation errors (a list of objects, made encodable)."""
    parts = []
    for error in as_list(errors)[:5]:
        found = as_object(error)
        where = ".".join(str(p) for p in list_at(found, "loc") if p != "body")
        parts.append(f"{where or 'body'}: {str_at(found, 'msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def create_app(settings: Settings, rpc: Rpc | None = None, *, deadlines: Deadlines | None = None) -> FastAPI:
    """The gateway app; ``deadlines`` bounds get-context (default: 1.5 s overall)."""
    owned = rpc is None
    gateway = Gateway.build(settings, rpc or Rpc(settings), deadlines)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if owned:
                await gateway.rpc.close()  # closed: the next use (a next lifespan) opens them again

    app = FastAPI(
        title="mnemex gateway",
        version=__version__,
        description='Hook endpoints and memory API for mnemex. Errors are {"error": message}.',
        lifespan=lifespan,
    )
    app.state.gateway = gateway
    app.state.settings = settings

    # Both handlers may echo what the client sent: json_safe keeps a reply that cannot
    # be encoded (a lone surrogate, NaN) from turning a 4xx into a 500.
    @app.exception_handler(GatewayError)
    async def gateway_error(request: Request, exc: GatewayError) -> JSONResponse:
        return JSONResponse({"error": json_safe(exc.message)}, status_code=exc.http_status)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        # Starlette re-raises it to the server, which logs its frames (kernel.logs: no request data).
        return JSONResponse({"error": "internal error in the gateway; the log has the traceback"}, status_code=500)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # Before: bytes and floats jsonable_encoder cannot take; after: what str() of an object gave.
        # The input of each error is echoed only when it is short: a reply never repeats a large body.
        found = [{**error, "input": echo_of(error.get("input"))} for error in exc.errors()[:20]]
        errors = json_safe(jsonable_encoder(json_safe(found)))
        return JSONResponse({"error": _validation_message(errors), "detail": errors}, status_code=422)

    for module in (
        hook_routes,
        memory_routes,
        book_routes,
        graph_routes,
        system_routes,
        admin_routes,
        portability_routes,
        backfill_routes,
        problem_routes,
    ):
        app.include_router(module.router)
    mcp_http.mount(app, gateway)
    ui.mount(app)

    # Innermost: only a request that passed the guard, the token and the size limit waits for a work slot.
    app.add_middleware(WorkSlots)
    app.add_middleware(
        BodyLimit,
        default=DEFAULT_BODY_LIMIT,
        per_path={
            "/api/ingest": INGEST_BODY_LIMIT,
            "/api/backfill": BACKFILL_BODY_LIMIT,
            ui.UPLOAD_PATH: INGEST_BODY_LIMIT,
        },
    )
    if settings.token or gateway.user_tokens is not None:
        app.add_middleware(
            BearerAuth,
            token=settings.token,
            delegate=(ui.PREFIX,),  # the viewer checks its own
            users=gateway.user_tokens,
        )
    app.add_middleware(HomeHeader, home_id=home_id(settings.home))
    # Outermost: a rebinding or cross-site request is refused before anything else looks at it.
    bind_host = split_host_port(settings.gateway_addr, "MNEMEX_GATEWAY_ADDR")[0]
    app.add_middleware(WebGuard, rule=HostRule(bind_host, settings.allowed_hosts))
    return app
