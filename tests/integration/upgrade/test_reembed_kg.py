"""``mnemex reembed`` makes the kg's vectors again with the new model, from the texts the kg keeps.

A home's kg (the real store and journal under tmp_path) learns three known problems, a rewording of
one, an open episode and a pending tool error with one model; the model then changes. Before the
reembed a recurrence told in the new model's vectors is not recognised by its meaning (the stored
vectors are of the old model: of the same dimension they compare as noise); after it, every vector
of the book is the new model's vector of its text, the rewording whose text is not kept is dropped
and counted, a replay of the journal gives the same book, and the recurrence is recognised.
Interrupted between two users' books, the reembed goes on with the second.

The models are tests/support/word_encoder's; the memories' side of reembed is
tests/integration/upgrade/test_reembed.py's.
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from kernel import vector_model
from kernel.error_signature import of_output
from mnemex.upgrade.reembed import KG_DONE, reembed_home
from mnemex.upgrade.reembed_kg import kg_path, reembed_kg, statement_vectors
from services.kg import episode_reembed
from services.kg.episodes import EpisodeBook
from services.kg.journal import Journal
from services.kg.keys import Outcome
from services.kg.store import KgStore, ScopeKey, episodes_scope
from tests.support.word_encoder import WordEncoder

OLD = WordEncoder("old-model", 64)
ALICE = ScopeKey("alice", "shop-1a2b")
BOB = ScopeKey("bob", "infra-9f8e")

CART = (
    "The cart page crashes with a TypeError when the coupon field is left empty",
    "Traceback (most recent call last):\nTypeError: unsupported operand type(s) for +: NoneType and Decimal",
    "Defaulted coupon_code to None in cart.views.apply_coupon",
)
CART_AGAIN = "Checkout blows up on an empty coupon with a TypeError about NoneType and Decimal"
UPLOAD = (
    "Uploading an avatar larger than 2 MB fails with a 413 from nginx",
    "nginx: [error] 413 Request Entity Too Large: client intended to send too large body",
    "Raised client_max_body_size to 10m in deploy/nginx.conf",
)
UPLOAD_AGAIN = "uploading an avatar larger than 2 MB fails again with a 413 from nginx"
DISK = "The nightly backup job stops half way and the logs say the disk is full"
DISK_ERROR = "OSError: [Errno 28] No space left on device"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def turn(store: KgStore, scope: ScopeKey, session: str, prompt: str, outcome: Outcome, answer: str) -> None:
    vector = OLD.packed(prompt)
    store.record_turn(
        scope, session_id=session, prompt=prompt, vector=vector, outcome=outcome, answer=answer, doc_id=""
    )


def failed_call(store: KgStore, scope: ScopeKey, session: str, output: str) -> None:
    line, _ = of_output(output)
    store.record_tool_error(scope, session_id=session, command="make test", output=output, vector=OLD.packed(line))


def solve(store: KgStore, scope: ScopeKey, session: str, statement: str, output: str, fix: str) -> None:
    failed_call(store, scope, session, output)
    turn(store, scope, session, statement, Outcome.FAILED, "Cleared the cache and reran it.")
    turn(store, scope, session, "that works now", Outcome.WORKED, fix)


def learn(home: Path, scope: ScopeKey) -> None:
    """Three known problems (one told twice, one still open in its episode) and a pending tool error, by the
    old model."""
    path = kg_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    store = KgStore(Journal(path), clock=Clock())
    solve(store, scope, "s1", *CART)
    solve(store, scope, "s2", *UPLOAD)
    solve(store, scope, "s3", CART_AGAIN, CART[1], CART[2])  # the same error: a rewording of CART
    failed_call(store, scope, "s4", DISK_ERROR)
    turn(store, scope, "s4", DISK, Outcome.FAILED, "Deleted the old archives.")  # open: not solved yet
    failed_call(store, scope, "s5", CART[1])  # a session whose turn is not scored yet
    store.close()


def fixes_shown(store: KgStore, encoder: WordEncoder, scope: ScopeKey, prompt: str) -> list[str]:
    lessons = store.episode_lessons(scope, session_id="later", vector=encoder.packed(prompt), prompt=prompt, limit=6)
    return [lesson.text for lesson in lessons if lesson.kind == "solution"]


def assert_made_by(book: EpisodeBook, encoder: WordEncoder) -> None:
    """Every vector of the book is ``encoder``'s vector of the text it was made from."""

    def same(got: npt.NDArray[np.float32] | None, want: npt.NDArray[np.float32]) -> None:
        assert got is not None and got.shape == want.shape and float(got @ want) == pytest.approx(1.0, abs=1e-5)

    statements = statement_vectors(encoder, [p.text for p in book.problems.values()] + [DISK])
    for problem in book.problems.values():
        same(problem.vector, statements[problem.text])
        assert problem.phrasings == []
        lines = [a.error for a in problem.failures if a.signature]
        assert len(problem.symptoms) == len(set(lines)) == 1
        same(problem.symptoms[0], encoder.vector(lines[0]))
    episode = book.open["s4"]
    same(episode.vector, statements[DISK])
    same(episode.symptoms[0], encoder.vector(of_output(DISK_ERROR)[0]))
    (pending,) = book.errors["s5"]
    same(np.frombuffer(base64.b64decode(pending.vector), dtype="<f4"), encoder.vector(pending.line))


