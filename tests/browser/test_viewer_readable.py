"""Issue 38 (points 2, 3 and 8) in a real headless Chromium: memories read as titled cards with a kind, a
turn says in one sentence why each memory was shown, no raw ISO time or snake_case key on those pages,
lists become cards on a phone (no table cell narrower than 8 characters at 420 px), a sticky bulk bar
with select-all and a label per row, a skip link, and a dark theme that follows the system."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from gateway.reply_models import ContextOut
from tests.support.browser import FACTS, SESSION, Scheme, Seeded, Watched, new_project, no_trouble, screenshot

ISO = re.compile(r"\d{4}-\d\d-\d\dT")
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
# The page's own words: every visible text node outside memory text (.user-text) and identifiers.
OWN_WORDS = """() => {
  const skip = "script, style, pre, code, .user-text, .ident, .visually-hidden, select, option, textarea";
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (!el || el.closest(skip) || !el.checkVisibility()) continue;
    out.push(walk.currentNode.textContent);
  }
  return out.join(" ");
}"""
NARROW_CELLS = """() => {
  const probe = document.createElement("span");
  probe.style.cssText = "display:inline-block;width:8ch";
  document.body.appendChild(probe);
  const least = probe.getBoundingClientRect().width;
  probe.remove();
  return [...document.querySelectorAll("td, th")]
    .filter(c => c.checkVisibility() && c.getBoundingClientRect().width > 0)
    .filter(c => c.getBoundingClientRect().width < least - 0.5)
    .map(c => `${c.closest("table").id || c.closest("table").className}: ${Math.round(c.getBoundingClientRect().width)} px`);
}"""


def _own_words(tab: Page) -> str:
    return str(tab.evaluate(OWN_WORDS))


def _reads_as_words(tab: Page, where: str) -> None:
    words = _own_words(tab)
    assert not ISO.search(words), f"{where}: raw time {ISO.search(words)}"
    assert not SNAKE.findall(words), f"{where}: snake_case {SNAKE.findall(words)}"


def test_memories_read_as_titled_cards_with_no_raw_times_or_keys(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    tab = page.page
    tab.goto(seeded.url(f"/ui/memories/{seeded.facts[FACTS[2]]}"))
    # (another test edits this fact and appends to it: the title starts with it, and is clipped past a line)
    assert tab.locator("[data-testid='memory-title']").inner_text().startswith(FACTS[2][:60])
    assert tab.locator("[data-testid='memory-kind']").inner_text() == "preference"
    assert "memory bank" in tab.locator("[data-testid='memory-facts']").inner_text()
    _reads_as_words(tab, "a fact")
    screenshot(tab, "memory-card", tmp_path)
    tab.goto(seeded.url(f"/ui/memories/{seeded.facts[FACTS[0]]}"))
    screenshot(tab, "memory", tmp_path)
    tab.goto(seeded.url(f"/ui/memories/{seeded.exchange_id}"))
    assert tab.locator("[data-testid='memory-title']").inner_text().startswith("how do I deploy the ledger service?")
    assert tab.locator("[data-testid='memory-gist']").inner_text().startswith("Use Helm on the blue cluster.")
    assert "worked" in tab.locator("[data-testid='memory-outcome']").inner_text()
    _reads_as_words(tab, "an exchange")
    no_trouble(page)


def test_each_injected_memory_gets_one_sentence_and_one_relevance(
    seeded: Seeded, page: Watched, tmp_path: Path
) -> None:
    live = seeded.live
    session = "viewer-readable-session"
    reply = ContextOut.model_validate(
        live.post(
            "/api/hooks/get-context",
            {"session_id": session, "prompt": "which cluster is the ledger service deployed to?", "cwd": seeded.cwd},
        )
    )
    kept = [c for c in reply.choices if c.kept]
    left = [c for c in reply.choices if not c.kept]
    live.post("/api/hooks/stop", {"session_id": session, "cwd": seeded.cwd, "assistant_text": "The blue one."})
    tab = page.page
    tab.goto(seeded.url("/ui/session", id=session))
    lines = tab.locator("li.injected-memory")
    assert lines.count() == len(kept) > 0
    for i in range(lines.count()):
        line = lines.nth(i)
        assert line.locator("[data-testid='why-shown']").inner_text().startswith("Shown because it matched")
        assert re.fullmatch(r"relevance \d\.\d\d", line.locator("[data-testid='relevance']").inner_text())
        assert line.inner_text().count("relevance") == 1  # one number; the rank parts wait behind a disclosure
    assert tab.locator("[data-testid='answer'] .answer-text").is_visible()
    if left:
        tab.locator("[data-testid='left-out'] summary").click()
        rows = tab.locator("[data-testid='left-out'] li")
        assert rows.count() == len(left)
        assert rows.locator("a.user-text").count() >= 1  # a line left out shows its title, not a bare id
        assert "relevance floor" in tab.locator("[data-testid='left-out'] summary").inner_text()
    _reads_as_words(tab, "a session")
    screenshot(tab, "session-lines", tmp_path)
    tab.goto(seeded.url("/ui/session", id=SESSION))
    _reads_as_words(tab, "the seeded session")
    screenshot(tab, "session", tmp_path)
    no_trouble(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_420_px_lists_are_cards_and_no_cell_is_narrower_than_8_characters(
    seeded: Seeded, browser: Browser, tmp_path: Path, scheme: Scheme
) -> None:
    context = browser.new_context(viewport={"width": 420, "height": 860}, color_scheme=scheme)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        pages = {
            "overview": "/ui",
            "memories": "/ui/memories",
            "memory": f"/ui/memories/{seeded.facts[FACTS[0]]}",
            "sessions": "/ui/sessions",
            "session": "/ui/session?id=" + SESSION,
            "graph": "/ui/graph",
            "books": "/ui/books",
            "projects": "/ui/projects",
        }
        for name, path in pages.items():
            tab.goto(seeded.url(path) if "?" not in path else f"{seeded.live.url}{path}&project={seeded.project}")
            assert tab.evaluate(NARROW_CELLS) == [], name
            assert tab.evaluate("document.documentElement.scrollWidth") <= 420, name
            if scheme == "dark" and name == "memories":
                background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
                assert background == "rgb(18, 22, 27)"  # follows the system's dark theme
            if name in ("memory", "session"):
                screenshot(tab, f"{name}-420px" if scheme == "light" else f"{name}-420px-dark", tmp_path)
    finally:
        context.close()
    assert errors == []


def test_bulk_bar_select_all_labels_and_result_beside_the_button(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    texts = [f"Sticky note {i}: the {w} queue drains at night" for i, w in enumerate(("red", "green", "blue", "gold"))]
    name, _ = new_project(seeded, tmp_path, "stickybar", texts, session="sticky-1")
    tab = page.page
    tab.set_viewport_size({"width": 1280, "height": 500})
    tab.goto(f"{seeded.live.url}/ui/memories?project={name}&collection=working")
    rows = tab.locator("tr.memory-row input[name='ids']")
    assert rows.count() == 4
    labels = [rows.nth(i).get_attribute("aria-label") for i in range(4)]
    assert len(set(labels)) == 4 and all("Sticky note" in (label or "") for label in labels)
    bar = tab.locator("[data-testid='bulk-bar']")
    tab.evaluate("window.scrollTo(0, 0)")
    box = bar.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 500 + 1  # in view while the list scrolls
    bar.locator("input.select-all").check()
    assert all(rows.nth(i).is_checked() for i in range(4))
    assert "4 selected" in bar.inner_text()
    bar.locator("input.select-all").uncheck()
    rows.nth(0).check()
    rows.nth(1).check()
    tab.click("button.bulk-archive")
    result = tab.locator("[data-testid='bulk-result']")
    expect(result).to_have_text(re.compile("Archived 2 memories"))
    expect(tab.locator("tr.memory-row")).to_have_count(2)
    expect(bar.locator("button.undo")).to_be_visible()  # in the bar, beside the button
    button, undo = tab.locator("button.bulk-archive").bounding_box(), tab.locator("button.undo").bounding_box()
    assert button is not None and undo is not None and abs(button["y"] - undo["y"]) < 120  # beside the button
    screenshot(tab, "bulk-bar", tmp_path)
    tab.click("button.undo")
    expect(result).to_have_text(re.compile("Restored 2 memories"))
    expect(tab.locator("tr.memory-row")).to_have_count(4)
    no_trouble(page)


def test_a_skip_link_leads_the_keyboard_to_the_content(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/memories"))
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.className") == "skip-link"
    assert tab.locator(".skip-link").is_visible()
    tab.keyboard.press("Enter")
    assert tab.evaluate("document.activeElement.id") == "main"
    no_trouble(page)
