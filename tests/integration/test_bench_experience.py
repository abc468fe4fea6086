"""The experience benchmark's harness: its block reading and metrics on hand-made blocks, and one tiny run end to end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bench.experience import assistant, block, driver, metrics, scenario
from bench.experience.problems import CORS, LEDGER, POOL, PROJECTS, TIDEWATER
from bench.experience.record import Entry, Recurrence, Run, Seen

LOCAL_STATEMENT = "Under load the API stops answering and the logs say: sqlalchemy.exc.TimeoutError: QueuePool"
FOREIGN_STATEMENT = "The nightly loader dies halfway with 'ERROR: no more connections allowed (max_client_conn)'"
CHAT = "Rename post_entry to book_transfer in the invoices module and update the callers."
BLOCK = "\n".join(
    [
        "═══ KNOWN CONTEXT ═══",
        "Persistent memory (mnemex) recalled for this prompt.",
        "What worked before for this problem:",
        "• Closing them in the request dependency with `finally: db.close()` fixed it. [id:patterns_1] (worked 3 of 3)",
        "What failed before for this problem (avoid repeating it):",
        "• Applied `pool_size=50`; the check failed again: QueuePool limit [id:history_2] (failed once)",
        "Other memories:",
        f"• User: {CHAT} / Assistant: Renamed. [id:working_3] (now, unproven, working)",
        f"• User: {FOREIGN_STATEMENT} / Assistant: Applied `poolclass=NullPool`; passes [id:working_4] (now)",
        f"• User: {LOCAL_STATEMENT} limit of size 5 / Assistant: looking [id:working_5] (now)",
        "═══ END CONTEXT ═══",
    ]
)


def hand_made_run() -> tuple[Run, Recurrence]:
    run = Run("unit", 1, True)
    run.registry.add(LOCAL_STATEMENT, Entry(LEDGER, "ep-1", POOL.key, "prompt"))
    run.registry.add(FOREIGN_STATEMENT, Entry(TIDEWATER, "ep-2", POOL.key, "prompt"))
    run.registry.add(CHAT, Entry(LEDGER, "now", "", "prompt"))
    seen = Seen("recurrence", LEDGER, "now", POOL.key, BLOCK, {"working_3": ("now", "ledger-api-1234abcd")}, True)
    run.seen.append(seen)
    recurrence = Recurrence(
        POOL.key,
        LEDGER,
        True,
        1,
        True,
        "finally: db.close()",
        ["pool_size=50", "max_connections = 300"],
        True,
        ["poolclass=NullPool"],
        seen,
    )
    run.recurrences.append(recurrence)
    return run, recurrence


def test_sections_and_verdicts_are_read_from_the_text() -> None:
    shown = block.lines(BLOCK)
    assert [line.section for line in shown] == ["worked", "failed", "", "", ""]
    signatures = {fix.key: fix.signature for fix in POOL.fixes}
    assert block.fix_verdicts(shown[0], signatures) == {"close-session": "worked"}
    assert block.fix_verdicts(shown[1], signatures) == {"pool-size": "failed"}
    assert block.fix_verdicts(shown[3], signatures) == {"null-pool": "worked"}
    # the words next to a fix outrank the heading it sits under; a fix without such words takes the heading's
    misfiled = block.Line("• Applied `pool_size=50`; the check failed again [id:a]", "What worked before:", 0)
    assert block.fix_verdicts(misfiled, signatures) == {"pool-size": "failed"}
    bare = block.Line("• raise `pool_size=50` in app/db.py [id:b]", "What worked before:", 0)
    assert block.fix_verdicts(bare, signatures) == {"pool-size": "worked"}
    takeaway = block.Line(POOL.takeaway[TIDEWATER], "", 0)
    assert block.fix_verdicts(takeaway, signatures) == {"close-session": "failed", "null-pool": "worked"}


def test_the_assistant_applies_the_proven_fix_and_skips_failed_ones() -> None:
    reading = assistant.read(BLOCK, POOL, LEDGER, PROJECTS)
    assert reading.avoid == ["pool-size"]
    assert assistant.plan(reading, POOL)[0] == "close-session"
    # nothing shown: the fixed default order, which starts with a plausible wrong fix
    empty = assistant.read("", POOL, LEDGER, PROJECTS)
    assert assistant.plan(empty, POOL) == list(POOL.default_order)
    # a lesson labelled with another project is tried only after the fixes proven here
    labelled = "• `poolclass=NullPool` fixed it (project tidewater-etl) [id:x1]\n• `finally: db.close()` worked [id:x2]"
    reading = assistant.read(labelled, POOL, LEDGER, PROJECTS)
    assert reading.proven == ["close-session"] and reading.foreign == ["null-pool"]
    assert assistant.plan(reading, POOL)[:2] == ["close-session", "null-pool"]


def test_scores_follow_the_tool_descriptions() -> None:
    shown = block.lines(BLOCK)
    ids = ["patterns_1", "history_2", "working_3"]
    assert assistant.memory_scores(ids, shown, "close-session", True, POOL) == {
        "patterns_1": "worked",
        "history_2": "worked",  # it warned off a fix that fails
        "working_3": "unknown",
    }
    assert assistant.memory_scores(["patterns_1"], shown, "close-session", False, POOL) == {"patterns_1": "failed"}
    text = 'score_response(outcome="?", memory_scores={"working_1": "?", "history_2": "?"})'
    assert assistant.score_ids(text) == ["working_1", "history_2"]


def test_metrics_on_a_hand_made_block() -> None:
    run, recurrence = hand_made_run()
    found = metrics.recurrence_figures(recurrence, run.registry)
    assert found["worked_shown"] is True
    assert found["wrong_as_worked"] is False
    assert found["warned"] == [True, False]
    assert found["fix_lines"] == 1
    # the chat line is off the problem; the other four are on it
    assert found["on_problem"] == [True, True, False, True, True]
    # the other project's episode sits above the first local line and carries no label
    assert found["leaks"] == 1
    assert metrics.echoes(recurrence.seen, run.registry) == 1
    figures = metrics.figures(run)
    assert figures["failed_warned"] == 0.5
    assert figures["on_problem_share"] == 0.8
    assert figures["tokens_per_block"] == len(BLOCK) / 4
    assert (
        metrics.stale(
            Seen(
                "probe", LEDGER, "s", "", "• runs PostgreSQL 14 [id:a]\n• PostgreSQL 14 (superseded by [id:b]) [id:c]"
            ),
            ["PostgreSQL 14"],
        )
        == 1
    )
    assert metrics.met("leaks", 1) is False and metrics.met("first_right", 0.95) is True
    # the exchange of a failed attempt filed under "What worked before" is counted as a wrong fix shown as worked
    misfiled = BLOCK.replace(
        "Closing them in the request dependency with `finally: db.close()` fixed it.", "Applied `pool_size=50`; failed"
    )
    recurrence.seen = Seen("recurrence", LEDGER, "now", POOL.key, misfiled)
    found = metrics.recurrence_figures(recurrence, run.registry)
    assert found["wrong_as_worked"] is True and found["worked_shown"] is False
    # another project's fix under the heading, labelled with that project, is not claimed to work here
    labelled = BLOCK.replace(
        "Closing them in the request dependency with `finally: db.close()` fixed it.",
        "[project tidewater-etl-1a2b] Applied `poolclass=NullPool`; passes",
    )
    recurrence.seen = Seen("recurrence", LEDGER, "now", POOL.key, labelled)
    assert metrics.recurrence_figures(recurrence, run.registry)["wrong_as_worked"] is False


def test_leaks_need_a_foreign_origin_and_no_label_or_a_place_above_local_lines() -> None:
    run, _ = hand_made_run()
    local = f"• User: {LOCAL_STATEMENT} [id:a]"
    labelled = "• `poolclass=NullPool` fixed it (from tidewater-etl) [id:b]"
    unlabelled = "• `poolclass=NullPool` fixed it [id:c]"

    def count(*shown: str, project: str = LEDGER) -> int:
        seen = Seen("recurrence", project, "now", POOL.key, "\n".join(shown))
        return metrics.leaks(seen, run.registry, ["poolclass=NullPool"] if project == LEDGER else [])

    assert count(local, labelled) == 0
    assert count(labelled, local) == 1
    assert count(local, unlabelled) == 1
    assert count(labelled) == 0  # nothing local to rank below
    # a warning about the other project's fix is local knowledge, not a leak
    assert count(local, "• `poolclass=NullPool` did not help [id:d]") == 0
    # a line the block labels with another project is that project's, whatever its text
    warning = "• [project tidewater-etl-1a2b] `pool_size=50` -> 1 failed [id:g]"
    assert count(labelled, warning, local) == 2
    tidewater = f"• User: {FOREIGN_STATEMENT} [id:e]"
    assert count(tidewater, f"• User: {LOCAL_STATEMENT} [id:f]", project=TIDEWATER) == 1


def test_the_scenario_is_as_large_as_the_issue_asks() -> None:
    described = scenario.describe(scenario.build(7))
    assert described["chat_turns"] >= 300
    assert described["episodes"] >= 8 and described["recurrences"] >= 24 and described["trap_recurrences"] > 0
    assert described["near_misses"] >= 8 and described["probes"] > 0
    assert scenario.build(7)[5].prompts == scenario.build(7)[5].prompts


@pytest.mark.slow
def test_a_tiny_run_end_to_end(loop_thread: Any, embedding_addr: str, tmp_path: Path) -> None:
    from tests.reliability import inproc

    stack = inproc.start(loop_thread, embedding_addr, tmp_path / "home")
    try:
        events = scenario.build(3, noise_turns=4, recurrences=1, problems=(CORS,))
        run = asyncio.run(driver.play(stack.gateway.url, tmp_path / "projects", Run("tiny", 3, True), events))
    finally:
        stack.stop()
    assert run.errors == []
    assert run.failure_route
    assert len(run.recurrences) == 1 and run.recurrences[0].attempts >= 1
    assert run.recurrences[0].failed_before == ['allow_origins=["*"]', 'mode: "no-cors"']
    figures = metrics.figures(run)
    assert figures["recurrences"] == 1 and figures["turns"] == run.turns > 10
    assert len(run.wrong_scope) == 1
    assert any(s.block for s in run.seen), "no block was ever injected"
