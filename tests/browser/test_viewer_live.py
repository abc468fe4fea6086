"""Issue 38 (1, 9) in a real headless Chromium: the live activity feed (server-sent events) shows a prompt
driven through the hooks within 2 s, the sessions list and the open session page update themselves
without moving keyboard focus, and sessions imported with backfill are listed with an "imported" badge."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import httpx
from playwright.sync_api import expect

from gateway.user_tokens import add_token
from kernel import projects
from tests.integration.gateway.live_stack import _serve_gateway
from tests.support.browser import Seeded, Watched, no_trouble, screenshot
from tests.support.loop_thread import LoopThread

FEED_WITHIN_S = 2.0


def _project(seeded: Seeded, root: Path, name: str) -> tuple[str, str]:
    work = root / name
    (work / ".git").mkdir(parents=True)
    cwd = str(work)
    seeded.live.post("/api/memory-bank/add", {"content": f"The {name} service deploys with Helm", "cwd": cwd})
    return projects.resolve(cwd, seeded.live.home), cwd


def test_the_feed_shows_a_prompt_driven_through_the_hooks_within_2_s(
    seeded: Seeded, page: Watched, tmp_path: Path
) -> None:
    name, cwd = _project(seeded, tmp_path, "feedproj")
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/sessions?project={name}")
    expect(tab.locator("#live-status")).to_have_attribute("data-state", "live")
    prompt = "How do I deploy the feedproj service? <img src=x onerror=\"window.__pwned='feed'\">"
    sent = time.perf_counter()
    seeded.live.post("/api/hooks/get-context", {"session_id": "feed-1", "prompt": prompt, "cwd": cwd})
    item = tab.locator("#activity li[data-kind='prompt']")
    expect(item).to_have_count(1, timeout=FEED_WITHIN_S * 1000)
    assert time.perf_counter() - sent <= FEED_WITHIN_S
    assert prompt in item.inner_text()  # shown as text, never markup
    assert "Helm" in item.locator("ul").inner_text()  # what was injected
    assert "relevance" in item.inner_text() and "tokens" in item.inner_text()
    seeded.live.post("/api/hooks/stop", {"session_id": "feed-1", "cwd": cwd, "assistant_text": "Use Helm."})
    expect(tab.locator("#activity li[data-kind='stored']")).to_have_count(1, timeout=FEED_WITHIN_S * 1000)
    seeded.live.post("/api/hooks/get-context", {"session_id": "feed-1", "prompt": "thanks", "cwd": cwd})
    seeded.live.post("/api/record-outcome", {"session_id": "feed-1", "cwd": cwd, "outcome": "worked"})
    scored = tab.locator("#activity li[data-kind='scored']")
    expect(scored).to_have_count(1, timeout=FEED_WITHIN_S * 1000)
    assert "worked" in scored.inner_text()
    _, other_cwd = _project(seeded, tmp_path, "elsewhere")  # another project's prompt stays out
    seeded.live.post("/api/hooks/get-context", {"session_id": "else-1", "prompt": "other", "cwd": other_cwd})
    expect(tab.locator("#sessions tr[data-session='feed-1']")).to_have_count(1)
    assert tab.locator("#activity li[data-session='else-1']").count() == 0
    assert page.pwned() is None
    screenshot(tab, "live", tmp_path)
    no_trouble(page)


def test_the_sessions_list_updates_without_moving_focus(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    name, cwd = _project(seeded, tmp_path, "focusproj")
    seeded.live.post("/api/hooks/turn-start", {"session_id": "focus-1", "prompt": "first one", "cwd": cwd})
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/sessions?project={name}")
    expect(tab.locator("#live-status")).to_have_attribute("data-state", "live")
    tab.locator("#sessions tr[data-session='focus-1'] a.session-link").focus()
    seeded.live.post("/api/hooks/turn-start", {"session_id": "focus-2", "prompt": "second one", "cwd": cwd})
    expect(tab.locator("#sessions tr[data-session='focus-2']")).to_have_count(1, timeout=4_000)  # before the poll
    focused = "() => document.activeElement.closest('tr') && document.activeElement.closest('tr').dataset.session"
    assert tab.evaluate(focused) == "focus-1"
    tab.wait_for_timeout(5_500)  # a poll too
    assert tab.evaluate(focused) == "focus-1"
    no_trouble(page)


def test_the_open_session_page_updates_itself_without_moving_focus(
    seeded: Seeded, page: Watched, tmp_path: Path
) -> None:
    name, cwd = _project(seeded, tmp_path, "sessionproj")
    turn = {"session_id": "open-1", "cwd": cwd}
    seeded.live.post("/api/hooks/get-context", {**turn, "prompt": "How does sessionproj deploy?"})
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/session?project={name}&id=open-1")
    assert tab.locator("section.turn[data-turn]").count() == 1
    tab.wait_for_timeout(300)  # the feed connects
    first = tab.locator("section.turn[data-turn] a[href], section.turn[data-turn] summary").first
    first.focus()
    before = tab.evaluate("() => document.activeElement.outerHTML")
    seeded.live.post("/api/hooks/stop", {**turn, "assistant_text": "With Helm, from the blue cluster."})
    seeded.live.post("/api/hooks/get-context", {**turn, "prompt": "And how do I roll it back?"})
    expect(tab.locator("section.turn[data-turn]")).to_have_count(2, timeout=4_000)  # no reload
    expect(tab.locator("main")).to_contain_text("roll it back")
    assert tab.evaluate("() => document.activeElement.outerHTML") == before
    assert tab.evaluate("() => document.activeElement !== document.body")
    no_trouble(page)


def test_backfilled_sessions_are_listed_with_an_imported_badge(seeded: Seeded, page: Watched, tmp_path: Path) -> None:
    name, cwd = _project(seeded, tmp_path, "importproj")
    exchange = {
        "client": "claude",
        "session_id": "imported-1",
        "cwd": cwd,
        "started_at": "2026-01-05T10:00:00+00:00",
        "user_text": "Why does the importproj build fail on <b>arm64</b>?",
        "assistant_text": "The wheel cache was built for x86_64; clear it.",
    }
    seeded.live.post("/api/backfill", {"exchanges": [{**exchange, "source_id": "a-1"}]})
    later = {**exchange, "source_id": "a-2", "started_at": "2026-01-05T10:05:00+00:00", "user_text": "And now?"}
    seeded.live.post("/api/backfill", {"exchanges": [later]})
    seeded.live.post("/api/hooks/turn-start", {"session_id": "live-1", "prompt": "a live one", "cwd": cwd})
    tab = page.page
    tab.goto(f"{seeded.live.url}/ui/sessions?project={name}")
    row = tab.locator("#sessions tr[data-session='imported-1']")
    expect(row).to_have_count(1)
    assert row.locator("[data-testid='session-imported']").inner_text() == "imported"
    assert "Why does the importproj build fail on <b>arm64</b>?" in row.inner_text()  # its first prompt
    assert row.locator("td.num").inner_text() == "2"
    live = tab.locator("#sessions tr[data-session='live-1']")
    assert live.locator("[data-testid='session-imported']").count() == 0
    row.locator("a.session-link").click()
    tab.wait_for_url(lambda u: "id=imported-1" in u)
    assert tab.locator("section.imported-exchange").count() == 2
    assert "wheel cache" in tab.locator("main").inner_text()
    assert tab.locator("h1 [data-testid='session-imported']").count() == 1
    no_trouble(page)


def test_the_feed_needs_the_viewers_sign_in(seeded: Seeded, loop_thread: LoopThread) -> None:
    settings = dataclasses.replace(seeded.live.settings, token="live-" + "t0k3n" * 8)
    stop, url = loop_thread.run(_serve_gateway(settings))
    try:
        reply = httpx.get(f"{url}/ui/live/events?project={seeded.project}", timeout=10)
        assert reply.status_code == 303 and "/ui/login" in reply.headers["location"]
    finally:
        loop_thread.run(stop())


def test_a_user_tokens_feed_carries_only_that_users_prompts(
    seeded: Seeded, loop_thread: LoopThread, page: Watched, tmp_path: Path
) -> None:
    tokens_file = tmp_path / "user_tokens"
    tokens = {user: add_token(tokens_file, user) for user in ("alice", "bob")}
    settings = dataclasses.replace(seeded.live.settings, token="operator-" + "t0k3n" * 8, user_tokens_file=tokens_file)
    stop, url = loop_thread.run(_serve_gateway(settings))
    cwd = str(tmp_path / "work" / "shared-repo")  # both users' machines have a repo at this path
    name = projects.resolve_remote(cwd, settings.home)

    def prompt(user: str, text: str) -> None:
        headers = {"Authorization": f"Bearer {tokens[user]}"}
        body = {"session_id": f"{user}-1", "prompt": text, "cwd": cwd}
        httpx.post(f"{url}/api/hooks/get-context", json=body, headers=headers, timeout=30).raise_for_status()

    try:
        tab = page.page
        tab.goto(f"{url}/ui/login?next=/ui/sessions%3Fproject%3D{name}")
        tab.fill("input[name='token']", tokens["alice"])
        tab.click("button[type='submit']")
        tab.wait_for_url(lambda u: "/ui/sessions" in u)
        expect(tab.locator("#live-status")).to_have_attribute("data-state", "live")
        prompt("bob", "bob's private question")
        prompt("alice", "alice's own question")
        expect(tab.locator("#activity li[data-session='alice-1']")).to_have_count(1, timeout=FEED_WITHIN_S * 1000)
        assert tab.locator("#activity li[data-session='bob-1']").count() == 0
        assert "bob's private" not in tab.locator("#live").inner_text()
        no_trouble(page)
    finally:
        loop_thread.run(stop())
