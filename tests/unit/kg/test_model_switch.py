"""After the embedding model changes, the kg never compares vectors of two models.

The gateway embeds prompts and error lines and sends the vectors to the kg, which compares them with
the vectors its known problems keep. Once ``MNEMEX_EMBEDDING_MODEL`` names a model of another
dimension, the kg holds vectors of both: before, teaching the first problem of the new model raised
(``np.concatenate`` of the old and new rows, after the turn was journaled, so the user's episode
book no longer loaded either) and so did every lesson asked for afterwards. Now a vector of another
dimension is left out of every comparison: recognition falls back on the error signatures and terms,
which do not depend on the model.

Real store and journal (SQLite under tmp_path); the two models are tests/support/word_encoder's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.error_signature import of_output
from services.kg.journal import Journal
from services.kg.keys import Outcome
from services.kg.store import KgStore, ScopeKey, episodes_scope
from tests.support.word_encoder import WordEncoder
from tests.unit.kg.taught_books import Clock

SCOPE = ScopeKey("tester", "shop-1a2b")
OLD = WordEncoder("old-model", 64)
NEW = WordEncoder("new-model", 96)

CART = (
    "The cart page crashes with a TypeError when the coupon field is left empty",
    "Traceback (most recent call last):\nTypeError: unsupported operand type(s) for +: NoneType and Decimal",
    "Defaulted coupon_code to None in cart.views.apply_coupon",
)
UPLOAD = (
    "Uploading an avatar larger than 2 MB fails with a 413 from nginx",
    "nginx: [error] 413 Request Entity Too Large: client intended to send too large body",
    "Raised client_max_body_size to 10m in deploy/nginx.conf",
)


def teach(store: KgStore, encoder: WordEncoder, session: str, problem: tuple[str, str, str]) -> None:
    """One episode as the gateway reports it: a failed tool call, the turn scored failed, the fix."""
    statement, output, fix = problem
    line, _ = of_output(output)
    store.record_tool_error(SCOPE, session_id=session, command="pytest -x", output=output, vector=encoder.packed(line))
    store.record_turn(
        SCOPE,
        session_id=session,
        prompt=statement,
        vector=encoder.packed(statement),
        outcome=Outcome.FAILED,
        answer="Cleared the cache and reran it.",
        doc_id="",
    )
    store.record_turn(
        SCOPE,
        session_id=session,
        prompt="that works now",
        vector=encoder.packed("that works now"),
        outcome=Outcome.WORKED,
        answer=fix,
        doc_id="",
    )


def fixes_shown(store: KgStore, encoder: WordEncoder, session: str, prompt: str) -> list[str]:
    lessons = store.episode_lessons(SCOPE, session_id=session, vector=encoder.packed(prompt), prompt=prompt, limit=6)
    return [lesson.text for lesson in lessons if lesson.kind == "solution"]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "kg.sqlite3"


def test_a_model_of_another_dimension_is_never_compared_with_the_old_vectors(path: Path) -> None:
    store = KgStore(Journal(path), clock=Clock())
    teach(store, OLD, "s1", CART)

    # The model changes (another dimension) and the stack runs without a reembed.
    teach(store, NEW, "s2", UPLOAD)
    book = store.graphs(episodes_scope(SCOPE.user)).episodes
    assert len(book.problems) == 2

    # A recurrence of each, told in the new model's vectors, with the error it prints: recognised by
    # the error signature and the terms (the old problem's vectors cannot say anything).
    store.record_tool_error(SCOPE, session_id="s3", command="pytest -x", output=CART[1], vector=NEW.packed(CART[1]))
    assert fixes_shown(store, NEW, "s3", "the cart crashes again when the coupon is empty") == [CART[2]]
    assert fixes_shown(store, NEW, "s4", "uploading an avatar larger than 2 MB fails again with a 413 from nginx") == [
        UPLOAD[2]
    ]

    # The journal replays to the same book, and it answers the same.
    store.close()
    replayed = KgStore(Journal(path), clock=Clock())
    assert fixes_shown(
        replayed, NEW, "s4", "uploading an avatar larger than 2 MB fails again with a 413 from nginx"
    ) == [UPLOAD[2]]
    assert len(replayed.graphs(episodes_scope(SCOPE.user)).episodes.problems) == 2


def test_an_open_episode_of_the_old_model_goes_on_in_the_new_one(path: Path) -> None:
    """A session open across the switch: its next turn compares nothing and joins the episode."""
    store = KgStore(Journal(path), clock=Clock())
    statement, _, fix = CART
    store.record_turn(
        SCOPE,
        session_id="s1",
        prompt=statement,
        vector=OLD.packed(statement),
        outcome=Outcome.FAILED,
        answer="Cleared the cache and reran it.",
        doc_id="",
    )
    later = "still crashing on the cart page with the same TypeError after clearing the cache and the cookies"
    status = store.record_turn(
        SCOPE,
        session_id="s1",
        prompt=later,
        vector=NEW.packed(later),
        outcome=Outcome.WORKED,
        answer=fix,
        doc_id="",
    )
    assert status == {"problem": statement, "status": "solved"}
