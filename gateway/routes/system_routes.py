"""Health: each backend's grpc.health.v1 status."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from gateway.capabilities.admin_service import AdminService
from gateway.reply_models import HealthOut
from gateway.routes.json_route import JSONRoute
from gateway.service_deps import admin_service

router = APIRouter(prefix="/api", tags=["system"], route_class=JSONRoute)


@router.get("/health", response_model=HealthOut, responses={503: {"model": HealthOut}})
async def health(admin: AdminService = Depends(admin_service)) -> JSONResponse:
    """Each backend's grpc.health.v1 status; 200 when all serve, else 503. Needs no token."""
    report = await admin.health()
    return JSONResponse(report.to_json(), status_code=200 if report.ok else 503)
