"""FastAPI dependencies shared by every router (including routes/admin.py).

    from gateway.deps import get_operations
    @router.get("/api/x")
    async def x(ops: Operations = Depends(get_operations)): ...

``request.app.state.operations`` / ``.settings`` hold the same objects. The
dependencies are ``async def`` on purpose: FastAPI runs a plain ``def``
dependency on its thread pool, a thread hand-off on every request.
"""

from __future__ import annotations

from fastapi import Request

from gateway.operations import Operations
from kernel.config import Settings


async def get_operations(request: Request) -> Operations:
    return request.app.state.operations


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings
