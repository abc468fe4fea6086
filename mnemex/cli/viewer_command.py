"""``mnemex ui``: open the web viewer (served by the gateway at /ui) in the default browser."""

from __future__ import annotations

import os
import urllib.parse
import webbrowser

import typer

from kernel import projects
from mnemex.cli.gateway_client import GatewayClient
from mnemex.cli.output import out, print_json
from mnemex.cli.settings import load_settings

app = typer.Typer()
HEALTH_TIMEOUT = 3.0


def viewer_url(gateway_url: str, project: str) -> str:
    return f"{gateway_url}/ui?{urllib.parse.urlencode({'project': project})}"


@app.command(epilog="Example: mnemex ui   (or: mnemex ui --no-open, mnemex ui --json)")
def ui(
    no_open: bool = typer.Option(False, "--no-open", help="Print the address; do not start a browser."),
    as_json: bool = typer.Option(False, "--json", help="Print {url, project, opened} as JSON; opens no browser."),
    project: str = typer.Option("", "--project", help="Project to show (default: this directory's project)."),
) -> None:
    """Open the viewer of what mnemex remembers: memories, sessions, the knowledge graph, books.

    Needs the stack running (`mnemex up --detach`). With MNEMEX_TOKEN set, the page asks for the token once.
    """
    settings = load_settings()
    if project:
        try:
            project = projects.validate_name(project)
        except projects.InvalidProjectName as exc:
            raise typer.BadParameter(str(exc), param_hint="--project") from None
    else:
        project = projects.resolve(os.getcwd(), settings.home)
    GatewayClient(settings, timeout=HEALTH_TIMEOUT).get("/api/health")  # a stopped stack fails here, saying what to do
    url = viewer_url(settings.gateway_url, project)
    opened = False
    if not (no_open or as_json):
        opened = webbrowser.open(url)
    if as_json:
        print_json({"url": url, "project": project, "opened": opened})
        return
    out.print(f"mnemex viewer: {url}", soft_wrap=True)
    if settings.token:
        out.print("sign in with your MNEMEX_TOKEN when the page asks", soft_wrap=True)
    if not opened and not no_open:
        out.print("no browser could be started here: open the address above yourself", soft_wrap=True)
