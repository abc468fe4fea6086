"""Browser tests: the real stack (tests/integration/gateway/live_stack.py) and Debian's headless Chromium,
driven by Playwright's Python API (``executable_path``: Playwright's own browser download is not used).

``scripts/install.sh --dev`` installs ``chromium`` when it is missing. The stack is seeded once
per session through the public API: memory_bank facts (one of them hostile), a scored session,
and a book. The fixtures are here; the helpers and constants the tests share are in tests/support/browser.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page

from gateway.reply_models import (
    ContextOut,
    IngestOut,
    ScoreOut,
    SearchOut,
    StopOut,
    StoredFactOut,
)
from kernel import projects
from tests.integration.gateway.live_stack import LiveStack, _serve_gateway, start_live_stack
from tests.support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    FACTS,
    GRAPH_DRAWN,
    HOSTILE,
    HOSTILE_TITLE,
    SESSION,
    TOUR_TOKEN,
    Seeded,
    Stop,
    Tour,
    Watched,
)
from tests.support.loop_thread import LoopThread


def _seed(live: LiveStack, root: Path) -> Seeded:
    work = root / "ledger"
    (work / ".git").mkdir(parents=True)
    cwd = str(work)
    seeded = Seeded(live, projects.resolve(cwd, live.home), cwd)
    for content in FACTS:
        added = live.post_as(
            "/api/memory-bank/add", {"content": content, "cwd": cwd, "tags": ["ledger"]}, StoredFactOut
        )
        seeded.facts[content] = added.memory.id
    hostile = live.post_as(
        "/api/memory-bank/add", {"content": HOSTILE, "cwd": cwd, "tags": ["<b>hostile</b>"]}, StoredFactOut
    )
    seeded.hostile_id = hostile.memory.id
    first = live.post_as(
        "/api/hooks/get-context",
        {
            "session_id": SESSION,
            "prompt": "how do I deploy the ledger service? <script>window.__pwned='prompt'</script>",
            "cwd": cwd,
        },
        ContextOut,
    )
    seeded.injected = [m.id for m in first.memories]
    stopped = live.post_as(
        "/api/hooks/stop",
        {
            "session_id": SESSION,
            "cwd": cwd,
            "assistant_text": "Use Helm on the blue cluster. <img src=x onerror=\"window.__pwned='answer'\">",
        },
        StopOut,
    )
    seeded.exchange_id = stopped.exchange_id
    live.post_as(
        "/api/hooks/get-context", {"session_id": SESSION, "prompt": "thanks, that worked", "cwd": cwd}, ContextOut
    )
    live.post_as("/api/record-outcome", {"session_id": SESSION, "cwd": cwd, "outcome": "worked"}, ScoreOut)
    # Lifecycle events for the overview's chart: the first exchange earns a promotion, the second is deleted.
    only = {"session_id": SESSION, "cwd": cwd, "related": []}
    live.post_as(
        "/api/record-outcome", {**only, "outcome": "worked", "memory_scores": {seeded.exchange_id: "worked"}}, ScoreOut
    )
    second = live.post_as(
        "/api/hooks/stop", {"session_id": SESSION, "cwd": cwd, "assistant_text": "You're welcome."}, StopOut
    )
    live.post_as("/api/record-outcome", {"session_id": SESSION, "cwd": cwd, "outcome": "failed"}, ScoreOut)
    for _ in range(6):
        scored = live.post_as(
            "/api/record-outcome",
            {**only, "outcome": "failed", "memory_scores": {second.exchange_id: "failed"}},
            ScoreOut,
        )
        if scored.not_found or any(s.transition == "delete" for s in scored.scored):
            break
    live.post_as(
        "/api/ingest",
        {
            "title": "Ledger runbook",
            "filename": "runbook.md",
            "text": "# Ledger runbook\n\nRestart with helm rollback.\n" * 20,
            "cwd": cwd,
        },
        IngestOut,
    )
    live.post_as(
        "/api/ingest",
        {"title": HOSTILE_TITLE, "filename": "evil.txt", "text": "A book whose title is markup.", "cwd": cwd},
        IngestOut,
    )
    return seeded


@pytest.fixture(scope="session")
def seeded(loop_thread: LoopThread, embedding_addr: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    root = tmp_path_factory.mktemp("viewer")
    live = start_live_stack(loop_thread, embedding_addr, root / "home")
    try:
        yield _seed(live, root)
    finally:
        live.close()


# Package scope: Playwright's sync API keeps an event loop running in this thread while it is open, which
# would break every later test that calls asyncio.run(); it closes when the browser tests are done.
@pytest.fixture(scope="package")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: run `bash scripts/install.sh --dev` (it installs Debian's chromium) "
            "or set MNEMEX_CHROMIUM to a Chromium binary"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield instance
        instance.close()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Watched]:
    """A fresh browser context per test (its own cookies), with every dialog and page error recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    watched = Watched(tab, [], [])

    def on_dialog(dialog: Dialog) -> None:
        watched.dialogs.append(dialog.message)
        if dialog.type == "confirm" and watched.accept_confirm:
            dialog.accept()
        else:
            dialog.dismiss()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watched.console.append(f"{message.text} at {message.location.get('url', '')}")

    tab.on("dialog", on_dialog)
    tab.on("pageerror", lambda exc: watched.errors.append(str(exc)))
    tab.on("console", on_console)
    yield watched
    context.close()


