"""Sign in and out: the token typed once, kept in an HttpOnly SameSite=Strict cookie (see ``ui.security``).

Sign-in attempts are rate-limited per client address (``signin.LoginThrottle``): past
the burst the form answers 429 with ``Retry-After``. Behind a trusted proxy the
address is the one the proxy forwards (uvicorn's proxy headers).
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import RedirectResponse

from gateway.ui import security, signin
from gateway.ui.page_render import UiRoute, render
from gateway.ui.viewer_deps import gateway_of, login_throttle, session_store

router = APIRouter(route_class=UiRoute)


def _safe_next(target: str) -> str:
    """Only a path of the viewer itself: never another host, never a scheme."""
    if (
        target.startswith("/ui")
        and not target.startswith("//")
        and "\\" not in target
        and ":" not in target.split("?")[0]
    ):
        return target
    return "/ui"


def _required(request: Request) -> bool:
    gateway = gateway_of(request)
    return signin.auth_required(gateway.settings.token, gateway.user_tokens)


@router.get("/ui/login", include_in_schema=False)
async def login_form(request: Request, next: str = "/ui") -> Response:
    if not _required(request):
        return RedirectResponse(_safe_next(next), status_code=303)
    return render(request, "login.html", next=_safe_next(next), failed=False)


@router.post("/ui/login", include_in_schema=False)
async def login(
    request: Request,
    token: str = Form("", max_length=1000),
    csrf: str = Form("", max_length=100),
    next: str = Form("/ui", max_length=2000),
) -> Response:
    security.check_csrf(request, csrf)
    if not _required(request):
        return RedirectResponse(_safe_next(next), status_code=303)
    wait = login_throttle(request).attempt(request.client.host if request.client else "")
    if wait:
        throttled = render(request, "login.html", next=_safe_next(next), failed=True, wait=int(wait), status=429)
        throttled.headers["retry-after"] = str(int(wait))
        return throttled
    gateway = gateway_of(request)
    viewer = signin.viewer_of_token(token.strip(), gateway.settings.token, gateway.user_tokens)
    if viewer is None:
        return render(request, "login.html", next=_safe_next(next), failed=True, status=401)
    session = session_store(request).open(token.strip(), owner=viewer.user or "")
    reply = RedirectResponse(_safe_next(next), status_code=303)
    secure = security.served_over_https(request.scope)
    cookie = security.cookie_header(signin.SESSION_COOKIE, session, max_age=signin.SESSION_MAX_AGE, secure=secure)
    reply.headers.append("set-cookie", cookie.decode())
    return reply


@router.post("/ui/logout", include_in_schema=False)
async def logout(request: Request, csrf: str = Form("", max_length=100)) -> Response:
    security.check_csrf(request, csrf)
    session_store(request).close(request.cookies.get(signin.SESSION_COOKIE, ""))
    reply = RedirectResponse("/ui/login", status_code=303)
    secure = security.served_over_https(request.scope)
    reply.headers.append(
        "set-cookie", security.cookie_header(signin.SESSION_COOKIE, "", max_age=0, secure=secure).decode()
    )
    return reply
