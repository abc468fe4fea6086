"""Rendering the viewer's pages: one Jinja2 environment (autoescape always on), the page context, the route class.

Every template gets ``csrf`` (the double-submit token), ``project``,
``link(path, **params)`` (a URL on the same project) and ``static(name)``.
Memory text only ever reaches a page through autoescaped ``{{ }}``; data for
scripts goes in ``<script type="application/json">`` through ``tojson``, which
escapes ``<``, ``>``, ``&`` and quotes, so it is never parsed as markup.
``UiRoute`` renders a gateway error as an HTML page (or sends a signed-out
browser to the login form) instead of the API's JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from urllib.parse import quote, urlencode

from fastapi import Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from gateway.gateway_errors import GatewayError
from gateway.ui import injection_story, memory_titles, security, ui_display
from gateway.ui.project_scope import display_names
from gateway.ui.viewer_deps import gateway_of

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
NAV = (
    ("/ui", "Overview"),
    ("/ui/memories", "Memories"),
    ("/ui/sessions", "Sessions"),
    ("/ui/graph", "Graph"),
    ("/ui/books", "Books"),
)

env = Environment(
    loader=FileSystemLoader(str(TEMPLATES)),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
env.filters.update(
    when=ui_display.when,
    outcomes=ui_display.spelled_outcomes,
    highlight=ui_display.highlight,
    clipped=ui_display.clipped,
    client_name=ui_display.client_name,
    plain_value=ui_display.plain_value,
    label=memory_titles.label_of,
    key_name=memory_titles.key_name,
    collection_name=memory_titles.collection_name,
)
env.globals.update(
    why_shown=injection_story.why_shown,
    relevance_of=injection_story.relevance_of,
    floor_of=injection_story.floor_of,
    left_out_reason=injection_story.left_out_reason,
)
ALL_PROJECTS = "/ui/projects"


def static_url(name: str) -> str:
    return f"/ui/static/{quote(name)}"


def url(path: str, project: str = "", **params: object) -> str:
    """``path`` with its query; ``project`` kept on every link so a page stays on its project."""
    query = {k: v for k, v in {"project": project, **params}.items() if v not in (None, "")}
    return quote(path) + ("?" + urlencode(query) if query else "")


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def section_path(page: str) -> str:
    """Where the project switcher sends a page: its section's list (a session or memory id is per project)."""
    return next((path for path, label in NAV if label == page), "/ui")


def render(
    request: Request,
    template: str,
    *,
    page: str = "",
    project: str = "",
    status: int = 200,
    project_names: list[str] | None = None,
    **context: object,
) -> HTMLResponse:
    settings = gateway_of(request).settings
    names = sorted(set(project_names or []) | ({project} if project else set()))
    html = env.get_template(template).render(
        csrf=security.csrf_token(request),
        project=project,
        page=page,
        nav=NAV,
        project_names=names,
        # folder names; the full id only where two folders share a name (a page may pass its own, wider set)
        project_labels=context.pop("project_labels", None) or display_names(names),
        switch_path=section_path(page),
        all_projects=ALL_PROJECTS,
        token_set=bool(settings.token) or gateway_of(request).user_tokens is not None,
        static=static_url,
        link=lambda path, **params: url(path, **{"project": project, **params}),
        **context,
    )
    return HTMLResponse(html, status_code=status)


def _error_page(request: Request, exc: GatewayError) -> Response:
    if isinstance(exc, security.NotSignedIn) and request.method == "GET" and not is_htmx(request):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(url("/ui/login", next=target), status_code=303)
    template = "error_fragment.html" if is_htmx(request) else "error.html"
    project = request.query_params.get("project", "")
    return render(
        request,
        template,
        status=exc.http_status,
        project=project,
        message=exc.message,
        status_text=str(exc.http_status),
    )


class UiRoute(APIRoute):
    """Gateway errors become HTML: the error page, a fragment for htmx, or a redirect to sign in."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[object, object, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except GatewayError as exc:
                return _error_page(request, exc)

        return guarded
