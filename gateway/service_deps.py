"""FastAPI dependencies: each route module depends on the one service it uses.

    @router.post("/api/hooks/stop")
    async def stop(body: StopBody, hooks: HookService = Depends(hook_service),
                   callers: CallerResolver = Depends(caller_resolver)): ...

``request.app.state.gateway`` holds the ``gateway.gateway_composition.Gateway``. The
dependencies are ``async def`` on purpose: FastAPI runs a plain ``def``
dependency on its thread pool, a thread hand-off on every request.
"""

from __future__ import annotations

from fastapi import Request

from gateway.caller import CallerResolver
from gateway.capabilities.admin_service import AdminService
from gateway.capabilities.backfill_service import BackfillService
from gateway.capabilities.hook_service import HookService
from gateway.capabilities.library_service import LibraryService
from gateway.capabilities.memories_service import MemoriesService
from gateway.capabilities.portability_service import PortabilityService
from gateway.capabilities.problem_service import ProblemService
from gateway.gateway_composition import Gateway
from kernel.config import Settings


def gateway_of(request: Request) -> Gateway:
    found: Gateway = request.app.state.gateway
    return found


async def caller_resolver(request: Request) -> CallerResolver:
    return gateway_of(request).callers


async def get_settings(request: Request) -> Settings:
    return gateway_of(request).settings


async def hook_service(request: Request) -> HookService:
    return gateway_of(request).hooks


async def memories_service(request: Request) -> MemoriesService:
    return gateway_of(request).memories


async def library_service(request: Request) -> LibraryService:
    return gateway_of(request).library


async def admin_service(request: Request) -> AdminService:
    return gateway_of(request).admin


async def portability_service(request: Request) -> PortabilityService:
    return gateway_of(request).portability


async def backfill_service(request: Request) -> BackfillService:
    return gateway_of(request).backfill


async def problem_service(request: Request) -> ProblemService:
    return gateway_of(request).problems
