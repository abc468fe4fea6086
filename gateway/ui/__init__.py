"""The web viewer, served by the gateway at /ui on its own port (no separate server).

    from gateway import ui
    ui.mount(app)

Server-rendered pages (Jinja2, autoescaped) made live with htmx; charts by
Chart.js and the knowledge graph by Cytoscape.js, all vendored under
``static/vendor`` (versions and licences in ``static/vendor/LICENSES.md``), so
the viewer works offline. Pages: ``pages/`` (one module each); what they
show: ``data.ViewerData``; sign-in, CSRF and headers: ``security``.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from gateway.ui import security
from gateway.ui.page_render import STATIC
from gateway.ui.pages import (
    auth_page,
    books_page,
    graph_page,
    live_page,
    memories_page,
    overview_page,
    sessions_page,
)

PREFIX = "/ui"
UPLOAD_PATH = "/ui/books/upload"


def mount(app: FastAPI) -> None:
    """Add the viewer's routes, its static files and its security headers to the gateway app."""
    for module in (auth_page, overview_page, memories_page, sessions_page, live_page, graph_page, books_page):
        app.include_router(module.router)
    app.mount(f"{PREFIX}/static", StaticFiles(directory=STATIC), name="ui-static")
    app.add_middleware(security.UiHeaders, prefix=PREFIX)
