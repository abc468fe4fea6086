"""A vector reaches the kg intact even when its base64 happens to look like a secret.

Every op is redacted before the journal sees it. A vector travels in an op as base64 of its
float32s: long, random-looking text that a secret rule can match by chance. The fp32 encoder's
vector of "Write a story for the cart." did, and the redacted base64 no longer decoded, so the
turn failed. The run of base64 below is from that vector.
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np

from kernel.json_values import object_at, objects_at
from kernel.privacy import redact
from services.kg.journal import Journal
from services.kg.keys import Outcome
from services.kg.store import KgStore, ScopeKey, episodes_scope

SHOP = ScopeKey("tester", "shop-1a2b")
# The first 15 float32s of that vector, as base64: they start the vector here, the rest are small values.
TRAP = "yx1TPDlos7wOEK+6/KeYPQInuzwYVDo76B6aPcZXsTz4UPs8MVQYuv4C/Dyry7W8woMFO/2JOr1Gm1u9"


def trap_vector() -> bytes:
    head = np.frombuffer(base64.b64decode(TRAP), dtype="<f4")
    rest = (np.arange(384 - len(head)) % 7 - 3).astype("<f4") * np.float32(0.01)
    raw = np.concatenate([head, rest]).astype("<f4").tobytes()
    text = base64.b64encode(raw).decode("ascii")
    assert redact(text) != text, "the trap must be one a secret rule really matches"
    return raw


def test_a_turn_whose_vector_looks_like_a_secret_is_recorded_with_its_vector(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "kg.sqlite3")
    store = KgStore(journal, clock=lambda: 1_000_000.0)
    raw = trap_vector()
    store.record_turn(
        SHOP,
        session_id="s1",
        prompt="The cart page throws a TypeError when the coupon field is empty",
        vector=raw,
        outcome=Outcome.FAILED,
        answer="Tried clearing the cache.",
        doc_id="",
    )
    _, ops, _ = journal.load(str(episodes_scope(SHOP.user)))
    assert [op["vector"] for op in ops if op.get("op") == "turn"] == [base64.b64encode(raw).decode("ascii")]
    # and a store opened on the journal replays the turn with its vector
    replayed = KgStore(journal, clock=lambda: 1_000_001.0)
    episode = next(iter(replayed.graphs(episodes_scope(SHOP.user)).episodes.open.values()))
    expected = np.frombuffer(raw, dtype="<f4").astype(np.float64)
    assert episode.vector is not None
    assert np.allclose(episode.vector, expected / np.linalg.norm(expected), atol=1e-6)


def test_the_text_of_the_same_op_is_still_redacted(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "kg.sqlite3")
    store = KgStore(journal, clock=lambda: 1_000_000.0)
    key = "AKIA" + "Q7ZTR2XWN5VLPM3K"
    store.record_turn(
        SHOP,
        session_id="s1",
        prompt=f"deploy fails: aws_access_key_id={key} is rejected with InvalidClientTokenId",
        vector=trap_vector(),
        outcome=Outcome.FAILED,
        answer=f"Rotated {key}.",
        doc_id="",
    )
    _, ops, _ = journal.load(str(episodes_scope(SHOP.user)))
    assert ops and all(key not in str(op) for op in ops)


def test_imported_known_problems_keep_their_vectors_and_lose_their_secrets(tmp_path: Path) -> None:
    source = KgStore(Journal(tmp_path / "source.sqlite3"), clock=lambda: 1_000_000.0)
    for outcome in (Outcome.FAILED, Outcome.WORKED):
        source.record_turn(
            SHOP,
            session_id="s1",
            prompt="The cart page throws a TypeError when the coupon field is empty",
            vector=trap_vector(),
            outcome=outcome,
            answer="Guarded the coupon parser against an empty string.",
            doc_id="",
        )
    exported = source.export_json(SHOP)
    problems = list(objects_at(object_at(exported, "episodes"), "problems"))
    assert problems and problems[0]["vector"]
    trap = base64.b64encode(trap_vector()).decode("ascii")  # as another machine's export may carry it
    problems[0]["vector"], problems[0]["phrasings"] = trap, [trap]
    key = "AKIA" + "Q7ZTR2XWN5VLPM3K"
    problems[0]["text"] = f"{problems[0]['text']} with {key}"

    journal = Journal(tmp_path / "target.sqlite3")
    target = KgStore(journal, clock=lambda: 2_000_000.0)
    target.import_json(SHOP, exported)
    snapshot, ops, _ = journal.load(str(episodes_scope(SHOP.user)))  # the import is folded into a snapshot
    assert key not in str(snapshot) + str(ops)
    problem = next(iter(target.graphs(episodes_scope(SHOP.user)).episodes.problems.values()))
    expected = np.frombuffer(trap_vector(), dtype="<f4").astype(np.float64)
    expected /= np.linalg.norm(expected)
    assert problem.vector is not None and np.allclose(problem.vector, expected, atol=1e-6)
    assert len(problem.phrasings) == 1 and np.allclose(problem.phrasings[0], expected, atol=1e-6)
