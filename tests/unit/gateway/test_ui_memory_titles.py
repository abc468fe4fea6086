"""Readable memories and why a turn showed them (issue 38): titles, kinds and sentences, no model, no server."""

from __future__ import annotations

from gateway.ui import injection_story, memory_titles, ui_display


def memory(content: str, collection: str = "working", **more: object) -> dict[str, object]:
    return {"id": "m1", "content": content, "collection": collection, "metadata": {}, "project": "shop", **more}


def test_an_exchange_is_titled_by_its_question_and_summed_up_by_its_first_useful_answer_sentence() -> None:
    label = memory_titles.label_of(
        memory(
            "User: How do I see the alembic heads? There are two.\nAssistant: Sure. Run `alembic heads`. Then merge."
        )
    )
    assert label.title == "How do I see the alembic heads?"
    assert label.gist == "Run `alembic heads`."
    assert label.kind == "note" and label.outcome == "not scored yet" and label.scope == "shop"


def test_kinds_come_from_cues_in_a_fixed_order() -> None:
    def kind(content: str, collection: str = "working", **more: object) -> str:
        return memory_titles.label_of(memory(content, collection, **more)).kind

    assert kind("The flaky test was fixed by pinning the seed.") == "bug fix"
    assert kind("We decided to keep Postgres 15.") == "decision"
    assert kind("Let's use uv for installs.") == "decision"
    assert kind("The user prefers tabs.", "memory_bank") == "preference"
    assert kind("The API runs on port 8080.", "memory_bank") == "fact"
    assert kind("The fix was a retry.", failed_count=2, worked_count=0) == "failed attempt"
    assert kind("Chapter one.", "books") == "book passage"
    assert kind("pytest passed", metadata={"type": "observation"}) == "tool run"
    assert kind("User: hi there friend\nAssistant: hello", metadata={"kind": "exchange"}) == "conversation"


def test_titles_are_clipped_at_a_word_and_outcomes_are_words() -> None:
    label = memory_titles.label_of(memory("word " * 60, worked_count=2, failed_count=1, project=""))
    assert len(label.title) <= memory_titles.TITLE_CHARS and label.title.endswith("word…")
    assert label.outcome == "worked twice, failed once"
    assert label.scope == "every project"
    assert memory_titles.label_of(memory("")).title == "(empty)"


def test_keys_and_values_read_as_words() -> None:
    assert memory_titles.key_name("session_id") == "session"
    assert memory_titles.key_name("source_file") == "source file"
    assert memory_titles.collection_name("memory_bank") == "memory bank"
    assert "ago" in str(ui_display.plain_value("2026-11-24T12:00:00+00:00"))
    assert str(ui_display.plain_value(True)) == "yes"
    assert str(ui_display.plain_value("<b>")) == "&lt;b&gt;"


def test_one_sentence_says_why_a_memory_was_shown() -> None:
    shown = memory("Run alembic heads before merging migrations.", worked_count=2)
    choice = {"relevance": 0.61, "parts": {"kg_linked": False}, "merged_ids": []}
    said = injection_story.why_shown("what are the alembic heads now?", shown, choice)
    assert said == "Shown because it matched 'alembic' 'heads' and worked twice."
    assert injection_story.why_shown("zebra", shown | {"worked_count": 0}, choice) == (
        "Shown because it is close in meaning to the prompt, not scored yet."
    )
    assert "no longer stored" in injection_story.why_shown("x", None, None)
    assert injection_story.relevance_of(choice) == 0.61 and injection_story.relevance_of(None) is None


def test_the_floor_in_force_and_the_reasons_left_out() -> None:
    below = {"id": "a", "reason": "below relevance floor (0.10 < 0.32)", "relevance": 0.1}
    assert injection_story.floor_of([below]) == 0.32
    assert injection_story.floor_of([{"relevance": 0.8}]) == 0.32  # 0.4 x the best
    assert injection_story.floor_of([{"relevance": 0.2}]) == 0.15  # never under 0.15
    assert injection_story.floor_of([]) is None
    negative = {"reason": "below relevance floor (-0.07 < 0.31)"}
    assert injection_story.left_out_reason(negative, {}) == "below the relevance floor (-0.07 < 0.31)"
    assert injection_story.left_out_reason(below, {}) == "below the relevance floor (0.10 < 0.32)"
    copy = {"reason": "duplicate of working_1", "merged_ids": ["working_1"]}
    assert injection_story.left_out_reason(copy, {"working_1": "Alembic heads"}) == "says the same as “Alembic heads”"
    assert injection_story.left_out_reason({"reason": "current session"}, {}).startswith("from this same session")
