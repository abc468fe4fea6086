"""Gateway errors, raised by the capability services (``gateway.capabilities``) and mapped once at each edge.

REST maps them to 422 / 404 / 503 with ``{"error": message}``; MCP turns
them into an ``is_error`` result whose text says what to do next; the CLI
prints the message. Plain module: no grpc, no fastapi.
"""

from __future__ import annotations


class GatewayError(Exception):
    """Base class; ``message`` is safe to show to the user."""

    http_status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(GatewayError):
    """The caller sent something malformed; the message says how to fix it."""

    http_status = 422


class NotFound(GatewayError):
    """An id, title or session that does not exist in this scope."""

    http_status = 404


class BackendUnavailable(GatewayError):
    """A backend service is down, slow or refused the call."""

    http_status = 503

    def __init__(self, service: str, message: str) -> None:
        super().__init__(f"{service} service unavailable: {message}")
        self.service = service


class StorageProblem(GatewayError):
    """A backend's disk is full or read-only: the message says which and what to do (not "start the stack")."""

    http_status = 507  # Insufficient Storage

    def __init__(self, service: str, message: str) -> None:
        super().__init__(f"{service} service could not write: {message}")
        self.service = service