@pytest.mark.parametrize("dimension", [64, 96], ids=["same dimension", "another dimension"])
def test_reembed_makes_every_kg_vector_again_from_its_text(tmp_path: Path, dimension: int) -> None:
    home = tmp_path / "home"
    learn(home, ALICE)
    new = WordEncoder("new-model", dimension)
    store = KgStore(Journal(kg_path(home)), clock=Clock())
    book = store.episode_book(ALICE.user)
    assert len(book.problems) == 3 and sum(len(p.phrasings) for p in book.problems.values()) == 1
    assert fixes_shown(store, new, ALICE, UPLOAD_AGAIN) == []  # the old vectors say nothing of the new ones
    store.close()

    report = reembed_kg(home, new)
    # 3 statements, 3 symptoms, the open episode's statement and symptom, the pending error's line;
    # the rewording's text is not kept.
    assert (report.books, report.already_done, report.vectors.reembedded, report.vectors.dropped) == (1, 0, 9, 1)
    assert report.as_json() == {"books": 1, "already_done": 0, "reembedded": 9, "dropped": 1}

    store = KgStore(Journal(kg_path(home)), clock=Clock())
    book = store.episode_book(ALICE.user)
    assert_made_by(book, new)
    assert fixes_shown(store, new, ALICE, UPLOAD_AGAIN) == [UPLOAD[2]]
    reembedded = book.to_json()
    store.close()

    # The journal (the reembed's op, then its snapshot) gives the same book back.
    replayed = KgStore(Journal(kg_path(home)), clock=Clock()).episode_book(ALICE.user)
    assert replayed.to_json() == reembedded


def test_the_reembed_op_replays_from_the_journal_alone(tmp_path: Path) -> None:
    """Killed after the op was journaled, before its snapshot: the replay puts the same vectors in."""
    home = tmp_path / "home"
    learn(home, ALICE)
    new = WordEncoder("new-model", 96)
    store = KgStore(Journal(kg_path(home)), clock=Clock())
    book = store.episode_book(ALICE.user)
    texts = episode_reembed.kept_texts(book)
    lines = {line: new.vector(line) for line in texts.lines}
    op, _ = episode_reembed.reembed_op(
        book, vector_model.VectorModel(new.model_id, 96), statement_vectors(new, texts.statements), lines
    )
    store.journal.append(str(episodes_scope(ALICE.user)), op)  # the op journaled; the process dies here

    assert_made_by(KgStore(Journal(kg_path(home)), clock=Clock()).episode_book(ALICE.user), new)


class Interrupted(WordEncoder):
    """The new model, cut short after ``calls`` encode calls."""

    def __init__(self, calls: int) -> None:
        super().__init__("new-model", 96)
        self.calls = calls

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if self.calls == 0:
            raise KeyboardInterrupt("the reembed is cut short")
        self.calls -= 1
        return super().encode(texts)


def test_a_reembed_cut_short_between_two_books_goes_on_with_the_second(tmp_path: Path) -> None:
    from services.memory.storage.chroma_store import open_client

    home = tmp_path / "home"
    learn(home, ALICE)
    learn(home, BOB)
    model = vector_model.VectorModel("new-model", 96)

    # Each book takes two encode calls (its statements, then its error lines): cut in the second book.
    with pytest.raises(KeyboardInterrupt):
        reembed_home(open_client(home, None), home, Interrupted(calls=3))
    progress = vector_model.read_progress(home)
    assert progress == (model, [KG_DONE + ALICE.user])
    store = KgStore(Journal(kg_path(home)), clock=Clock())
    assert_made_by(store.episode_book(ALICE.user), WordEncoder("new-model", 96))
    assert all(p.vector is not None and p.vector.shape == (64,) for p in store.episode_book(BOB.user).problems.values())
    store.close()

    encoder = WordEncoder("new-model", 96)
    report = reembed_home(open_client(home, None), home, encoder)
    assert (report.kg.books, report.kg.already_done, report.kg.vectors.reembedded) == (1, 1, 9)
    assert report.already_done == 0  # collections: the home has none
    assert report.as_json()["kg"] == {"books": 1, "already_done": 1, "reembedded": 9, "dropped": 1}
    assert vector_model.read_progress(home) is None
    assert vector_model.read_record(home) == vector_model.Record(model)
    store = KgStore(Journal(kg_path(home)), clock=Clock())
    for user in (ALICE.user, BOB.user):
        assert_made_by(store.episode_book(user), encoder)


def test_a_home_whose_kg_never_ran_is_left_without_a_kg_store(tmp_path: Path) -> None:
    report = reembed_kg(tmp_path, WordEncoder("new-model", 96))
    assert (report.books, report.vectors.reembedded) == (0, 0)
    assert not kg_path(tmp_path).exists()


def test_a_merge_reembedded_is_undone_with_the_new_vectors(tmp_path: Path) -> None:
    """A merge record keeps the merged problem as it was: an undo after the reembed gives it back
    with the new model's vectors, and takes from the kept problem the symptom that came with it."""
    home = tmp_path / "home"
    learn(home, ALICE)
    store = KgStore(Journal(kg_path(home)), clock=Clock())
    ids = {p.text: p.id for p in store.episode_book(ALICE.user).problems.values()}
    cart, upload = ids[CART[0]], ids[UPLOAD[0]]
    merge = store.merge_problems(ALICE, keep=cart, merge=upload)
    store.close()

    new = WordEncoder("new-model", 96)
    reembed_kg(home, new)
    store = KgStore(Journal(kg_path(home)), clock=Clock())
    book = store.episode_book(ALICE.user)
    assert len(book.problems[cart].symptoms) == 2  # its own error line's and the merged one's
    assert len(book.merges[merge.id].symptoms) == 1
    store.unmerge_problems(ALICE, merge_id=merge.id)
    assert sorted(book.problems) == sorted(ids.values())
    assert book.merges[merge.id].original["phrasings"] == []
    assert_made_by(book, new)  # the cart problem is back to its one symptom
