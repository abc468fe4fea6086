"""Issue 38 point 7 in a real headless Chromium: the preview shows exactly the block the next prompt in the
project gets (get-context's own pipeline), with its tokens, and records nothing."""

from __future__ import annotations

from playwright.sync_api import Page

from gateway.reply_models import ContextOut
from tests.support.browser import Seeded, Watched, no_trouble

PROMPT = "how should I deploy the ledger service with helm?"


def _sessions(seeded: Seeded, tab: Page) -> list[str]:
    tab.goto(seeded.url("/ui/sessions"))
    links: list[str] = tab.locator("a.session-link").all_inner_texts()
    return links


def test_the_preview_equals_the_next_get_context_block(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    before = _sessions(seeded, tab)
    tab.goto(seeded.url("/ui/memories", q="ledger"))
    tab.click("[data-testid='preview-link']")
    tab.wait_for_url(lambda u: "/ui/preview" in u)
    assert tab.locator("#preview-prompt").input_value() == "ledger"  # the search's words to start from
    tab.fill("#preview-prompt", PROMPT)
    tab.click("#preview-form button[type='submit']")
    # htmx puts the preview in the address once its result is in place: a preview is a link
    tab.wait_for_url(lambda u: "prompt=how%20should%20I%20deploy" in u)
    tab.wait_for_selector("[data-testid='preview-block']")
    shown = tab.locator("[data-testid='preview-block']").text_content()
    tokens = tab.locator("[data-testid='preview-tokens']").inner_text()
    # Nothing was recorded: no session, no turn.
    assert _sessions(seeded, tab) == before
    assert before and not any("mnemex-viewer-preview" in s for s in before)
    # The next prompt of a new session in this project gets exactly that block, at that cost.
    got = ContextOut.model_validate(
        seeded.live.post("/api/hooks/get-context", {"session_id": "preview-check", "prompt": PROMPT, "cwd": seeded.cwd})
    )
    assert got.known_context and shown == got.known_context
    assert f"about {got.tokens.known_context} tokens" in tokens
    assert f"{len(got.memories)} memor" in tokens
    no_trouble(page)


def test_a_nonsense_prompt_gets_nothing_and_says_so(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/preview", prompt="zebra saxophone quantum"))
    assert "Nothing would be added" in tab.locator("[data-testid='preview-tokens']").inner_text()
    assert tab.locator("[data-testid='preview-block']").count() == 0
    got = ContextOut.model_validate(
        seeded.live.post(
            "/api/hooks/get-context",
            {"session_id": "preview-nonsense", "prompt": "zebra saxophone quantum", "cwd": seeded.cwd},
        )
    )
    assert got.known_context == ""
    no_trouble(page)
