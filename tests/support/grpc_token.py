"""A sync gRPC channel that carries a home's internal credential, for tests that talk to real service processes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import grpc

from kernel.internal_token import token_path

if TYPE_CHECKING:  # the stubs' call types, which grpc does not export at run time
    from grpc import _CallFuture, _CallIterator

Request = TypeVar("Request")
Response = TypeVar("Response")


class _Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    def __init__(self, token: str) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),)

    def _with_token(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        # grpc hands interceptors a namedtuple, whose _replace the stubs' ClientCallDetails does not declare
        replaced: grpc.ClientCallDetails = details._replace(  # type: ignore[attr-defined]
            metadata=(*(details.metadata or ()), *self._metadata)
        )
        return replaced

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Request], _CallFuture[Response]],
        details: grpc.ClientCallDetails,
        request: Request,
    ) -> _CallFuture[Response]:
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Request], _CallIterator[Response]],
        details: grpc.ClientCallDetails,
        request: Request,
    ) -> _CallIterator[Response]:
        return continuation(self._with_token(details), request)


def home_channel(address: str, home: Path, options: Sequence[tuple[str, str | int]] = ()) -> grpc.Channel:
    """``grpc.insecure_channel(address, options)`` whose calls send ``<home>/secrets/internal-token``, read now."""
    token = token_path(home).read_text().strip()
    return grpc.intercept_channel(grpc.insecure_channel(address, options=options), _Bearer(token))
