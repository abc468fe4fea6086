"""Write paths: store (with near-duplicate refresh), update, archive, exchanges.

Every text is redacted (``kernel.privacy.redact``) before it is embedded or
stored. A write is acknowledged only after the store call returned.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from kernel.privacy import redact
from services.memory import timefmt
from services.memory.dedup import Neighbour, decide, dedup_pool, refreshed_fields
from services.memory.errors import InvalidRequest, LimitReached, MemoryNotFound
from services.memory.naming import (
    MEMORY_BANK,
    WORKING,
    Scope,
    check_collection,
    check_id,
    memory_id,
    new_uid,
    split_id,
)
from services.memory.normalize import as_bool, tags_of
from services.memory.outcomes import Outcome
from services.memory.runtime import Runtime
from services.memory.store import StoredMemory
from services.memory.write_rules import (
    MAX_REASON_CHARS,
    check_bank_attributes,
    check_unit,
    clean_content,
    clean_tags,
    new_metadata,
    parse_extra_metadata,
)

EXCHANGE_PART_CHARS = 20_000


@dataclass(frozen=True)
class StoreResult:
    memory: StoredMemory
    deduplicated: bool


async def _nearest(rt: Runtime, scope: Scope, collection: str, vector: object) -> list[Neighbour]:
    pool = dedup_pool(collection)
    hits = await rt.gather(*(rt.io(rt.store.query, scope, c, vector, 2) for c in pool))
    return [
        Neighbour(h.memory.id, h.memory.collection, h.similarity, as_bool(h.memory.metadata.get("archived", False)))
        for group in hits
        for h in group
    ]


async def _check_bank_cap(rt: Runtime, scope: Scope) -> None:
    if rt.settings.memory_bank_cap <= 0:
        return
    rows = await rt.io(rt.store.scan, scope, MEMORY_BANK, documents=False)
    active = sum(1 for r in rows if not as_bool(r.metadata.get("archived", False)))
    if active >= rt.settings.memory_bank_cap:
        raise LimitReached(
            f"memory_bank already holds {active} active facts (cap {rt.settings.memory_bank_cap}): archive outdated "
            "facts, or raise MNEMEX_MEMORY_BANK_CAP"
        )


async def store_memory(
    rt: Runtime,
    scope: Scope,
    *,
    collection: str,
    content: str,
    vector: bytes = b"",
    tags: Sequence[str] = (),
    importance: float | None = None,
    confidence: float | None = None,
    metadata_json: str = "",
    initial_outcome: Outcome | None = None,
    allow_duplicate: bool = False,
    session_id: str = "",
    kind: str = "",
) -> StoreResult:
    check_collection(collection)
    text = clean_content(content, rt.settings.max_content_chars)
    clean = clean_tags(tags)
    check_bank_attributes(collection, importance, confidence)
    extra = parse_extra_metadata(metadata_json)
    if kind:
        extra["kind"] = kind
    embedding = await rt.vector_for(text, vector)
    owner = scope.owner_of(collection)
    async with rt.locks.hold(f"write:{owner.user}:{owner.project}:{collection}"):
        if not allow_duplicate:
            decision = decide(collection, await _nearest(rt, scope, collection, embedding), rt.settings.dedup_threshold)
            if decision.refresh is not None:
                refreshed = await _refresh(rt, scope, decision.refresh.id, text, embedding, clean, importance, confidence)
                if refreshed is not None:
                    return StoreResult(refreshed, True)
        if collection == MEMORY_BANK:
            await _check_bank_cap(rt, scope)
        now = rt.now()
        meta = new_metadata(
            collection=collection,
            project=scope.project,
            now=now,
            tags=clean,
            importance=importance,
            confidence=confidence,
            initial_outcome=initial_outcome,
            session_id=session_id,
            extra=extra,
        )
        memory = StoredMemory(memory_id(collection, new_uid()), collection, text, meta, embedding)
        await rt.add(scope, [memory])
        return StoreResult(memory, False)


async def _refresh(
    rt: Runtime,
    scope: Scope,
    existing_id: str,
    text: str,
    embedding: object,
    tags: list[str],
    importance: float | None,
    confidence: float | None,
) -> StoredMemory | None:
    _, uid = split_id(existing_id)
    async with rt.locks.hold(uid):
        current = await rt.locate(scope, existing_id)
        if current is None or as_bool(current.metadata.get("archived", False)):
            return None
        changes = refreshed_fields(
            current.metadata,
            collection=current.collection,
            refreshed_at=timefmt.to_iso(rt.now()),
            existing_tags=tags_of(current.metadata),
            new_tags=tags,
            importance=importance,
            confidence=confidence,
        )
        if "tags" in changes:
            changes["tags"] = json.dumps(changes["tags"])
        current.document = text
        current.embedding = embedding  # type: ignore[assignment]
        await rt.update(scope, current, changes)
        current.embedding = None
        return current


async def update_memory(
    rt: Runtime,
    scope: Scope,
    memory_id_: str,
    *,
    content: str | None,
    tags: Sequence[str],
    replace_tags: bool,
    importance: float | None,
    confidence: float | None,
) -> StoredMemory:
    memory_id_ = check_id(memory_id_)
    new_tags = clean_tags(tags)
    check_unit("importance", importance)
    check_unit("confidence", confidence)
    if content is None and not new_tags and not replace_tags and importance is None and confidence is None:
        raise InvalidRequest("nothing to update: pass content, tags (with replace_tags to overwrite), importance or confidence")
    text = clean_content(content, rt.settings.max_content_chars) if content is not None else None
    embedding = await rt.vector_for(text) if text is not None else None
    _, uid = split_id(memory_id_)
    async with rt.locks.hold(uid):
        current = await rt.locate(scope, memory_id_)
        if current is None:
            raise MemoryNotFound(f"no memory {memory_id_!r} in this scope: check the id (search_memory shows [id:...])")
        check_bank_attributes(current.collection, importance, confidence)
        changes: dict[str, object] = {"updated_at": timefmt.to_iso(rt.now())}
        if replace_tags or new_tags:
            merged = new_tags if replace_tags else list(dict.fromkeys([*tags_of(current.metadata), *new_tags]))
            changes["tags"] = json.dumps(merged)
        if importance is not None:
            changes["importance"] = importance
        if confidence is not None:
            changes["confidence"] = confidence
        if text is not None:
            current.document = text
            current.embedding = embedding
        await rt.update(scope, current, changes)
        current.embedding = None
        return current


async def archive_memory(rt: Runtime, scope: Scope, memory_id_: str, reason: str) -> StoredMemory:
    memory_id_ = check_id(memory_id_)
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidRequest(f"reason is longer than {MAX_REASON_CHARS} characters")
    _, uid = split_id(memory_id_)
    async with rt.locks.hold(uid):
        current = await rt.locate(scope, memory_id_)
        if current is None:
            raise MemoryNotFound(f"no memory {memory_id_!r} in this scope: check the id (search_memory shows [id:...])")
        if not as_bool(current.metadata.get("archived", False)):
            now = timefmt.to_iso(rt.now())
            changes = {"archived": True, "archived_at": now, "archived_reason": redact(reason.strip()), "updated_at": now}
            await rt.update(scope, current, changes)
        return current


def exchange_text(user_text: str, assistant_text: str) -> str:
    parts = []
    if user_text:
        parts.append(f"User: {user_text[:EXCHANGE_PART_CHARS]}")
    if assistant_text:
        parts.append(f"Assistant: {assistant_text[:EXCHANGE_PART_CHARS]}")
    return "\n".join(parts)


async def record_exchange(rt: Runtime, scope: Scope, session_id: str, user_text: str, assistant_text: str) -> str:
    """Store prompt + answer as one working memory and complete the session's turn."""
    if len(session_id) > 200:
        raise InvalidRequest("session_id is longer than 200 characters")
    turn = await rt.io(rt.state.open_turn, scope, session_id)
    user = redact(user_text).strip() or (turn.prompt if turn else "")
    answer = redact(assistant_text).strip()
    exchange_id = ""
    session = await rt.io(rt.state.resolve_session, scope, session_id)
    if user or answer:
        result = await store_memory(
            rt, scope, collection=WORKING, content=exchange_text(user, answer), session_id=session, kind="exchange"
        )
        exchange_id = result.memory.id
    await rt.io(
        rt.state.complete_turn, scope, session, exchange_id, user, answer[:EXCHANGE_PART_CHARS], rt.now().timestamp()
    )
    return exchange_id
