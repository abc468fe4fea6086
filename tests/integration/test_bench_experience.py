"""The experience benchmark's harness: how it reads blocks, what its scenario holds, and one tiny run end to end.

These pin the harness, not mnemex's quality: the figures a run reports are the
benchmark's business (BENCHMARKS.md), not this file's.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bench.bench_experience import parse_env
from bench.experience import assistant, block, driver, metrics, recognise, scenario
from bench.experience.backend_data import DETACHED, GREENLET
from bench.experience.catalogue import BACKEND_PROBLEMS, PROBLEMS, PROJECTS
from bench.experience.problems import BACKEND, CORS, LEDGER, POOL, TIDEWATER
from bench.experience.record import Entry, Recurrence, Run, Seen
from tests.support.loop_thread import LoopThread
from tests.unit.kg import problem_pairs

LOCAL_STATEMENT = "Under load the API stops answering and the logs say: sqlalchemy.exc.TimeoutError: QueuePool"
FOREIGN_STATEMENT = "The nightly loader dies halfway with 'ERROR: no more connections allowed (max_client_conn)'"
CHAT = "Rename post_entry to book_transfer in the invoices module and update the callers."
CLOSED = "I made get_db hand every session back: db.close() now runs in its finally clause"
NULL_POOL = "I switched off SQLAlchemy's own pooling (NullPool) and let pgbouncer hold the connections"
BLOCK = "\n".join(
    [
        "═══ KNOWN CONTEXT ═══",
        "Persistent memory (mnemex) recalled for this prompt.",
        "What worked before for this problem:",
        f"• {CLOSED}; it passes now: 1 passed in 8.91s [id:patterns_1] (worked 3 of 3)",
        "What failed before for this problem (avoid repeating it):",
        "• sed -i 's/pool_size=5/pool_size=50/' app/db.py && pytest tests/load/te -> sqlalchemy.exc.TimeoutError: "
        "QueuePool limit of size 50 overflow 10 reached [id:history_2] (failed once)",
        "Other memories:",
        f"• User: {CHAT} / Assistant: Renamed. [id:working_3] (now, unproven, working)",
        f"• User: {FOREIGN_STATEMENT} / Assistant: {NULL_POOL}; it passes now [id:working_4] (now)",
        f"• User: {LOCAL_STATEMENT} limit of size 5 / Assistant: looking [id:working_5] (now)",
        "═══ END CONTEXT ═══",
    ]
)
_FAILURE_REPORT = re.compile(
    r"error|fail|refused|denied|not found|can't|cannot|won't|exit|killed|crash|timeout|times? out|mismatch|"
    r"exceeded|wrong|too big|hangs|skipped|never|lags|takes ages|exception|warning|[A-Z]\w+Error",
    re.IGNORECASE,
)


def hand_made_run() -> tuple[Run, Recurrence]:
    run = Run("unit", 1, True)
    run.registry.add(LOCAL_STATEMENT, Entry(LEDGER, "ep-1", POOL.key, "prompt"))
    run.registry.add(FOREIGN_STATEMENT, Entry(TIDEWATER, "ep-2", POOL.key, "prompt"))
    run.registry.add(CHAT, Entry(LEDGER, "now", "", "prompt"))
    seen = Seen("recurrence", LEDGER, "now", POOL.key, BLOCK, {"working_3": ("now", "ledger-api-1234abcd")}, True)
    run.seen.append(seen)
    recurrence = Recurrence(
        POOL.key, LEDGER, True, 1, True, "close-session", ["pool-size", "null-pool"], True, ["null-pool"], seen
    )
    run.recurrences.append(recurrence)
    return run, recurrence


def words_in_a_row(text: str, n: int) -> set[tuple[str, ...]]:
    found = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1]
    return {tuple(found[i : i + n]) for i in range(len(found) - n + 1)}


def test_a_fix_is_named_by_its_own_words_and_a_verdict_by_the_words_next_to_it() -> None:
    shown = block.lines(BLOCK)
    assert [line.section for line in shown] == ["worked", "failed", "", "", ""]
    said = [assistant.fix_verdicts(line, POOL) for line in shown]
    # the id tag and the "(worked 3 of 3)" annotation are mnemex's, stripped before reading
    assert said[0] == {"close-session": "worked"}
    # a failed attempt is named by its command; what follows " -> " is its output
    assert said[1] == {"pool-size": "failed"}
    assert said[2] == {}
    assert said[3] == {"null-pool": "worked"}
    # the user's turn states the problem ("QueuePool limit of size 5"): it names no fix
    assert said[4] == {}
    # a verdict word mnemex adds is not read; the words next to a fix outrank the heading it sits under
    annotated = block.Line(f"• {CLOSED} [id:x] (failed 2 times)", "Other memories:", 0)
    assert assistant.fix_verdicts(annotated, POOL) == {"close-session": ""}
    misfiled = block.Line(f"• {POOL.fix('pool-size').said}, but it still fails [id:a]", "What worked before:", 0)
    assert assistant.fix_verdicts(misfiled, POOL) == {"pool-size": "failed"}
    bare = block.Line("• raise pool_size in app/db.py [id:b]", "What worked before:", 0)
    assert assistant.fix_verdicts(bare, POOL) == {"pool-size": "worked"}
    takeaway = block.Line(POOL.takeaway[TIDEWATER], "", 0)
    assert assistant.fix_verdicts(takeaway, POOL) == {"close-session": "failed", "null-pool": "worked"}
    # words every fix shares decide nothing, and two fixes named evenly in one clause are neither
    vocabularies = POOL.vocabularies()
    assert recognise.recognise("pytest tests/load/test_burst.py -q", vocabularies) is None
    assert recognise.recognise("the size, or NullPool", vocabularies) is None
    assert recognise.recognise("pool_size, or maybe NullPool with pool_size=50", vocabularies) == "pool-size"


def test_the_assistant_applies_the_proven_fix_and_skips_failed_ones() -> None:
    reading = assistant.read(BLOCK, POOL, LEDGER, PROJECTS)
    assert reading.avoid == ["pool-size"]
    assert assistant.plan(reading, POOL)[0] == "close-session"
    # nothing shown: the fixed default order, which starts with a plausible wrong fix
    empty = assistant.read("", POOL, LEDGER, PROJECTS)
    assert assistant.plan(empty, POOL) == list(POOL.default_order)
    # a lesson from another project (its name on the line, or the heading says so) comes after the local ones
    labelled = f"• {NULL_POOL}, that fixed it (project tidewater-etl) [id:x1]\n• {CLOSED}; it passes now [id:x2]"
    reading = assistant.read(labelled, POOL, LEDGER, PROJECTS)
    assert reading.proven == ["close-session"] and reading.foreign == ["null-pool"]
    assert assistant.plan(reading, POOL)[:2] == ["close-session", "null-pool"]
    headed = f"What worked before in another project (check it applies here):\n• {NULL_POOL} (worked once)"
    assert assistant.read(headed, POOL, LEDGER, PROJECTS).foreign == ["null-pool"]


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
    # the chat line is off the problem; the others are on it (by the stored prompt, or by naming a fix)
    assert found["on_problem"] == [True, True, False, True, True]
    # the other project's episode sits above the first local line and carries no label
    assert found["leaks"] == 1
    assert metrics.echoes(recurrence.seen, run.registry) == 1
    figures = metrics.figures(run)
    assert figures["failed_warned"] == 0.5
    assert figures["on_problem_share"] == 0.8
    assert figures["tokens_per_block"] == len(BLOCK) / 4
    probe = Seen("probe", LEDGER, "s", "", "• runs PostgreSQL 14 [id:a]\n• PostgreSQL 14 (superseded by [id:b]) [id:c]")
    assert metrics.stale(probe, ["PostgreSQL 14"]) == 1
    assert metrics.met("leaks", 1) is False and metrics.met("first_right", 0.95) is True
    assert (
        metrics.met("backend_kg_problems_off_by", 0) is True and metrics.met("backend_kg_problems_off_by", -2) is False
    )
    # a failed attempt's exchange filed under "What worked before" is counted as a wrong fix shown as worked
    misfiled = BLOCK.replace(f"{CLOSED}; it passes now", POOL.fix("null-pool").said)
    recurrence.seen = Seen("recurrence", LEDGER, "now", POOL.key, misfiled)
    found = metrics.recurrence_figures(recurrence, run.registry)
    assert found["wrong_as_worked"] is True and found["worked_shown"] is False
    # another project's fix under the heading, labelled with that project, is not claimed to work here
    labelled = BLOCK.replace(f"{CLOSED}; it passes now", f"[project tidewater-etl-1a2b] {NULL_POOL}; it passes now")
    recurrence.seen = Seen("recurrence", LEDGER, "now", POOL.key, labelled)
    assert metrics.recurrence_figures(recurrence, run.registry)["wrong_as_worked"] is False


def test_leaks_need_a_foreign_origin_and_no_label_or_a_place_above_local_lines() -> None:
    run, _ = hand_made_run()
    local = f"• User: {LOCAL_STATEMENT} [id:a]"
    labelled = f"• {NULL_POOL}, that fixed it (from tidewater-etl) [id:b]"
    unlabelled = f"• {NULL_POOL}, that fixed it [id:c]"

    def count(*shown: str, project: str = LEDGER) -> int:
        seen = Seen("recurrence", project, "now", POOL.key, "\n".join(shown))
        return metrics.leaks(seen, run.registry, POOL, ["null-pool"] if project == LEDGER else [])

    assert count(local, labelled) == 0
    assert count(labelled, local) == 1
    assert count(local, unlabelled) == 1
    assert count(labelled) == 0  # nothing local to rank below
    # a warning about the other project's fix is local knowledge, not a leak
    assert count(local, f"• {NULL_POOL}; that did not help [id:d]") == 0
    # a line the block labels with another project is that project's, whatever its text
    warning = "• [project tidewater-etl-1a2b] pool_size=50 -> 1 failed [id:g]"
    assert count(labelled, warning, local) == 2
    tidewater = f"• User: {FOREIGN_STATEMENT} [id:e]"
    assert count(tidewater, f"• User: {LOCAL_STATEMENT} [id:f]", project=TIDEWATER) == 1


def test_another_projects_fact_in_a_block_is_counted() -> None:
    run = Run("unit", 1, True)
    run.registry.add("The release branch is develop.", Entry(TIDEWATER, "f1", "", "fact", "release-branch"))
    run.registry.add("The release branch is main.", Entry(LEDGER, "f2", "", "fact", "release-branch"))
    shown = "• The release branch is develop. [id:a]\n• The release branch is main. [id:b]"
    assert metrics.foreign_facts(Seen("probe", LEDGER, "s", "", shown), run.registry) == 1


def test_the_driver_never_writes_the_words_the_assistant_knows_a_fix_by() -> None:
    """Every answer maps back to its own fix, and only to it, though it shares no three words in a row with the
    fix's command or description; a failed attempt as a block prints it (its command cut to 70 characters) maps
    back too; no failure output reads as a success."""
    for problem in PROBLEMS:
        vocabularies = problem.vocabularies()
        for fix in problem.fixes:
            assert not words_in_a_row(fix.said, 3) & words_in_a_row(f"{fix.description} {fix.command}", 3), fix.key
            assert recognise.cue(fix.said) == "", f"{problem.key}/{fix.key}: its answer wording carries a verdict"
            for variant in range(len(driver.WORKED_ANSWERS)):
                for works in (True, False):
                    text = driver.answer_for(fix, works, variant)
                    want = recognise.WORKED if works else recognise.FAILED
                    assert recognise.verdicts(text, vocabularies) == {fix.key: want}, (problem.key, text)
            assert recognise.verdicts(f"{fix.command[:70]} -> {fix.failure}", vocabularies, "failed") == {
                fix.key: "failed"
            }, (problem.key, fix.key)
            assert recognise.cue(fix.failure) != recognise.WORKED, (problem.key, fix.key)


def test_the_backend_is_thirty_problems_in_one_vocabulary() -> None:
    keys = [p.key for p in BACKEND_PROBLEMS]
    assert len(keys) >= 30 and len(set(keys)) == len(keys)
    assert all(set(p.right) == {BACKEND} and p.recurrences >= 2 for p in BACKEND_PROBLEMS)
    # pairs that share most of their words: the other problem's right fix is one this one may try, and fails here
    twins = {
        (p.key, q.key)
        for p in BACKEND_PROBLEMS
        for q in BACKEND_PROBLEMS
        if p is not q and q.right[BACKEND] in {f.key for f in p.fixes} and q.right[BACKEND] != p.right[BACKEND]
    }
    assert len(twins) >= 10
    assert (DETACHED.key, GREENLET.key) in twins and (GREENLET.key, DETACHED.key) in twins
    # each problem's first statement shows real error output, and every fix that fails prints some
    assert all(any(c in p.statement[BACKEND] for c in "':") for p in BACKEND_PROBLEMS)
    near = [text for p in BACKEND_PROBLEMS for text in p.near_misses]
    assert len(near) >= 20
    assert all(_FAILURE_REPORT.search(text) for text in near), [t for t in near if not _FAILURE_REPORT.search(t)]
    assert sum(len(p.requests) for p in BACKEND_PROBLEMS) >= 3


def test_recurrences_are_told_in_other_words_than_the_calibration_pairs() -> None:
    """The benchmark's texts share no six words in a row with tests/unit/kg/problem_pairs.py (written apart)."""
    calibration = [
        text
        for group in (problem_pairs.PARAPHRASES, problem_pairs.NEAR_MISSES, problem_pairs.SYMPTOM_PARAPHRASES)
        for pair in group
        for text in pair
    ]
    borrowed = set().union(*(words_in_a_row(text, 6) for text in calibration))
    for problem in PROBLEMS:
        assert len(problem.paraphrases) >= 3
        for text in (*problem.paraphrases, *problem.near_misses, *problem.requests):
            assert not words_in_a_row(text, 6) & borrowed, (problem.key, text)
        for statement in problem.statement.values():
            # a pasted error repeats the statement's error line; the rest is another person's words, and at
            # least one recurrence shares almost nothing with the first statement
            told = words_in_a_row(statement, 3)
            shared = [len(words_in_a_row(t, 3) & told) / len(words_in_a_row(t, 3)) for t in problem.paraphrases]
            assert max(shared) < 0.8 and min(shared) < 0.2, (problem.key, shared)


