"""Issue 38's screenshot line: every viewer page at 1280 and 420 px, as docs/VIEWER.md shows them.

``MNEMEX_UPDATE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_screenshots.py`` writes
``docs/screenshots/<page>.png`` and ``<page>-420px.png``; without it they go to a temporary folder, so the
test still checks that each page draws without a page error."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.support.browser import WIDTHS, Tour, screenshot


@pytest.mark.parametrize("width", WIDTHS)
def test_a_screenshot_of_every_page(tour: Tour, browser: Browser, width: int, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900 if width > 600 else 860})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for stop in (s for s in tour.stops if s.pictured):
            tour.visit(tab, stop)
            tab.evaluate("document.activeElement && document.activeElement.blur()")  # no focus ring in the picture
            screenshot(tab, stop.name if width > 600 else f"{stop.name}-420px", tmp_path)
            assert tab.evaluate("document.documentElement.scrollWidth") <= width, stop.name
    finally:
        context.close()
    assert errors == []
