"""A sync gRPC channel that carries a home's internal credential, for tests that talk to real service processes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc

from kernel.internal_token import token_path


class _Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    def __init__(self, token: str) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),)

    def _with_token(self, details: Any) -> Any:
        return details._replace(metadata=(*(details.metadata or ()), *self._metadata))

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return continuation(self._with_token(details), request)


def home_channel(address: str, home: Path, options: Sequence[tuple[str, Any]] = ()) -> grpc.Channel:
    """``grpc.insecure_channel(address, options)`` whose calls send ``<home>/secrets/internal-token``, read now."""
    token = token_path(home).read_text().strip()
    return grpc.intercept_channel(grpc.insecure_channel(address, options=options), _Bearer(token))
