"""With a token, the real browser signs in once, keeps an HttpOnly cookie, and every change carries the CSRF token."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import pytest

from tests.integration.gateway.live_stack import _serve_gateway
from tests.support.browser import FACTS, Seeded, Watched
from tests.support.loop_thread import LoopThread

TOKEN = "viewer-" + "t0k3n" * 8


@pytest.fixture(scope="module")
def guarded(seeded: Seeded, loop_thread: LoopThread) -> Iterator[str]:
    """A second gateway over the seeded services, this one with MNEMEX_TOKEN set; yields its URL."""
    settings = dataclasses.replace(seeded.live.settings, token=TOKEN)
    stop, url = loop_thread.run(_serve_gateway(settings))
    yield url
    loop_thread.run(stop())


def test_sign_in_then_archive_and_restore_through_the_cookie(seeded: Seeded, guarded: str, page: Watched) -> None:
    tab = page.page
    fact = seeded.facts[FACTS[1]]
    target = f"{guarded}/ui/memories/{fact}?project={seeded.project}"
    tab.goto(target)
    tab.wait_for_url(re.compile(r"/ui/login\?next="))
    tab.fill("input[name='token']", TOKEN + "-wrong")
    tab.click("button[type='submit']")
    assert tab.locator("p.error").inner_text() == "That token is not the gateway's."
    tab.fill("input[name='token']", TOKEN)
    tab.click("button[type='submit']")
    tab.wait_for_url(re.compile(re.escape(f"/ui/memories/{fact}")))
    assert tab.locator("[data-testid='content']").inner_text() == FACTS[1]

    cookies = {c["name"]: c for c in tab.context.cookies()}
    session = cookies["mnemex_ui"]
    assert session["httpOnly"] and session["sameSite"] == "Strict" and session["path"] == "/ui"
    assert TOKEN not in session["value"]
    assert tab.evaluate("document.cookie") == ""  # neither cookie is readable by scripts

    tab.click("button.archive")  # htmx sends X-CSRF-Token from the page's meta tag
    tab.wait_for_selector("#memory[data-archived='true']")
    tab.click("button.restore")
    tab.wait_for_selector("#memory[data-archived='false']")

    forged = tab.evaluate(
        """async (url) => (await fetch(url, {method: "POST", headers: {"X-CSRF-Token": "x".repeat(43)}})).status""",
        f"{guarded}/ui/memories/{fact}/archive?project={seeded.project}",
    )
    assert forged == 403  # signed in, but without the page's CSRF token
    api = tab.evaluate("async (url) => (await fetch(url)).status", f"{guarded}/api/books")
    assert api == 401  # the viewer's cookie is not an API credential
    assert page.errors == [] and page.dialogs == []