def test_the_scenario_is_as_large_as_the_issues_ask() -> None:
    described = scenario.describe(scenario.build(7))
    assert described["chat_turns"] >= 300
    assert described["episodes"] >= 38 and described["backend_problems"] >= 30
    assert described["recurrences"] >= 24 + 2 * 30 and described["trap_recurrences"] > 0
    assert described["near_misses"] >= 20 + 8 and described["requests"] > 0 and described["probes"] > 0
    assert scenario.build(7)[5].prompts == scenario.build(7)[5].prompts
    # a problem comes back in words it was not yet told in while there are any left
    recurrences = [e for e in scenario.build(7) if e.kind == "recurrence" and e.project == BACKEND]
    for problem in BACKEND_PROBLEMS:
        texts = [e.prompts[0][0] for e in recurrences if e.problem is problem]
        assert len(texts) == len(set(texts)) == problem.recurrences


def test_kg_env_pairs_are_parsed() -> None:
    assert parse_env(["MNEMEX_KG_ABLATE=rarity,margin", "X="]) == {"MNEMEX_KG_ABLATE": "rarity,margin", "X": ""}
    with pytest.raises(SystemExit):
        parse_env(["no-equals"])


def test_known_problems_are_counted_per_project_from_the_export() -> None:
    lines = [
        '{"type": "header"}',
        '{"type": "kg", "scope": {"user": "u", "project": "kestrel-api-1a2b"}, '
        '"graph": {"episodes": {"problems": [{"id": "p1"}, {"id": "p2"}]}}}',
        '{"type": "kg", "scope": {"user": "u", "project": "ledger-api-9f8e"}, "graph": {}}',
        '{"type": "end"}',
    ]
    assert driver.known_problems("\n".join(lines)) == {BACKEND: 2, LEDGER: 0}


