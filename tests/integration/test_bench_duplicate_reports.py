"""The duplicate-reports benchmark's harness: the split, the recognition rule on hand-made blocks, a tiny run."""

from __future__ import annotations

import asyncio
import hashlib
import random
from pathlib import Path

import pytest

from bench.duplicate_reports import dataset, figures, lessons
from bench.duplicate_reports.client import Probe
from bench.duplicate_reports.dataset import Report
from bench.duplicate_reports.scenario import play
from tests.support.loop_thread import LoopThread

PAIRS = [("105", "101"), ("101", "120"), ("230", "211"), ("340", "377"), ("377", "399"), ("512", "500")]


def synthetic() -> dataset.Dataset:
    ids = {i for pair in PAIRS for i in pair} | {str(n) for n in range(600, 640)}
    reports = {i: Report(i, f"Report {i}", f"Steps to reproduce: open window {i}.") for i in ids}
    return dataset.build(PAIRS, reports)


def test_components_start_at_their_lowest_report_and_do_not_depend_on_pair_order() -> None:
    data = synthetic()
    assert [(p.key, [r.id for r in p.recurrences]) for p in data.problems] == [
        ("101", ["105", "120"]),
        ("211", ["230"]),
        ("340", ["377", "399"]),
        ("500", ["512"]),
    ]
    shuffled = PAIRS[::-1]
    random.Random(3).shuffle(shuffled)
    assert dataset.components(shuffled) == dataset.components(PAIRS)
    assert len(data.near_misses) == 40 and all(r.id.startswith("6") for r in data.near_misses)


def test_the_split_is_disjoint_covering_and_stable() -> None:
    data = synthetic()
    calibrate = dataset.in_part(data.problems, "calibrate")
    holdout = dataset.in_part(data.problems, "holdout")
    assert {p.key for p in calibrate}.isdisjoint(p.key for p in holdout)
    assert len(calibrate) + len(holdout) == len(data.problems) == len(dataset.in_part(data.problems, "all"))
    # stable: a pure function of the first report id (sha256, not Python's salted hash)
    assert [dataset.part_of(i) for i in ("101", "211", "340", "500")] == [
        dataset.PARTS[hashlib.sha256(i.encode()).digest()[0] % 2] for i in ("101", "211", "340", "500")
    ]
    near_c = dataset.near_miss_sample(data.near_misses, "calibrate", 5, seed=1)
    near_h = dataset.near_miss_sample(data.near_misses, "holdout", 5, seed=1)
    assert {r.id for r in near_c}.isdisjoint(r.id for r in near_h)
    assert all(dataset.part_of(r.id) == "calibrate" for r in near_c)
    assert near_c == dataset.near_miss_sample(data.near_misses, "calibrate", 5, seed=1)
    assert near_c != dataset.near_miss_sample(data.near_misses, "calibrate", 5, seed=2)


