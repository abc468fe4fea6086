"""Embed every stored memory again with another model, in place, without losing one on a crash.

``reembed_home(home, encoder)`` works on the embedded Chroma store of a home with the stack
stopped (the memory service holds Chroma and keeps every vector in its search mirrors; a
reembed under it would serve vectors of two models). For each mnemex collection ``mx-…``:

1. a sibling ``rx-…`` is filled with every row (id, document, metadata: scores, outcomes,
   dates) and the vector of its text by the new model; the original is untouched;
2. the sibling's count is checked against the original's;
3. the original is dropped and the sibling renamed to its name.

``memory/reembed.json`` (``kernel.vector_model``) names the model and the parts done;
the memory service refuses to start while it exists. Run again after an interruption, the
reembed goes on: an ``rx-`` beside its ``mx-`` is half filled and is filled again, an ``rx-``
whose ``mx-`` is gone is complete and only renamed. At the end the home records the model
(``memory/vectors.json``) and the progress file goes. A new dimension needs no more than this,
since each collection is made anew.

The kg's vectors (known problems, open episodes, tool errors) are made again too, after the
collections and before the record (``mnemex.upgrade.reembed_kg``): each user's episode book
through the kg's journaled write path, and named ``kg:<user>`` in the progress file once done.

The text embedded is the one the memory service embedded: the content, with a book chunk's
title in front (``book_ingest``), clipped at ``max_chars``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from kernel import vector_model
from kernel.vector_model import VectorModel
from mnemex.upgrade.reembed_kg import Encoder, KgReembedReport, reembed_kg

if TYPE_CHECKING:  # chromadb is imported by whoever opens the client
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection
    from chromadb.api.types import Metadata, Space

PREFIX = "mx-"
SIBLING = "rx-"
KG_DONE = "kg:"  # a user's episode book done, in the progress file
PAGE = 256  # rows read and written at a time
BATCH = 64  # texts per encode call (the encoder's sweet spot on a CPU)
MAX_CHARS = 8000  # MemorySettings.max_embed_chars


Progress = Callable[[int, int], None]  # (memories done, memories in all)


@dataclass
class ReembedReport:
    model: VectorModel
    previous: VectorModel | None
    collections: int = 0
    memories: int = 0
    already_done: int = 0  # collections an interrupted run had finished
    resumed: list[str] = field(default_factory=list)  # of those, the ones whose swap it had cut short
    kg: KgReembedReport = field(default_factory=KgReembedReport)

    def as_json(self) -> dict[str, object]:
        return {
            "model": {"model_id": self.model.model_id, "dimension": self.model.dimension},
            "previous": None
            if self.previous is None
            else {"model_id": self.previous.model_id, "dimension": self.previous.dimension},
            "collections": self.collections,
            "memories": self.memories,
            "already_done": self.already_done,
            "resumed": self.resumed,
            "kg": self.kg.as_json(),
        }


def embed_text(document: str, metadata: Mapping[str, object], max_chars: int = MAX_CHARS) -> str:
    """What the memory service embedded for this row."""
    title = metadata.get("title")
    if metadata.get("kind") == "book" and isinstance(title, str) and title:
        document = f"{title}\n{document}"
    return document[:max_chars]


def sibling_of(name: str) -> str:
    return SIBLING + name[len(PREFIX) :]


def original_of(name: str) -> str:
    return PREFIX + name[len(SIBLING) :]


def _names(client: ClientAPI) -> set[str]:
    return {item if isinstance(item, str) else item.name for item in client.list_collections()}


def _collection(client: ClientAPI, name: str) -> Collection:
    return client.get_collection(name, embedding_function=None)


def _space(handle: Collection) -> str:
    return str(((getattr(handle, "configuration", None) or {}).get("hnsw") or {}).get("space", "cosine"))


def _fill(
    client: ClientAPI, source: Collection, encoder: Encoder, max_chars: int, step: Callable[[int], None]
) -> Collection:
    name = sibling_of(source.name)
    if name in _names(client):
        client.delete_collection(name)  # half filled by an interrupted run
    target = client.create_collection(
        name,
        configuration={"hnsw": {"space": cast("Space", _space(source))}},  # the source's own space
        metadata=dict(source.metadata or {}) or None,
        embedding_function=None,
    )
    offset = 0
    while True:
        page = source.get(include=["documents", "metadatas"], limit=PAGE, offset=offset)
        ids = list(page.get("ids") or [])
        if not ids:
            break
        documents = [d or "" for d in page.get("documents") or [""] * len(ids)]
        metadatas = [dict(m or {}) for m in page.get("metadatas") or [{}] * len(ids)]
        texts = [embed_text(d, m, max_chars) for d, m in zip(documents, metadatas, strict=True)]
        vectors = np.concatenate(
            [np.asarray(encoder.encode(texts[i : i + BATCH]), dtype=np.float32) for i in range(0, len(texts), BATCH)]
        )
        # A row without metadata passes None, which Chroma takes.
        rows_metadata = cast("list[Metadata]", [m or None for m in metadatas])
        target.add(ids=ids, documents=documents, metadatas=rows_metadata, embeddings=vectors)
        step(len(ids))
        offset += len(ids)
    if int(target.count()) != int(source.count()):
        raise RuntimeError(f"{name}: {target.count()} rows embedded, {source.count()} stored; nothing was swapped")
    return target


def reembed_home(
    client: ClientAPI,
    home: Path,
    encoder: Encoder,
    *,
    max_chars: int = MAX_CHARS,
    progress: Progress | None = None,
) -> ReembedReport:
    """Every memory of ``client`` (the home's Chroma) embedded again by ``encoder`` (module docstring)."""
    model = VectorModel(encoder.model_id, int(encoder.dimension))
    record = vector_model.read_record(home)
    report = ReembedReport(model, record.model if record else None)
    earlier = vector_model.read_progress(home)
    done = list(earlier[1]) if earlier is not None and earlier[0] == model else []
    names = _names(client)
    for name in sorted(n for n in names if n.startswith(SIBLING) and original_of(n) not in names):
        _collection(client, name).modify(name=original_of(name))  # filled and checked; the swap was cut short
        report.resumed.append(original_of(name))
        if original_of(name) not in done:
            done.append(original_of(name))
    names = _names(client)
    todo = sorted(n for n in names if n.startswith(PREFIX) and n not in done)
    report.already_done = sum(not name.startswith(KG_DONE) for name in done)
    vector_model.write_progress(home, model, done)
    total = sum(int(_collection(client, n).count()) for n in todo)
    counted = 0

    def step(rows: int) -> None:
        nonlocal counted
        counted += rows
        if progress is not None:
            progress(counted, total)

    if progress is not None:
        progress(0, total)
    for name in todo:
        source = _collection(client, name)
        target = _fill(client, source, encoder, max_chars, step)
        client.delete_collection(name)
        target.modify(name=name)
        done.append(name)
        vector_model.write_progress(home, model, done)
        report.collections += 1
    report.memories = counted

    def kg_done(user: str) -> None:
        done.append(KG_DONE + user)
        vector_model.write_progress(home, model, done)

    users = {name.removeprefix(KG_DONE) for name in done if name.startswith(KG_DONE)}
    report.kg = reembed_kg(home, encoder, done=users, mark_done=kg_done)
    vector_model.finish(home, model)
    return report
