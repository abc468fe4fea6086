"""The viewer in a real headless Chromium: every page loads, and the user's main paths work."""

from __future__ import annotations

import re
from pathlib import Path

from gateway.reply_models import SearchOut
from kernel import projects
from tests.support.browser import FACTS, SESSION, Seeded, Watched, no_trouble, screenshot


def _no_trouble(page: Watched) -> None:
    no_trouble(page)


def test_every_page_loads(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    tab = page.page
    fact_id = seeded.facts[FACTS[0]]

    tab.goto(seeded.url("/ui"))
    tab.wait_for_selector("body[data-charts='ready']")
    assert tab.locator("[data-testid='count-memory_bank']").inner_text() == "4"
    assert tab.locator("#projects a.project-link").all_inner_texts().count("ledger") == 1  # its folder name
    events = tab.evaluate("JSON.parse(document.getElementById('overview-data').textContent).events.series")
    assert sum(events["promoted"]) >= 1 and sum(events["deleted"]) >= 1
    screenshot(tab, "overview", tmp_path)

    tab.goto(seeded.url("/ui/memories"))
    assert tab.locator("tr.memory-row").count() >= 5  # 4 facts + the exchange (+ book chunks)
    screenshot(tab, "memories", tmp_path)

    tab.goto(seeded.url(f"/ui/memories/{fact_id}"))
    assert tab.locator("[data-testid='content']").inner_text() == FACTS[0]
    assert tab.locator("#outcome-timeline li").count() >= 1  # the session scored it "worked"
    assert tab.locator("#injected-turns tbody tr").count() >= 1
    screenshot(tab, "memory", tmp_path)
    tab.goto(seeded.url(f"/ui/memories/{seeded.exchange_id}"))  # a working memory: no memory_bank attributes
    assert tab.locator("[data-testid='content']").inner_text().startswith("User: how do I deploy")

    tab.goto(seeded.url("/ui/sessions"))
    assert SESSION in tab.locator("#sessions").inner_text()
    tab.goto(seeded.url("/ui/session", id=SESSION))
    assert tab.locator("section.turn").count() == 2
    assert tab.locator("section.turn").first.locator("[data-testid='turn-outcome']").inner_text() == "worked"
    screenshot(tab, "session", tmp_path)

    tab.goto(seeded.url("/ui/graph"))
    tab.wait_for_selector("#graph:not([data-rendered='0'])")  # selector waits: the pages' CSP forbids eval
    screenshot(tab, "graph", tmp_path)

    tab.goto(seeded.url("/ui/books"))
    assert "Ledger runbook" in tab.locator("#books").inner_text()
    screenshot(tab, "books", tmp_path)
    _no_trouble(page)


def test_search_edit_archive_and_restore(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    target = FACTS[2]
    tab.goto(seeded.url("/ui/memories"))
    tab.fill("input[name='q']", "which test framework does the user like")
    tab.select_option("select[name='collection']", "memory_bank")
    tab.wait_for_selector("[data-testid='total']:has-text('which test framework')")
    first = tab.locator("tr.memory-row").first
    assert first.get_attribute("data-id") == seeded.facts[target]
    assert "q=which%20test%20framework" in tab.url  # the search is in the address, so it can be shared
    # A query typed into the browsed list (recent first) ranks by relevance: the form sends the default sort,
    # not the browse order it showed.
    assert "sort=recency" not in tab.url

    first.locator("a.memory-link").click()
    tab.wait_for_url(re.compile(r"/ui/memories/memory_bank_"))
    edited = target + " (checked in review)"
    assert not tab.locator("textarea[name='content']").is_visible()  # the editor opens on request only
    tab.click("[data-testid='edit']")
    tab.fill("textarea[name='content']", edited)
    tab.fill("input[name='tags']", "ledger, testing")
    tab.click("button[name='save']")
    tab.wait_for_selector("p.ok:has-text('Saved.')")
    assert tab.locator("[data-testid='content']").inner_text() == edited
    assert SearchOut.model_validate(
        seeded.live.post("/api/search", {"id": seeded.facts[target], "cwd": seeded.cwd})
    ).memories[0].tags == [
        "ledger",
        "testing",
    ]

    tab.click("button.archive")
    tab.wait_for_selector("[data-testid='archived-badge']")
    assert tab.locator("#memory").get_attribute("data-archived") == "true"
    hits = SearchOut.model_validate(
        seeded.live.post("/api/search", {"query": "test framework the user prefers", "cwd": seeded.cwd})
    ).memories
    assert seeded.facts[target] not in [m.id for m in hits]  # archived: no longer surfaces

    tab.click("button.restore")
    tab.wait_for_selector("#memory[data-archived='false']")
    assert tab.locator("[data-testid='archived-badge']").count() == 0
    hits = SearchOut.model_validate(
        seeded.live.post("/api/search", {"query": "test framework the user prefers", "cwd": seeded.cwd})
    ).memories
    assert seeded.facts[target] in [m.id for m in hits]
    _no_trouble(page)


def test_follow_a_memory_from_a_session_turn(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/sessions"))
    tab.click(f"a.session-link:has-text('{SESSION}')")
    turn = tab.locator("section.turn").first
    assert "how do I deploy the ledger service?" in turn.locator("pre.prompt").inner_text()
    links = turn.locator("a.injected-link")
    assert links.count() == len(seeded.injected)
    rows = turn.locator("li.injected-memory")
    assert rows.first.locator(".rank").inner_text() == "1"
    assert "worked" in rows.first.inner_text()  # the outcome it got afterwards
    links.first.click()
    tab.wait_for_url(re.compile(rf"/ui/memories/{re.escape(seeded.injected[0])}"))
    assert tab.locator("#memory").get_attribute("data-id") == seeded.injected[0]
    _no_trouble(page)


def test_the_graph_renders_nodes(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/graph"))
    tab.wait_for_selector("#graph:not([data-rendered='0'])")  # selector waits: the pages' CSP forbids eval
    kinds = tab.evaluate("window.mnemexGraph.nodes().map(n => n.data('kind'))")
    assert len(kinds) >= 3
    assert "collection" in kinds and "concept" in kinds  # routing learned from the scored session
    assert tab.evaluate("window.mnemexGraph.edges().length") >= 1
    facts = tab.evaluate("window.mnemexGraph.nodes('[kind = \"fact\"]').map(n => n.data('label'))")
    assert facts and all(not label.startswith("memory_bank_") for label in facts)  # labelled with their text
    assert any(label.startswith("The ledger service") for label in facts)
    _no_trouble(page)


def test_book_upload_reports_progress_and_remove(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    tab = page.page
    book = tmp_path / "notes.md"
    book.write_text("# Release notes\n\n" + "The ledger ships on Tuesdays after the freeze.\n" * 200)
    tab.goto(seeded.url("/ui/books"))
    tab.set_input_files("input[name='file']", str(book))
    tab.fill("input[name='title']", "Release notes")
    tab.click("#upload button[type='submit']")
    tab.wait_for_selector("#upload[data-done='true']")
    assert tab.locator("#upload-status").inner_text().startswith("Stored Release notes")
    assert tab.evaluate("document.getElementById('upload-progress').value") == 100
    tab.wait_for_selector("#books tr[data-title='Release notes']")
    tab.locator("#books tr[data-title='Release notes'] button.remove").click()  # dismissed: nothing removed
    assert tab.locator("#books tr[data-title='Release notes']").count() == 1
    page.accept_confirm = True
    tab.locator("#books tr[data-title='Release notes'] button.remove").click()
    tab.wait_for_selector("p.ok:has-text('Removed')")
    assert tab.locator("#books tr[data-title='Release notes']").count() == 0
    assert len(page.dialogs) == 2 and all("Remove the book “Release notes”" in d for d in page.dialogs)
    no_trouble(page, dialogs=tuple(page.dialogs))


def test_memories_page_through_another_project(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    work = tmp_path / "paging"
    (work / ".git").mkdir(parents=True)
    for i in range(23):
        seeded.live.post(
            # "never" keeps the facts apart: a fact with a negation gets no (entity, attribute) key, so none
            # supersedes another (services/memory/domain/fact_keys.py)
            "/api/memory-bank/add",
            {"content": f"Paging fact {i:02d} was never about service {i * 37 % 101}", "cwd": str(work)},
        )
    project = projects.resolve(str(work), seeded.live.home)
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/memories?project={project}&collection=memory_bank&sort=recency")
    facts = tab.locator("tr.memory-row", has_text="Paging fact")
    assert facts.count() == 20
    assert "page 1 of 2" in tab.locator("[data-testid='total']").inner_text()
    first = {t.strip() for t in facts.locator("a.memory-link").all_inner_texts()}
    tab.click("a[rel='next']")
    tab.wait_for_selector("[data-testid='total']:has-text('page 2 of 2')")
    assert "page=2" in tab.url
    second = {t.strip() for t in facts.locator("a.memory-link").all_inner_texts()}
    assert len(first) == 20 and len(second) == 3 and not first & second  # every fact once, across the pages
    assert {t.split(" was never")[0] for t in first | second} == {f"Paging fact {i:02d}" for i in range(23)}
    assert tab.locator("#project-switch select[name='project']").input_value() == project
    _no_trouble(page)