def _wrong_token(tab: Page) -> None:
    tab.fill("input[name='token']", "not-the-token")
    tab.click("button[type='submit']")
    tab.wait_for_selector("p.error")


def _select_a_row(tab: Page) -> None:
    tab.locator("input[name='ids']").first.check()
    tab.wait_for_selector(".bulk-count:not(:empty)")


def _pick_a_node(tab: Page) -> None:
    """The graph's details panel, open on its first labelled node (when the page lists them)."""
    node = tab.locator("#graph-nodes button")
    if node.count():
        node.first.click()
        tab.wait_for_timeout(300)


def _tour_project(seeded: Seeded, root: Path) -> tuple[str, str, str]:
    """A project of its own for the live feed, an imported session and an archived fact (the seeded one stays
    as it is); (project id, cwd, the archived fact's id)."""
    work = root / "atlas"
    (work / ".git").mkdir(parents=True)
    cwd = str(work)
    seeded.live.post("/api/memory-bank/add", {"content": "The atlas service deploys with Helm", "cwd": cwd})
    old = StoredFactOut.model_validate(
        seeded.live.post("/api/memory-bank/add", {"content": "The atlas service deployed with Ansible", "cwd": cwd})
    )
    archived = old.memory.id
    seeded.live.post("/api/memory-bank/archive", {"id": archived, "cwd": cwd, "reason": "moved to Helm"})
    imported = {
        "client": "claude",
        "session_id": "tour-imported",
        "cwd": cwd,
        "source_id": "tour-1",
        "started_at": "2026-01-05T10:00:00+00:00",
        "user_text": "Why does the atlas build fail on arm64?",
        "assistant_text": "The wheel cache was built for x86_64; clear it and build again.",
    }
    seeded.live.post("/api/backfill", {"exchanges": [imported]})
    return projects.resolve(cwd, seeded.live.home), cwd, archived


@pytest.fixture(scope="package")
def tour(seeded: Seeded, loop_thread: LoopThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tour]:
    """Every viewer page, in the seeded project; the sign-in page comes from a second gateway with a token."""
    atlas, atlas_cwd, archived = _tour_project(seeded, tmp_path_factory.mktemp("tour"))
    books = SearchOut.model_validate(
        seeded.live.post("/api/search", {"query": "ledger runbook helm rollback", "cwd": seeded.cwd})
    )
    book_passage = next(m.id for m in books.memories if m.collection == "books")
    stop_gateway, guarded = loop_thread.run(_serve_gateway(dataclasses.replace(seeded.live.settings, token=TOUR_TOKEN)))
    base = seeded.live.url
    try:
        yield Tour(
            seeded.live,
            [
                Stop("overview", seeded.url("/ui")),
                Stop("projects", seeded.url("/ui/projects")),
                Stop("memories", seeded.url("/ui/memories")),
                Stop("search", seeded.url("/ui/memories", q="ledger helm deploy")),
                Stop("memory", seeded.url(f"/ui/memories/{seeded.facts[FACTS[0]]}")),
                Stop("live", f"{base}/ui/sessions?project={atlas}", feed_cwd=atlas_cwd),
                Stop("session", seeded.url("/ui/session", id=SESSION)),
                Stop("imported-session", f"{base}/ui/session?project={atlas}&id=tour-imported"),
                Stop("graph", seeded.url("/ui/graph"), ready=GRAPH_DRAWN),
                Stop("books", seeded.url("/ui/books")),
                Stop("preview", seeded.url("/ui/preview", prompt="how do I deploy the ledger service with helm?")),
                Stop("sign-in", f"{guarded}/ui/login?next=/ui"),
                Stop("error", seeded.url("/ui/memories/history_123456789012")),
                Stop("archived", f"{base}/ui/memories?project={atlas}&archived=all", pictured=False),
                Stop("archived-memory", f"{base}/ui/memories/{archived}?project={atlas}", pictured=False),
                Stop("graph-details", seeded.url("/ui/graph"), ready=GRAPH_DRAWN, pictured=False, act=_pick_a_node),
                Stop("selected", f"{base}/ui/memories?project={atlas}", pictured=False, act=_select_a_row),
                Stop("exchange", seeded.url(f"/ui/memories/{seeded.exchange_id}"), pictured=False),
                Stop("book-passage", seeded.url(f"/ui/memories/{book_passage}"), pictured=False),
                Stop("no-match", seeded.url("/ui/memories", q="zebra saxophone quantum"), pictured=False),
                Stop("no-preview", seeded.url("/ui/preview", prompt="zebra saxophone quantum"), pictured=False),
                Stop("empty-project", f"{base}/ui?project=fresh-start", pictured=False),
                Stop("wrong-token", f"{guarded}/ui/login?next=/ui", pictured=False, act=_wrong_token),
            ],
        )
    finally:
        loop_thread.run(stop_gateway())
