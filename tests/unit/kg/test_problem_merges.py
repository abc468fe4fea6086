"""Merging two known problems is an explicit step, and undoing it gives both back as they were.

A plain episode book fed real ops (turns, tool errors) with hand-made unit vectors, so each
problem's wording is its own axis; then the store on a real SQLite journal for the restart.
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pytest

from kernel.json_values import JSONObject
from services.kg.episode_records import Vector, problem_json
from services.kg.episodes import EpisodeBook
from services.kg.journal import Journal
from services.kg.problem_merges import (
    MergeRefused,
    UnknownProblem,
    list_problems,
    merge_problems,
    merges_holding,
    unmerge_problems,
)
from services.kg.store import KgStore, ScopeKey, episodes_scope

DIM = 16
SHOP, BLOG = "shop-1a2b", "blog-9f8e"
PAYMENT = "checkout page throws StripeCardError when the customer pays with a saved card"
PAYMENT_FIX = "Refreshed the saved card's payment_method before confirming the PaymentIntent."
WEBHOOK = "orders stay pending because the payment webhook handler returns 400 on signature check"
WEBHOOK_FIX = "Set STRIPE_WEBHOOK_SECRET to the endpoint's signing secret, not the API key."
LATER_FIX = "Retried the PaymentIntent confirmation with idempotency keys."


def axis(i: int) -> Vector:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v


def encoded(i: int) -> str:
    return base64.b64encode(axis(i).astype("<f4").tobytes()).decode("ascii")


class Book:
    """An episode book and a clock, with the ops a session sends."""

    def __init__(self) -> None:
        self.book = EpisodeBook()
        self.now = 1_000_000.0

    def tick(self) -> float:
        self.now += 10.0
        return self.now

    def solve(self, session: str, project: str, prompt: str, wording: int, signature: str, fix: str) -> str:
        """One failed attempt with a tool error, then the fix; returns the problem id it was filed under."""
        self.book.apply_tool_error(
            {
                "session_id": session,
                "command": "make test",
                "line": signature,
                "signature": signature,
                "ts": self.tick(),
            }
        )
        failed = {"outcome": "failed", "answer": f"tried again after {signature}", "prompt": prompt}
        self.book.apply_turn(
            {**failed, "ts": self.tick(), "session_id": session, "project": project, "vector": encoded(wording)}
        )
        problem_id = self.book.open[session].problem_id
        self.book.apply_turn(
            {
                "ts": self.tick(),
                "session_id": session,
                "project": project,
                "prompt": "ok",
                "outcome": "worked",
                "answer": fix,
            }
        )
        return problem_id

    def fixes_shown(self, prompt: str, wording: int, project: str = SHOP) -> tuple[str, list[str]]:
        lessons = self.book.lessons(axis(wording), "asker", project, self.now, prompt=prompt)
        return (lessons[0].problem_id if lessons else ""), [x.text for x in lessons if x.kind == "solution"]


@pytest.fixture
def two() -> tuple[Book, str, str]:
    book = Book()
    payment = book.solve("s1", SHOP, PAYMENT, 1, "stripe.error.carderror: card declined", PAYMENT_FIX)
    webhook = book.solve("s2", SHOP, WEBHOOK, 2, "webhook signature verification failed <n>", WEBHOOK_FIX)
    assert payment != webhook and set(book.book.problems) == {payment, webhook}
    return book, payment, webhook


def test_a_merged_problem_is_recognised_as_the_one_it_joined_with_both_fixes(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    assert book.fixes_shown(WEBHOOK, 2) == (webhook, [WEBHOOK_FIX])
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    assert record.id == "m1" and (record.keep, record.merged, record.statement) == (payment, webhook, WEBHOOK)
    assert set(book.book.problems) == {payment}
    assert book.book.counts(SHOP)["episode_problems"] == 1
    for prompt, wording in ((WEBHOOK, 2), (PAYMENT, 1)):
        shown, fixes = book.fixes_shown(prompt, wording)
        assert shown == payment and set(fixes) == {PAYMENT_FIX, WEBHOOK_FIX}
    kept = book.book.problems[payment]
    assert kept.episodes == 2 and len(kept.failures) == 2 and len(kept.signatures) == 2
    assert [s.id for s in list_problems(book.book, SHOP)] == [payment]
    assert merges_holding(book.book, SHOP) == [record]


def test_undoing_a_merge_gives_both_problems_back_exactly(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    before = {pid: problem_json(p) for pid, p in book.book.problems.items()}
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    unmerge_problems(book.book, SHOP, record.id, book.tick())
    after = {pid: problem_json(p) for pid, p in book.book.problems.items()}
    assert after == before
    assert book.fixes_shown(WEBHOOK, 2) == (webhook, [WEBHOOK_FIX])
    assert book.fixes_shown(PAYMENT, 1) == (payment, [PAYMENT_FIX])
    assert merges_holding(book.book, SHOP) == [] and record.undone_at > 0


def test_what_the_kept_problem_learns_after_the_merge_stays_with_it(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    assert book.solve("s3", SHOP, PAYMENT, 1, "stripe.error.carderror: card declined", LATER_FIX) == payment
    unmerge_problems(book.book, SHOP, record.id, book.tick())
    assert {f.text for f in book.book.problems[payment].fixes} == {PAYMENT_FIX, LATER_FIX}
    assert [f.text for f in book.book.problems[webhook].fixes] == [WEBHOOK_FIX]
    assert book.book.problems[payment].episodes == 2 and book.book.problems[webhook].episodes == 1


def test_a_fix_both_had_is_counted_back(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    book.book.problems[webhook].fixes[0].text = PAYMENT_FIX  # the same fix, found for both
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    assert [(f.text, f.worked) for f in book.book.problems[payment].fixes] == [(PAYMENT_FIX, 2)]
    unmerge_problems(book.book, SHOP, record.id, book.tick())
    assert [(f.text, f.worked) for f in book.book.problems[payment].fixes] == [(PAYMENT_FIX, 1)]
    assert [(f.text, f.worked) for f in book.book.problems[webhook].fixes] == [(PAYMENT_FIX, 1)]


def test_undoing_one_of_two_merges_into_a_problem_keeps_what_the_other_brought(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    third = book.solve("s5", SHOP, "stripe webhook retries flood the orders queue", 3, "retry storm <n>", "Deduped.")
    assert third not in (payment, webhook)
    shared = "webhook signature verification failed <n>"
    book.book.problems[third].signatures.append(shared)  # its episodes saw the webhook's error too
    first = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    merge_problems(book.book, SHOP, payment, third, book.tick())
    unmerge_problems(book.book, SHOP, first.id, book.tick())
    kept = book.book.problems[payment]
    assert shared in kept.signatures and "webhook" in kept.terms
    assert {f.text for f in kept.fixes} == {PAYMENT_FIX, "Deduped."}


def test_an_open_episode_follows_the_merge_and_its_undo(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    failed: JSONObject = {"outcome": "failed", "answer": "Rotated the key.", "prompt": WEBHOOK}
    book.book.apply_tool_error(
        {
            "session_id": "s4",
            "command": "curl",
            "line": "x",
            "signature": "webhook signature verification failed <n>",
            "ts": book.tick(),
        }
    )
    book.book.apply_turn({**failed, "ts": book.tick(), "session_id": "s4", "project": SHOP, "vector": encoded(2)})
    assert book.book.open["s4"].problem_id == webhook
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    assert book.book.open["s4"].problem_id == payment
    unmerge_problems(book.book, SHOP, record.id, book.tick())
    assert book.book.open["s4"].problem_id == webhook


def test_refusals_say_why(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    other = book.solve("s9", BLOG, "the static site build fails on a missing Jinja2 template", 5, "jinja2 <n>", "x y")
    with pytest.raises(MergeRefused, match="same problem"):
        merge_problems(book.book, SHOP, payment, payment, book.tick())
    with pytest.raises(UnknownProblem, match="no known problem 'p99'"):
        merge_problems(book.book, SHOP, payment, "p99", book.tick())
    with pytest.raises(MergeRefused, match="only two problems of one project"):
        merge_problems(book.book, SHOP, payment, other, book.tick())
    with pytest.raises(UnknownProblem, match="no merge 'm7'"):
        unmerge_problems(book.book, SHOP, "m7", book.tick())
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    with pytest.raises(MergeRefused, match=f"merged into {payment} by m1"):
        merge_problems(book.book, SHOP, payment, webhook, book.tick())
    with pytest.raises(UnknownProblem, match="no merge 'm1' in project 'blog-9f8e'"):
        unmerge_problems(book.book, BLOG, record.id, book.tick())
    unmerge_problems(book.book, SHOP, record.id, book.tick())
    with pytest.raises(MergeRefused, match="already undone"):
        unmerge_problems(book.book, SHOP, record.id, book.tick())


def test_a_merge_into_a_problem_merged_away_since_is_undone_last(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    third = book.solve(
        "s5", SHOP, "invoice PDF renders blank totals for orders in euros", 3, "decimal <n>", "Quantized."
    )
    first = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    second = merge_problems(book.book, SHOP, third, payment, book.tick())
    with pytest.raises(MergeRefused, match=f"undo {second.id} first"):
        unmerge_problems(book.book, SHOP, first.id, book.tick())
    unmerge_problems(book.book, SHOP, second.id, book.tick())
    unmerge_problems(book.book, SHOP, first.id, book.tick())
    assert set(book.book.problems) == {payment, webhook, third}
    assert book.fixes_shown(WEBHOOK, 2) == (webhook, [WEBHOOK_FIX])


def test_merges_survive_the_books_json(two: tuple[Book, str, str]) -> None:
    book, payment, webhook = two
    before = problem_json(book.book.problems[webhook])
    record = merge_problems(book.book, SHOP, payment, webhook, book.tick())
    loaded = EpisodeBook()
    loaded.load_json(book.book.to_json())
    assert set(loaded.problems) == {payment} and loaded.merges[record.id] == record
    unmerge_problems(loaded, SHOP, record.id, book.tick())
    assert problem_json(loaded.problems[webhook]) == before
    assert merge_problems(loaded, SHOP, webhook, payment, book.tick()).id == "m2"  # ids are never reused


@pytest.mark.parametrize("snapshot_every", [1, 500])
def test_a_merge_and_its_undo_survive_a_restart(tmp_path: Path, snapshot_every: int) -> None:
    scope = ScopeKey("tester", SHOP)
    book = Book()
    payment = book.solve("s1", SHOP, PAYMENT, 1, "stripe.error.carderror: card declined", PAYMENT_FIX)
    webhook = book.solve("s2", SHOP, WEBHOOK, 2, "webhook signature verification failed <n>", WEBHOOK_FIX)
    store = KgStore(Journal(tmp_path / "kg.sqlite3"), snapshot_every=snapshot_every)
    store.graphs(episodes_scope("tester")).episodes.load_json(book.book.to_json())
    store.journal.snapshot(str(episodes_scope("tester")), store.graphs(episodes_scope("tester")).to_json())
    record = store.merge_problems(scope, keep=payment, merge=webhook)
    with pytest.raises(MergeRefused):
        store.merge_problems(scope, keep=payment, merge=payment)  # refused before the journal: replay stays clean
    store.journal.close()

    again = KgStore(Journal(tmp_path / "kg.sqlite3"), snapshot_every=snapshot_every)
    problems, merges = again.known_problems(scope)
    assert [p.id for p in problems] == [payment] and [m.id for m in merges] == [record.id]
    assert again.counts(scope)["episode_problems"] == 1
    again.unmerge_problems(scope, merge_id=record.id)
    again.journal.close()

    third = KgStore(Journal(tmp_path / "kg.sqlite3"), snapshot_every=snapshot_every)
    problems, merges = third.known_problems(scope)
    assert {p.id for p in problems} == {payment, webhook} and merges == []
    reloaded = third.graphs(episodes_scope("tester")).episodes
    assert [f.text for f in reloaded.problems[webhook].fixes] == [WEBHOOK_FIX]
    third.close()
