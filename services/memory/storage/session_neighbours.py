"""The order of a collection's memories within each session, for "the turns around a hit".

Plain module. A memory written in a session (``MemoryRecord.session_id``) sits
between the memory written just before it and the one written just after, in
creation order (ties broken by id, so the order is total and stable). The
search uses that adjacency (``retrieval.session_boost``): a conversation turn
is rarely understood alone, and a hit's neighbours often hold the other half of
the answer ("what did we decide?" finds the decision; the turn before it holds
the question that named the topic).

Archived memories and memories without a session are left out, so an archived
turn's neighbours become adjacent to each other. Sessions are short (tens to a
few hundred memories), so each keeps a sorted list and a write costs a bisect
and a list insert; every memory's place (session, before, after) is kept beside
it, linked like a list, so a search reads it with one dictionary lookup.
"""

from __future__ import annotations

import bisect

from services.memory.domain.record import MemoryRecord

_Key = tuple[float, str]  # (created_ts, id): the position of a memory in its session
Place = tuple[str | None, str | None, str | None]  # (session, written just before, written just after)
NOWHERE: Place = (None, None, None)


class SessionOrder:
    def __init__(self) -> None:
        self._members: dict[str, list[_Key]] = {}
        self._placed: dict[str, tuple[str, _Key]] = {}  # memory id -> (session, key)
        # memory id -> (session, id just before, id just after): kept linked on every write, so the
        # search reads a memory's place with one dict lookup
        self.places: dict[str, Place] = {}

    def __len__(self) -> int:
        return len(self._placed)

    def place(self, record: MemoryRecord) -> None:
        """Insert, move or drop ``record`` so its place matches its session, time and state."""
        session = record.session_id
        if not session or record.archived:
            self.drop(record.id)
            return
        key = (record.created_ts, record.id)
        if self._placed.get(record.id) == (session, key):
            return
        self.drop(record.id)
        members = self._members.setdefault(session, [])
        at = bisect.bisect_left(members, key)
        before = members[at - 1][1] if at > 0 else None
        after = members[at][1] if at < len(members) else None
        members.insert(at, key)
        self._placed[record.id] = (session, key)
        self.places[record.id] = (session, before, after)
        self._set_after(before, record.id)
        self._set_before(after, record.id)

    def drop(self, memory_id: str) -> None:
        placed = self._placed.pop(memory_id, None)
        if placed is None:
            return
        session, key = placed
        members = self._members[session]
        del members[bisect.bisect_left(members, key)]
        if not members:
            del self._members[session]
        _, before, after = self.places.pop(memory_id)
        self._set_after(before, after)
        self._set_before(after, before)

    def _set_after(self, memory_id: str | None, after: str | None) -> None:
        if memory_id is not None:
            session, before, _ = self.places[memory_id]
            self.places[memory_id] = (session, before, after)

    def _set_before(self, memory_id: str | None, before: str | None) -> None:
        if memory_id is not None:
            session, _, after = self.places[memory_id]
            self.places[memory_id] = (session, before, after)

    def place_of(self, memory_id: str) -> Place:
        """(session, id written just before, id written just after); all ``None`` outside any session."""
        return self.places.get(memory_id, NOWHERE)

    def session_of(self, memory_id: str) -> str | None:
        return self.place_of(memory_id)[0]

    def neighbours(self, memory_id: str) -> tuple[str | None, str | None]:
        """The ids written just before and just after ``memory_id`` in its session (``None``: none)."""
        _, before, after = self.place_of(memory_id)
        return before, after
