"""Memory text is shown, never run: scripts, event handlers, javascript: URLs and the context delimiters stay inert."""

from __future__ import annotations

from gateway.formatting import CONTEXT_END, CONTEXT_START
from tests.support.browser import HOSTILE, HOSTILE_TITLE, SESSION, Seeded, Watched


def test_the_payload_would_run_if_it_were_not_escaped(page: Watched) -> None:
    """The control: the same text put into a page as markup does set the flag, so the test below can fail."""
    page.page.set_content(f"<div>{HOSTILE}</div>")
    page.page.wait_for_function("window.__pwned !== undefined")
    assert page.pwned() is not None


def test_hostile_memory_text_is_inert_on_every_page(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    pages = [
        seeded.url("/ui/memories"),
        seeded.url("/ui/memories", q="deploy notes"),
        seeded.url("/ui/memories", tag="<b>hostile</b>"),
        seeded.url(f"/ui/memories/{seeded.hostile_id}"),
        seeded.url("/ui/session", id=SESSION),
        seeded.url("/ui/graph"),
        seeded.url("/ui"),
        seeded.url("/ui/books"),
    ]
    for url in pages:
        tab.goto(url)
        tab.wait_for_load_state("load")
        tab.mouse.move(200, 300)
        assert page.pwned() is None, url
        assert tab.locator("main script:not([type='application/json'])").count() == 0, url
        assert tab.locator("main img, main svg, main a[href^='javascript:']").count() == 0, url
    assert page.dialogs == []

    tab.goto(seeded.url(f"/ui/memories/{seeded.hostile_id}"))
    shown = tab.locator("[data-testid='content']").inner_text()
    assert "<script>window.__pwned = 'script'</script>" in shown  # shown as text, exactly
    assert CONTEXT_START in shown and CONTEXT_END in shown
    assert "{{ 7*7 }}" in shown  # no template evaluation either
    assert tab.locator("span.tag", has_text="<b>hostile</b>").count() == 1

    tab.goto(seeded.url("/ui/session", id=SESSION))
    assert "<script>window.__pwned='prompt'</script>" in tab.locator("pre.prompt").first.inner_text()
    assert page.pwned() is None

    tab.goto(seeded.url("/ui/books"))
    assert HOSTILE_TITLE in tab.locator("#books").inner_text()
    titles = tab.locator("#books input[name='title']").evaluate_all("inputs => inputs.map(i => i.value)")
    assert HOSTILE_TITLE in titles  # kept whole as an attribute value too
    assert page.pwned() is None


def test_pages_forbid_inline_script_and_framing(seeded: Seeded) -> None:
    reply = seeded.live.client.get("/ui/memories", params={"project": seeded.project})
    assert reply.status_code == 200
    policy = reply.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert "access-control-allow-origin" not in reply.headers
    assert reply.headers["cache-control"] == "no-store"  # pages hold memory text
    script = seeded.live.client.get("/ui/static/vendor/htmx.min.js")
    assert script.status_code == 200 and script.headers["cache-control"] == "no-cache" and script.headers["etag"]
