"""The route classes every gateway router uses, so hostile JSON never reaches a handler.

    router = APIRouter(prefix="/api", route_class=JSONRoute)       # REST
    router = APIRouter(prefix="/api/hooks", route_class=HookJSONRoute)

Both decode JSON bodies with ``gateway.safe_json.decode_json``: a lone
surrogate becomes U+FFFD and the request goes on. A number JSON cannot carry
(NaN, Infinity, 1e400) is a 422 that names the field on REST routes; on hook
routes it becomes null, so the rest of a hook's data is kept (a typed field
that cannot be null still gets its 422). JSON nested deeper than
``safe_json.MAX_DEPTH`` is a 422 on both. A body that is not JSON is a 415.
A test sends these to every POST route of the app.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import ClassVar

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from gateway.gateway_errors import GatewayError
from gateway.safe_json import NonFinite, TooDeep, UnrepresentableNumber, decode_json
from kernel.json_values import JSONValue


class UnsupportedBody(GatewayError):
    """A body that is not JSON on a JSON route."""

    http_status = 415


class _DecodedJSONRequest(Request):
    non_finite: ClassVar[NonFinite] = "reject"

    async def json(self) -> JSONValue:
        if not hasattr(self, "_decoded"):
            self._decoded = decode_json(await self.body(), non_finite=self.non_finite)
        return self._decoded


class _NullingJSONRequest(_DecodedJSONRequest):
    non_finite: ClassVar[NonFinite] = "null"


def _carries_json(request: Request) -> bool:
    """The content types FastAPI parses as JSON (it leaves a body without one alone)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return content_type == "application/json" or (
        content_type.startswith("application/") and content_type.endswith("+json")
    )


class JSONRoute(APIRoute):
    """REST routes: a number JSON cannot carry is a 422 naming the field."""

    request_class: ClassVar[type[_DecodedJSONRequest]] = _DecodedJSONRequest

    def get_route_handler(self) -> Callable[[Request], Coroutine[object, None, Response]]:
        handler = super().get_route_handler()
        request_class = self.request_class
        has_body = self.body_field is not None

        async def decoded_handler(request: Request) -> Response:
            request = request_class(request.scope, request.receive)
            if has_body and await request.body() and not _carries_json(request):
                # FastAPI would read such a body as bytes and answer with a puzzling 422.
                raise UnsupportedBody("send the body as JSON, with 'Content-Type: application/json'")
            if has_body and _carries_json(request) and await request.body():
                try:
                    await request.json()
                except TooDeep as exc:
                    deep = {"type": "json_too_deep", "loc": ("body",), "msg": str(exc), "input": None}
                    raise RequestValidationError([deep]) from None
                except UnrepresentableNumber as exc:
                    error = {
                        "type": "finite_number",
                        "loc": ("body", *exc.path),
                        "msg": f"{exc.literal} is not a finite number",
                        "input": None,
                    }
                    raise RequestValidationError([error]) from None
                except ValueError:
                    pass  # malformed JSON: FastAPI answers it (a 422 json_invalid) when the handler reads the body
            return await handler(request)

        return decoded_handler


class HookJSONRoute(JSONRoute):
    """Hook routes: a number JSON cannot carry becomes null and the request goes on."""

    request_class = _NullingJSONRequest
