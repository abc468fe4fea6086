"""The viewer's dependencies: every page reads through ``viewer``; every POST goes through ``mutation``.

``viewer`` signs the request in (``ui.signin``) and, for a per-user token, makes
the rest of the request act as that user (``user_tokens.authenticated_user``, which
``CallerResolver`` reads), exactly as the API's bearer check does.
"""

from __future__ import annotations

from fastapi import Request

from gateway.capabilities.preview_service import PreviewService
from gateway.gateway_composition import Gateway
from gateway.ui import security, signin
from gateway.ui.data import ViewerData
from gateway.user_tokens import authenticated_user


def gateway_of(request: Request) -> Gateway:
    found: Gateway = request.app.state.gateway
    return found


def _data(request: Request) -> ViewerData:
    data: ViewerData | None = getattr(request.app.state, "viewer_data", None)
    if data is None:
        gateway = gateway_of(request)
        previews = PreviewService(gateway.rpc, gateway.settings, gateway.hooks.deadlines)
        data = ViewerData(gateway.callers, gateway.browse, gateway.memories, gateway.library, previews)
        request.app.state.viewer_data = data
    return data


def session_store(request: Request) -> signin.Sessions:
    store: signin.Sessions | None = getattr(request.app.state, "ui_sessions", None)
    if store is None:
        store = signin.Sessions()
        request.app.state.ui_sessions = store
    return store


def login_throttle(request: Request) -> signin.LoginThrottle:
    throttle: signin.LoginThrottle | None = getattr(request.app.state, "ui_login_throttle", None)
    if throttle is None:
        throttle = signin.LoginThrottle()
        request.app.state.ui_login_throttle = throttle
    return throttle


def identify(request: Request) -> signin.Viewer | None:
    gateway = gateway_of(request)
    return signin.identify(request, session_store(request), gateway.settings.token, gateway.user_tokens)


async def viewer(request: Request) -> ViewerData:
    """Signed in (when a token is configured), or ``NotSignedIn``.

    Each request runs in its own task, so the user set here lasts for this request only.
    """
    found = identify(request)
    if found is None:
        raise security.NotSignedIn("sign in at /ui/login with your token (MNEMEX_TOKEN or your own user token)")
    if found.user is not None:
        authenticated_user.set(found.user)
    return _data(request)


async def mutation(request: Request) -> ViewerData:
    """``viewer`` plus the CSRF check every POST must pass."""
    data = await viewer(request)
    security.check_csrf(request)
    return data