@pytest.mark.slow
def test_a_tiny_run_end_to_end(loop_thread: LoopThread, embedding_addr: str, tmp_path: Path) -> None:
    from tests.reliability import inproc

    stack = inproc.start(loop_thread, embedding_addr, tmp_path / "home")
    try:
        events = scenario.build(3, noise_turns=4, recurrences=1, problems=(CORS, DETACHED, GREENLET))
        run = asyncio.run(driver.play(stack.gateway.url, tmp_path / "projects", Run("tiny", 3, True), events))
    finally:
        stack.stop()
    assert run.errors == []
    assert run.failure_route
    assert len(run.recurrences) == 3 and all(r.attempts >= 1 for r in run.recurrences)
    cors = next(r for r in run.recurrences if r.problem == CORS.key)
    assert cors.failed_before == ["wildcard", "no-cors"]
    greenlet = next(r for r in run.recurrences if r.problem == GREENLET.key)
    assert greenlet.other_fixes == ["selectinload"]  # the other problem's right fix, which fails here
    figures = metrics.figures(run)
    assert figures["recurrences"] == 3 and figures["turns"] == run.turns > 10
    assert figures["backend_problems"] == 2 and run.kg_problems.get(BACKEND, 0) >= 1
    assert figures["near_misses"] == 3 and figures["requests"] == 2
    assert len(run.wrong_scope) == 3  # the other-project facts checked against the earlier ones
    assert any(s.block for s in run.seen), "no block was ever injected"
    # the assistant's answers never carry a fix's command
    stored = [text for text, _ in ((t, e) for t, entries in run.registry.snippets.items() for e in entries)]
    commands = {f.command[:40].lower() for p in (CORS, DETACHED, GREENLET) for f in p.fixes}
    assert not any(c in text for text in stored for c in commands)
