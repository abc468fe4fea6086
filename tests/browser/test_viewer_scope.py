"""Issue 38 points 4 and 5 in a real headless Chromium: a search says how many memories are relevant (or
that none is), and a project's pages never show or count another project's facts; user-wide facts are
marked, project names are folder names, and switching project keeps the search and filters."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from playwright.sync_api import Page

from gateway.reply_models import SearchOut, StoredFactOut
from gateway.ui.project_scope import user_wide
from kernel import projects
from tests.support.browser import FACTS, Seeded, Watched, no_trouble

FOREIGN = "The orchard service pins its tangerine cache to forty seconds"
USER_WIDE = "The user writes commit messages in the imperative mood"


@dataclass(frozen=True)
class Orchard:
    project: str
    fact_id: str  # its own fact (FOREIGN)


@pytest.fixture(scope="module")
def orchard(seeded: Seeded, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Orchard]:
    """Another project with one exchange and one fact of its own, and one user-wide fact stated there.

    Both facts are archived afterwards: the seeded stack is shared, and a user-wide fact left behind would
    count on every project's pages (test_viewer_pages counts the seeded project's facts)."""
    work = tmp_path_factory.mktemp("scope") / "orchard"
    (work / ".git").mkdir(parents=True)
    cwd = str(work)
    foreign = StoredFactOut.model_validate(
        seeded.live.post("/api/memory-bank/add", {"content": FOREIGN, "cwd": cwd, "tags": ["ledger"]})
    )
    turn = {"session_id": "orchard-1", "cwd": cwd}
    seeded.live.post("/api/hooks/turn-start", {**turn, "prompt": "Where do the orchard pickers log in?"})
    seeded.live.post("/api/hooks/stop", {**turn, "assistant_text": "At the packing shed kiosk."})
    user_wide = StoredFactOut.model_validate(
        seeded.live.post("/api/memory-bank/add", {"content": USER_WIDE, "cwd": cwd, "user_wide": True})
    )
    try:
        yield Orchard(projects.resolve(cwd, seeded.live.home), foreign.memory.id)
    finally:
        for added in (user_wide, foreign):
            archive = {"id": added.memory.id, "cwd": cwd, "reason": "test_viewer_scope is done"}
            seeded.live.post("/api/memory-bank/archive", archive)


def _count(tab: Page, name: str) -> int:
    return int(tab.locator(f"[data-testid='count-{name}']").inner_text())


def test_nonsense_search_says_no_relevant_memory(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/memories", q="zebra saxophone quantum"))
    assert tab.locator("[data-testid='total']").inner_text().startswith("no relevant memory for")
    assert tab.locator("[data-testid='no-relevant']").is_visible()
    assert tab.locator("tr.memory-row").count() == 0
    assert tab.locator("[data-testid='capped']").count() == 0
    # A real query says how many are relevant: the REST search's own count, of those that hold in this project.
    tab.goto(seeded.url("/ui/memories", q="ledger helm", collection="memory_bank"))
    found = SearchOut.model_validate(
        seeded.live.post(
            "/api/search", {"query": "ledger helm", "cwd": seeded.cwd, "collections": ["memory_bank"], "limit": 100}
        )
    )
    assert found.relevant == len(found.memories)
    # less other projects' facts (a memory_bank hit holds here: user-wide, or this project's)
    relevant = len([m for m in found.memories if user_wide(m.model_dump()) or m.project == seeded.project])
    assert relevant
    total = tab.locator("[data-testid='total']").inner_text()
    assert total.startswith(f"{relevant} relevant for “ledger helm”"), total
    assert tab.locator("tr.memory-row").count() == min(20, relevant)
    # A kind filter says how many of the relevant ones pass it, never a second, contradicting count.
    tab.goto(seeded.url("/ui/memories", q="ledger helm", kind="exchange"))
    total = tab.locator("[data-testid='total']").inner_text()
    rows = tab.locator("tr.memory-row").count()
    assert total.startswith(f"{rows} of ") and "relevant for “ledger helm” pass" in total, total
    no_trouble(page)


def test_a_project_page_never_shows_another_projects_fact(seeded: Seeded, page: Watched, orchard: Orchard) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui"))
    own = _count(tab, "memory_bank")
    tab.goto(seeded.url("/ui/memories", collection="memory_bank"))
    listed = tab.locator("#results").inner_text()
    assert FOREIGN not in listed and USER_WIDE in listed
    assert tab.locator("[data-testid='total']").inner_text().startswith(f"{own} memories")
    assert tab.locator("tr.memory-row").count() == own
    row = tab.locator("tr.memory-row", has_text=USER_WIDE)
    assert row.locator("[data-testid='user-wide']").inner_text() == "user-wide"
    assert tab.locator("tr.memory-row", has_text=FACTS[0]).locator("[data-testid='user-wide']").count() == 0
    tab.goto(seeded.url("/ui/memories", tag="ledger"))  # a tag both projects' facts carry
    assert FOREIGN not in tab.locator("#results").inner_text()
    tab.goto(seeded.url("/ui/memories", q="orchard tangerine cache seconds"))
    assert FOREIGN not in tab.locator("#results").inner_text()
    # Its own project shows it, and counts it.
    tab.goto(f"{seeded.live.url}/ui?project={orchard.project}")
    assert _count(tab, "memory_bank") == 2  # its fact and the user-wide one
    tab.goto(f"{seeded.live.url}/ui/memories?project={orchard.project}&q=orchard+tangerine+cache+seconds")
    assert FOREIGN in tab.locator("#results").inner_text()
    # The graph: the fact is a node of its own project's graph only.
    tab.goto(seeded.url("/ui/graph"))
    assert orchard.fact_id not in (tab.locator("#graph-data").text_content() or "")
    tab.goto(f"{seeded.live.url}/ui/graph?project={orchard.project}")
    assert orchard.fact_id in (tab.locator("#graph-data").text_content() or "")
    # All projects: each fact counts on its project's row, user-wide ones on their own row.
    tab.goto(f"{seeded.live.url}/ui/projects")
    names = tab.locator("#projects a.project-link").all_inner_texts()
    assert "orchard" in names and "ledger" in names  # folder names, not ids
    assert tab.locator("#projects a.project-link", has_text="orchard").get_attribute("title") == orchard.project
    assert tab.locator("[data-testid='user-wide-row']").count() == 1
    no_trouble(page)


def test_switching_project_keeps_the_search_and_filters(seeded: Seeded, page: Watched, orchard: Orchard) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/memories"))
    tab.fill("input[name='q']", "orchard tangerine cache")
    tab.select_option("select[name='collection']", "memory_bank")
    tab.wait_for_selector("[data-testid='total']:has-text('orchard tangerine cache')")
    tab.select_option("#project-switch select[name='project']", orchard.project)
    tab.wait_for_url(lambda u: f"project={orchard.project}" in u)
    assert "q=orchard+tangerine+cache" in tab.url and "collection=memory_bank" in tab.url
    assert tab.locator("input[name='q']").input_value() == "orchard tangerine cache"
    assert FOREIGN in tab.locator("#results").inner_text()
    no_trouble(page)