def test_the_real_split_has_both_parts() -> None:
    if not dataset.DATA.exists():
        pytest.skip(f"{dataset.DATA} is not here")
    data = dataset.load()
    parts = {part: dataset.in_part(data.problems, part) for part in dataset.PARTS}
    assert all(len(found) >= len(data.problems) // 3 for found in parts.values())
    assert sum(len(p.recurrences) for p in data.problems) == 46  # 46 pairs, no pair repeated or cyclic
    assert data.problems == dataset.load().problems
    assert len(data.problems) <= min(len(lessons.SETTINGS), len(lessons.COMPONENTS))  # a text of its own each


def block(*sections: tuple[str, list[str]]) -> str:
    out = ["═══ KNOWN CONTEXT ═══"]
    for heading, items in sections:
        out += [heading, *(f"• {item}" for item in items)]
    return "\n".join([*out, "═══ END CONTEXT ═══"])


WORKED = "What worked before for this problem:"
FAILED = "What failed before for this problem (avoid repeating it):"


def test_a_planted_fix_is_recognised_by_its_words_and_another_problems_is_not() -> None:
    problems = synthetic().problems
    fixes, attempts = figures.registries(problems)
    own, other = problems[1], problems[2]  # fixes about "smooth scrolling" and "spellcheck dictionary"
    assert "smooth scrolling" in lessons.fix_text(own.index)
    # the line is not the text the driver wrote, only its distinctive words survive
    right = "[project here] smooth scrolling was switched back to the defaults, (worked once)"
    wrong = "Put the spellcheck dictionary back, (worked 2 times)"
    both = "smooth scrolling or the spellcheck dictionary: one of them"
    failed = "toggled the urlbar dropdown pref -> error: urlbar dropdown still broken (failed once)"
    assert "urlbar dropdown" in lessons.failed_attempt(own.index).error

    def seen(text: str) -> dict[str, bool]:
        return figures.recurrence_figures(Probe("recurrence", "230", own.key, text), fixes, attempts)

    found = seen(block((WORKED, [right]), (FAILED, [failed]), ("Other memories:", [wrong])))
    assert found == {
        "worked_shown": True,
        "other_fix_shown": False,
        "failed_warned": True,
        "other_failure_shown": False,
        "lessons": True,
    }
    found = seen(block((WORKED, [wrong]), ("Other memories:", [right])))
    assert not found["worked_shown"] and found["other_fix_shown"] and not found["failed_warned"]
    assert fixes.problem_of(wrong) == other.key
    # a line naming two problems' fixes has no clear majority; one word alone is not enough
    assert fixes.problem_of(both) == "" and fixes.problem_of("smooth edges") == ""
    assert not seen(block((WORKED, [both])))["worked_shown"]
    assert not seen(block(("Other memories:", [right])))["lessons"]
    # the texts written for different problems never share an error signature
    from kernel.error_signature import error_line, signature

    outputs = [lessons.failed_attempt(i).output for i in range(len(lessons.COMPONENTS))]
    assert len({signature(error_line(o)) for o in outputs}) == len(outputs)
    assert len({lessons.fix_text(i) for i in range(len(lessons.SETTINGS))}) == len(lessons.SETTINGS)


@pytest.mark.slow
def test_a_tiny_run_end_to_end(loop_thread: LoopThread, embedding_addr: str, tmp_path: Path) -> None:
    from tests.reliability import inproc

    data = dataset.load() if dataset.DATA.exists() else synthetic()
    problems = data.problems[:3]
    near = list(data.near_misses[:2])
    stack = inproc.start(loop_thread, embedding_addr, tmp_path / "home")
    try:
        record = asyncio.run(play(stack.gateway.url, tmp_path / "project", problems, "all", near, 1, "tiny"))
    finally:
        stack.stop()
    assert record.errors == [] and record.http_errors == 0 and record.tool_errors == 0
    assert record.episodes == 3
    found = figures.figures(record, problems)
    assert found["recurrences"] == sum(len(p.recurrences) for p in problems)
    assert found["near_misses"] == 2 and found["problems"] == 3
    assert 0 <= found["kg_problems"] <= 3
    assert all(0.0 <= found[k] <= 1.0 for k in ("worked_shown", "near_miss_lessons", "failed_warned"))
    assert any(p.block for p in record.probes), "no block was ever injected"
    summary = figures.mean_figures([found, found])
    assert summary["worked_shown"] == found["worked_shown"]


def test_kg_env_pairs_are_parsed() -> None:
    from bench.bench_duplicate_reports import parse_env

    assert parse_env(["MNEMEX_KG_ABLATE=rarity", "A=b=c"]) == {"MNEMEX_KG_ABLATE": "rarity", "A": "b=c"}
    with pytest.raises(SystemExit):
        parse_env(["nokey"])


def test_the_ceiling_measures_each_query_against_its_runner_up_and_the_background() -> None:
    import numpy as np

    from bench.duplicate_reports.ceiling import leads

    problems = np.eye(3, dtype=np.float32)
    queries = np.array([[0.9, 0.5, 0.0], [0.2, 0.1, 0.0], [0.6, 0.7, 0.0]], dtype=np.float32)
    found, not_best = leads(problems, queries, [0, 0, 0])
    # 0.9 over 0.5; 0.2 under the background (0.3); the third's own problem is second best
    assert [round(x, 2) for x in found] == [0.4, -0.1, -0.1]
    assert not_best == 1
    near, _ = leads(problems, queries[:1], [None])
    assert [round(x, 2) for x in near] == [0.4]
