"""The kg's vectors embedded again with another model, as part of ``mnemex reembed``.

The kg keeps vectors the gateway made (``services.kg.episode_reembed``: known problems' statements
and symptoms, open episodes, recent tool errors, merge records), in one episode book per user. With
the stack stopped, ``reembed_kg(home, encoder)`` opens the home's kg journal as the kg service does
and, for each user's book, embeds the texts it keeps (a statement as the gateway's
``problem_vector`` does: the whole text and its head line; an error line as it is) and writes the
new vectors through the store's journaled write path, one op per book. Interrupted, a book is
either untouched or done; the caller records the books done (``mark_done``: ``reembed_home`` keeps
them in ``memory/reembed.json`` beside the collections), and a run again goes on with the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from gateway.problem_vector import EMBED_CHARS, combined, head
from kernel.vector_model import VectorModel
from services.kg import episode_reembed
from services.kg.episode_reembed import VectorCounts
from services.kg.journal import Journal
from services.kg.settings import KgSettings
from services.kg.store import KgStore

BATCH = 64  # texts per encode call


class Encoder(Protocol):
    """The embedding model ``mnemex reembed`` embeds with (services/embedding/model.py's, or a test's)."""

    model_id: str
    dimension: int

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """(len(texts), dimension) float32 unit vectors."""


@dataclass
class KgReembedReport:
    books: int = 0  # users' episode books re-embedded by this run
    already_done: int = 0  # books an interrupted run had finished (not counted in ``vectors``)
    vectors: VectorCounts = field(default_factory=VectorCounts)

    def as_json(self) -> dict[str, object]:
        return {
            "books": self.books,
            "already_done": self.already_done,
            "reembedded": self.vectors.reembedded,
            "dropped": self.vectors.dropped,
        }


def kg_path(home: Path) -> Path:
    return KgSettings(address="", home=home).db_path


def _encoded(encoder: Encoder, texts: list[str]) -> list[npt.NDArray[np.float32]]:
    rows = [np.asarray(encoder.encode(texts[i : i + BATCH]), dtype=np.float32) for i in range(0, len(texts), BATCH)]
    return list(np.concatenate(rows)) if rows else []


def statement_vectors(encoder: Encoder, statements: list[str]) -> dict[str, npt.NDArray[np.float32]]:
    """Each statement's vector as the gateway sends it to the kg (gateway/problem_vector.py)."""
    wholes = _encoded(encoder, [s[:EMBED_CHARS] for s in statements])
    heads = {s: head(s) for s in statements}
    told = [h for h in dict.fromkeys(heads.values()) if h]
    of_head = dict(zip(told, _encoded(encoder, told), strict=True))
    return {
        s: combined(whole, of_head.get(heads[s]) if heads[s] else None)
        for s, whole in zip(statements, wholes, strict=True)
    }


def reembed_kg(
    home: Path, encoder: Encoder, *, done: Collection[str] = (), mark_done: Callable[[str], None] | None = None
) -> KgReembedReport:
    """Every episode book of the home's kg but those of the users ``done`` given the vectors of
    ``encoder``; ``mark_done(user)`` once a user's book is (module docstring)."""
    report = KgReembedReport()
    path = kg_path(home)
    if not path.exists():  # a home whose kg never ran: nothing to do, and no store is made
        return report
    model = VectorModel(encoder.model_id, int(encoder.dimension))
    store = KgStore(Journal(path))
    try:
        for user in store.episode_users():
            if user in done:
                report.already_done += 1
                continue
            book = store.episode_book(user)
            texts = episode_reembed.kept_texts(book)
            statements = statement_vectors(encoder, texts.statements)
            lines = dict(zip(texts.lines, _encoded(encoder, [line[:EMBED_CHARS] for line in texts.lines]), strict=True))
            op, counts = episode_reembed.reembed_op(book, model, statements, lines)
            store.reembed_episodes(user, op)
            report.books += 1
            report.vectors.add(counts)
            if mark_done is not None:
                mark_done(user)
    finally:
        store.close()
    return report
