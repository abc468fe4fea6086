"""Issue 30 in a real headless Chromium: one project switcher for every link, an all-projects view and a
landing on the most recently active project, honest search (counts, relevance, highlighted words), bulk
archive with undo, the onboarding empty state, a 420 px screen, and no console error (CSP included) on any
page. The graph at 500 nodes is tested in test_viewer_graph.py."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Browser, Page, expect

from gateway.reply_models import SearchOut
from gateway.ui.project_scope import user_wide
from tests.support.browser import FACTS, Seeded, Watched, new_project, no_trouble, screenshot


def _project_of(tab: Page, selector: str) -> list[str]:
    hrefs = tab.eval_on_selector_all(selector, "els => els.map(e => e.getAttribute('href'))")
    return [parse_qs(urlparse(h).query).get("project", [""])[0] for h in hrefs]


def test_project_switcher_keeps_every_link_and_lands_on_the_active_project(
    seeded: Seeded, page: Watched, tmp_path: Path
) -> None:
    other, _ = new_project(
        seeded, tmp_path, "billing", ["Billing retries failed card charges three times"], session="billing-1"
    )
    tab = page.page
    tab.goto(seeded.url("/ui/memories"))
    tab.select_option("#project-switch select[name='project']", other)
    tab.wait_for_url(lambda u: f"project={other}" in u)
    shown = tab.locator("[data-testid='project']")
    assert (shown.inner_text(), shown.get_attribute("title")) == ("billing", other)  # its folder name; the id
    assert set(_project_of(tab, "header.top a")) == {other}  # brand and every nav link
    assert "Billing retries" in tab.locator("#results").inner_text()
    for path in ("/ui/sessions", "/ui/graph", "/ui/books"):  # every page keeps the project in its links
        tab.goto(f"{seeded.live.url}{path}?project={other}")
        assert set(_project_of(tab, "header.top a")) == {other}, path
        assert tab.locator("[data-testid='project']").get_attribute("title") == other
        if path == "/ui/sessions":  # titled by the first prompt
            assert "Billing retries failed card charges" in tab.locator("#sessions").inner_text()
    tab.select_option("#project-switch select[name='project']", "")  # All projects
    tab.wait_for_url(lambda u: "/ui/projects" in u)
    listed = tab.locator("#projects a.project-link").all_inner_texts()
    assert "ledger" in listed and "billing" in listed  # folder names; the ids are in the links
    assert {seeded.project, other} <= set(_project_of(tab, "#projects a.project-link"))
    tab.goto(f"{seeded.live.url}/ui")  # no project named: the one with the latest session turn
    assert tab.locator("[data-testid='project']").get_attribute("title") == other
    no_trouble(page)


def test_search_counts_relevance_and_highlight(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/memories", q="ledger helm", collection="memory_bank"))
    total = tab.locator("[data-testid='total']").inner_text()
    rows = tab.locator("tr.memory-row")
    ranked = SearchOut.model_validate(
        seeded.live.post(
            "/api/search", {"query": "ledger helm", "cwd": seeded.cwd, "collections": ["memory_bank"], "limit": 100}
        )
    ).memories
    assert len(ranked) < 100  # below the pool: every match is counted
    # the search finds other projects' facts too (a memory_bank hit holds here: user-wide, or this project's)
    ranked = [m for m in ranked if user_wide(m.model_dump()) or m.project == seeded.project]
    assert total.startswith(f"{len(ranked)} relevant"), total  # the true number, not the ranking's pool size
    assert rows.count() == min(20, len(ranked))
    assert tab.locator("[data-testid='capped']").count() == 0
    first = rows.first
    assert first.get_attribute("data-id") == seeded.facts[FACTS[0]]
    assert {m.lower() for m in first.locator("mark").all_inner_texts()} >= {"ledger", "helm"}
    relevance = [float(x) for x in tab.locator("[data-testid='relevance']").all_inner_texts()]
    assert relevance and relevance[0] > 0 and relevance == sorted(relevance, reverse=True)
    # Highlighting escapes: markup in a memory stays text around the marks.
    tab.goto(seeded.url("/ui/memories", q="deploy notes script pwned", collection="memory_bank"))
    hostile = tab.locator(f"tr.memory-row[data-id='{seeded.hostile_id}'] a.memory-link")
    assert "<script>" in hostile.inner_text() and hostile.locator("mark").count() >= 2
    assert hostile.locator("script, img").count() == 0 and page.pwned() is None
    tab.goto(seeded.url("/ui/memories"))  # no query: recency, and said so
    assert "recent first" in tab.locator("[data-testid='total']").inner_text()
    assert "relevance" not in tab.locator("select[name='sort']").inner_text()
    no_trouble(page)


def test_bulk_archive_and_undo(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    texts = [f"Bulk note {i}: the {w} cache is warmed at boot" for i, w in enumerate(("red", "green", "blue"))]
    name, cwd = new_project(seeded, tmp_path, "bulk", texts, session="bulk-1")
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/memories?project={name}&collection=working")
    rows = tab.locator("tr.memory-row")
    assert rows.count() == 3
    ids = [rows.nth(i).get_attribute("data-id") for i in range(2)]
    for i in range(2):
        rows.nth(i).locator("input[name='ids']").check()
    tab.click("button.bulk-archive")
    tab.wait_for_selector("[data-testid='bulk-result']:has-text('Archived 2 memories')")
    expect(rows).to_have_count(1)  # the list reloaded itself
    live_ids = {
        m.id
        for m in SearchOut.model_validate(
            seeded.live.post("/api/search", {"query": "cache warmed at boot", "cwd": cwd})
        ).memories
    }
    assert not live_ids & set(ids)
    tab.click("button.undo")
    tab.wait_for_selector("[data-testid='bulk-result']:has-text('Restored 2 memories')")
    expect(rows).to_have_count(3)
    live_ids = {
        m.id
        for m in SearchOut.model_validate(
            seeded.live.post("/api/search", {"query": "cache warmed at boot", "cwd": cwd})
        ).memories
    }
    assert set(ids) <= live_ids
    no_trouble(page)


def test_bulk_archive_needs_the_csrf_token(seeded: Seeded) -> None:
    reply = seeded.live.client.post(
        f"/ui/memories/bulk-archive?project={seeded.project}", data={"ids": [seeded.facts[FACTS[1]]]}
    )
    assert reply.status_code == 403
    hits = SearchOut.model_validate(
        seeded.live.post("/api/search", {"id": seeded.facts[FACTS[1]], "cwd": seeded.cwd})
    ).memories
    assert hits and not hits[0].archived


def test_empty_project_names_the_next_command(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui?project=fresh-start")
    assert "mnemex init" in tab.locator("[data-testid='empty-state']").inner_text()
    assert "mnemex backfill" in tab.locator("[data-testid='empty-state']").inner_text()
    tab.goto(f"{seeded.live.url}/ui/memories?project=fresh-start&collection=patterns")
    assert tab.locator("[data-testid='empty-state']").count() == 0  # a filter that matches nothing is not a new home
    tab.goto(f"{seeded.live.url}/ui/memories/history_123456789012?project=fresh-start")
    message = tab.locator("p.error").inner_text()
    assert "days_back" not in message and "switch project" in message
    assert page.errors == [] and page.dialogs == []
    assert [c for c in page.console if "history_123456789012" not in c] == []  # only the page's own 404 status


def test_memory_page_reads_as_words(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url(f"/ui/memories/{seeded.facts[FACTS[0]]}"))
    outcomes = tab.locator("[data-testid='last-outcomes']").inner_text()
    assert "worked" in outcomes and "[" not in outcomes
    assert "Wilson" in tab.locator("[data-testid='score-help']").inner_text()
    created = tab.locator("dl.meta time").first
    assert created.inner_text().endswith(("ago", "just now")) and (created.get_attribute("title") or "").endswith("UTC")
    books = SearchOut.model_validate(
        seeded.live.post("/api/search", {"query": "ledger runbook helm rollback", "cwd": seeded.cwd})
    )
    chunk = next(m.id for m in books.memories if m.collection == "books")
    tab.goto(seeded.url(f"/ui/memories/{chunk}"))
    assert tab.locator("[data-testid='book-readonly']").count() == 1
    assert tab.locator("textarea[name='content']").count() == 0
    no_trouble(page)


def test_420_px_wide_nothing_overflows(seeded: Seeded, browser: Browser, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 420, "height": 860})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        pages = [
            "/ui",
            "/ui/memories",
            f"/ui/memories/{seeded.facts[FACTS[0]]}",
            "/ui/sessions",
            "/ui/graph",
            "/ui/books",
        ]
        for path in pages:
            tab.goto(seeded.url(path))
            width = tab.evaluate("document.documentElement.scrollWidth")
            assert width <= 420, f"{path} is {width} px wide at a 420 px viewport"
        tab.goto(seeded.url("/ui/memories"))
        screenshot(tab, "memories-420px", tmp_path)
    finally:
        context.close()
    assert errors == []


def test_the_sessions_list_refreshes_itself_as_turns_arrive(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    name, cwd = new_project(seeded, tmp_path, "live", ["Where is the release checklist kept?"], session="live-1")
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/sessions?project={name}")
    assert tab.locator("#sessions tr[data-session]").count() == 1
    seeded.live.post(
        "/api/hooks/turn-start", {"session_id": "live-2", "prompt": "Rotate the signing keys today", "cwd": cwd}
    )
    row = tab.locator("#sessions tr[data-session='live-2']")
    expect(row).to_have_count(1, timeout=15_000)  # no reload: the list polls (htmx, every 5 s)
    assert "Rotate the signing keys today" in row.inner_text()
    assert tab.locator("#sessions tr[data-session]").first.get_attribute("data-session") == "live-2"
    no_trouble(page)
