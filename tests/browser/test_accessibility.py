"""Issue 38's accessibility line in a real headless Chromium: axe-core (npm, pinned in tests/browser/package.json,
installed by ``scripts/install.sh --dev``; nothing downloads at run time) finds no serious or critical violation
on any viewer page, at 1280 and 420 px, in the light and the dark theme.

axe's script is injected by Playwright, which the pages' Content-Security-Policy would refuse (no inline
script): only this test's browser context bypasses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from kernel.json_values import JSONObject, as_list, as_object, objects_at, str_at
from tests.support.browser import WIDTHS, Scheme, Tour

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
# Each violation as plain data: which rule, how bad, and where (a CSS selector and axe's own summary per element).
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary || "", html: n.html})),
  }));
}"""


def _described(where: str, violation: JSONObject) -> str:
    """An axe-core violation (JSON from the page: id, impact, help, url, nodes) as lines of text."""
    lines = [f"{where}: {violation['id']} ({violation['impact']}): {violation['help']} <{violation['url']}>"]
    nodes = list(objects_at(violation, "nodes"))
    for node in nodes[:6]:
        summary = " ".join(str_at(node, "summary").split())
        lines.append(f"    {str_at(node, 'target')}  {str_at(node, 'html')[:160]}\n      {summary[:400]}")
    if len(nodes) > 6:
        lines.append(f"    … and {len(nodes) - 6} more elements")
    return "\n".join(lines)


def axe_violations(tab: Page) -> list[JSONObject]:
    """axe-core's violations on the open page (its script injected from tests/browser/node_modules)."""
    if not AXE.is_file():
        pytest.fail(
            f"axe-core is not installed ({AXE} is missing): run `scripts/install.sh --dev`, which installs "
            "tests/browser/package.json's pinned axe-core with npm"
        )
    tab.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")  # what they hide too
    if not tab.evaluate("typeof window.axe !== 'undefined'"):
        tab.add_script_tag(path=str(AXE))
    return [as_object(v) for v in as_list(tab.evaluate(RUN_AXE))]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_no_serious_or_critical_accessibility_violation_on_any_page(
    tour: Tour, browser: Browser, width: int, scheme: Scheme
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme, bypass_csp=True)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    found: list[str] = []
    try:
        for stop in tour.stops:
            tour.visit(tab, stop)
            where = f"{stop.name} at {width} px, {scheme}"
            found += [_described(where, v) for v in axe_violations(tab) if v["impact"] in BLOCKING]
    finally:
        context.close()
    assert not found, "axe-core found serious or critical violations:\n" + "\n".join(found)


def test_the_check_finds_a_violation_it_is_shown(browser: Browser) -> None:
    """The harness itself: axe runs in the page and reports a known critical violation (an image without alt)."""
    context = browser.new_context()
    tab = context.new_page()
    try:
        tab.set_content('<!doctype html><html lang="en"><title>t</title><main><img src="data:,"></main></html>')
        found = axe_violations(tab)
    finally:
        context.close()
    assert [(v["id"], v["impact"]) for v in found if v["impact"] in BLOCKING] == [("image-alt", "critical")]
