"""The viewer explains what it holds: the kind filter on the memories page, and each turn's "why" parts."""

from __future__ import annotations

from pathlib import Path

from gateway.reply_models import ContextOut, StopOut
from tests.support.browser import FACTS, Seeded, Watched, no_trouble, screenshot


def _kinds_shown(page: Watched) -> list[str]:
    return [k.strip() for k in page.page.locator("[data-testid='kind']").all_inner_texts()]


def test_the_kind_filter_narrows_the_memories_list(seeded: Seeded, page: Watched) -> None:
    tab = page.page
    tab.goto(seeded.url("/ui/memories"))
    every = _kinds_shown(page)
    assert {"fact", "exchange", "book chunk"} <= set(every)

    tab.select_option("select[name='kind']", "fact")
    tab.wait_for_url("**kind=fact**")
    tab.wait_for_function("[...document.querySelectorAll('[data-testid=kind]')].every(e => e.textContent === 'fact')")
    assert _kinds_shown(page) == ["fact"] * (len(FACTS) + 1)  # the three facts and the hostile one
    assert tab.locator("[data-testid='total']").inner_text().startswith(f"{len(FACTS) + 1} memories")

    tab.select_option("select[name='kind']", "book")
    tab.wait_for_url("**kind=book**")
    tab.wait_for_function(
        "[...document.querySelectorAll('[data-testid=kind]')].every(e => e.textContent === 'book chunk')"
    )
    assert set(_kinds_shown(page)) == {"book chunk"}

    tab.goto(seeded.url("/ui/memories", kind="exchange", q="ledger deploy"))  # the search path filters too
    assert tab.locator("select[name='kind']").input_value() == "exchange"
    assert set(_kinds_shown(page)) <= {"exchange"}
    no_trouble(page)


def test_a_turn_shows_the_rank_parts_get_context_returned_and_the_answer(
    seeded: Seeded, page: Watched, tmp_path: Path
) -> None:
    session = "viewer-why-session"
    live = seeded.live
    reply = ContextOut.model_validate(
        live.post(
            "/api/hooks/get-context",
            {"session_id": session, "prompt": "where do the parser's integration tests live?", "cwd": seeded.cwd},
        )
    )
    kept = [c for c in reply.choices if c.kept]
    assert kept and all(c.parts is not None for c in kept)
    answer = "They live in tests/parser; install the fixtures extra first. <b>bold?</b>"
    live.post("/api/hooks/stop", {"session_id": session, "cwd": seeded.cwd, "assistant_text": answer})

    tab = page.page
    tab.goto(seeded.url("/ui/session", id=session))
    shown = tab.locator("[data-testid='rank-parts']")
    assert shown.count() == len(kept)
    for choice in kept:
        parts = tab.locator(f"[data-testid='rank-parts'][data-id='{choice.id}'] [data-part]")
        on_page = {p.get_attribute("data-part"): p.get_attribute("data-value") for p in parts.all()}
        expected = choice.parts
        assert expected is not None
        assert on_page.pop("kg_linked") == str(expected.kg_linked)
        assert {k: float(v or "nan") for k, v in on_page.items()} == {
            k: v for k, v in expected.model_dump().items() if k != "kg_linked"
        }
        assert 0.0 < expected.dense <= 1.0 and expected.final > 0.0

    details = tab.locator("[data-testid='answer']")
    assert details.count() == 1 and details.get_attribute("open") is not None  # shown, not collapsed
    assert tab.locator("[data-testid='answer'] .answer-text").inner_text() == answer  # as text, not markup
    assert not shown.first.is_visible()  # the rank parts wait behind "How it ranked"
    tab.locator("details.rank-details summary").first.click()
    assert shown.first.is_visible()
    screenshot(tab, "session-why", tmp_path)
    no_trouble(page)


def test_the_client_that_wrote_and_read_a_memory_is_shown(seeded: Seeded, page: Watched) -> None:
    live = seeded.live
    prompt = {"prompt": "how is the ledger service deployed?", "cwd": seeded.cwd}
    read = ContextOut.model_validate(
        live.post("/api/hooks/get-context", {**prompt, "session_id": "viewer-client-claude", "client": "claude"})
    )
    fact_id = seeded.facts[FACTS[0]]
    assert fact_id in [m.id for m in read.memories]
    wrote = StopOut.model_validate(
        live.post(
            "/api/hooks/stop",
            {"session_id": "viewer-client-claude", "cwd": seeded.cwd, "assistant_text": "Helm.", "client": "claude"},
        )
    )
    live.post(
        "/api/hooks/turn-start",
        {"session_id": "viewer-client-cursor", "cwd": seeded.cwd, "prompt": "and rollbacks?", "client": "cursor"},
    )
    live.post(
        "/api/hooks/stop",
        {"session_id": "viewer-client-cursor", "cwd": seeded.cwd, "assistant_text": "rollback", "client": "cursor"},
    )

    tab = page.page
    tab.goto(seeded.url("/ui/sessions"))
    row = "#sessions tr[data-session='{}'] [data-testid='session-client']"
    assert tab.locator(row.format("viewer-client-claude")).all_inner_texts() == ["Claude Code"]
    assert tab.locator(row.format("viewer-client-cursor")).all_inner_texts() == ["Cursor"]
    tab.goto(seeded.url("/ui/session", id="viewer-client-cursor"))
    assert tab.locator("[data-testid='turn-client']").all_inner_texts() == ["Cursor"]
    tab.goto(seeded.url(f"/ui/memories/{wrote.exchange_id}"))
    assert tab.locator("[data-testid='written-by']").inner_text() == "Claude Code"
    tab.goto(seeded.url(f"/ui/memories/{fact_id}"))
    assert "Claude Code" in tab.locator("[data-testid='read-by']").all_inner_texts()
    no_trouble(page)


def test_an_unknown_client_name_is_refused_with_the_known_ones(seeded: Seeded) -> None:
    refused = seeded.live.post(
        "/api/hooks/get-context",
        {"session_id": "s", "prompt": "hi", "cwd": seeded.cwd, "client": "vim"},
        expect=422,
    )
    assert "opencode" in str(refused)
