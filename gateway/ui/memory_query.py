"""The memories page's query: the collections, sorts, states and kinds it filters by, checked once
(``MemoryQuery.checked``), and the rules a page applies to its rows (a memory's kind, a search's sort order,
the collections an id names)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gateway import input_validation
from gateway.gateway_errors import InvalidInput
from gateway.replies.memory_replies import Memory
from kernel.json_values import object_at, str_at

COLLECTIONS = ("working", "history", "patterns", "memory_bank", "books")
BY_LENGTH = sorted(COLLECTIONS, key=len, reverse=True)  # longest first: "memory_bank_" before any shorter name
BROWSE_SORTS = ("recency", "score", "wilson", "uses")
SEARCH_SORTS = ("relevance", *BROWSE_SORTS)
ARCHIVED = ("active", "archived", "all")
# The kind filter's choices (the memory service's ``browse.MemoryKind``), with their labels.
KINDS = {
    "exchange": "exchange",
    "observation": "tool observation",
    "takeaway": "takeaway",
    "fact": "fact",
    "book": "book chunk",
    "other": "other",
}
PAGE_SIZE = 20
BULK_LIMIT = PAGE_SIZE  # bulk archive acts on the rows of one page
SEARCH_POOL = 100  # a search ranks this many, then the page is cut from them
MAX_PAGE = 500


@dataclass(frozen=True)
class MemoryQuery:
    query: str = ""
    collection: str = ""
    tag: str = ""
    sort: str = ""
    archived: str = "active"
    page: int = 1
    kind: str = ""

    def checked(self) -> MemoryQuery:
        if self.collection and self.collection not in COLLECTIONS:
            raise InvalidInput(f"collection={self.collection!r} is unknown: use one of {', '.join(COLLECTIONS)}")
        if self.sort and self.sort not in SEARCH_SORTS:
            raise InvalidInput(f"sort={self.sort!r} is unknown: use one of {', '.join(SEARCH_SORTS)}")
        if self.archived not in ARCHIVED:
            raise InvalidInput(f"archived={self.archived!r} is unknown: use one of {', '.join(ARCHIVED)}")
        if self.kind and self.kind not in KINDS:
            raise InvalidInput(f"kind={self.kind!r} is unknown: use one of {', '.join(KINDS)} (or none)")
        if not 1 <= self.page <= MAX_PAGE:
            raise InvalidInput(f"page={self.page} is out of range: use 1-{MAX_PAGE}")
        input_validation.text(self.query, "q", input_validation.MAX_QUERY_CHARS)
        input_validation.text(self.tag, "tag", input_validation.MAX_TAG_CHARS)
        return self


def memory_kind(collection: str, metadata: Mapping[str, object]) -> str:
    """A memory's kind, by the rule the memory service's Browse filters on (``browse.kind_of``)."""
    if collection == "books":
        return "book"
    if collection == "memory_bank":
        return "fact"
    if metadata.get("kind") == "exchange":
        return "exchange"
    marked = metadata.get("type")
    return str(marked) if marked in ("observation", "takeaway") else "other"


def kind_of(memory: Mapping[str, object]) -> str:
    """``memory_kind`` of a memory's JSON (the memories page's rows)."""
    return memory_kind(str_at(memory, "collection"), object_at(memory, "metadata"))


def sort_key(sort: str, memory: Memory) -> tuple[float, float, str]:
    if sort == "score":
        return (memory.score, 0.0, "")
    if sort == "wilson":
        return (memory.wilson_score, memory.score, "")
    if sort == "uses":
        return (memory.uses, memory.score, "")
    if sort == "recency":
        return (0.0, 0.0, memory.created_at)
    return (memory.final_rank_score or 0.0, 0.0, "")


def collections_of(ids: Sequence[str]) -> list[str]:
    """The collections these ids name (an id starts with its collection: ``memory_bank_<uid>``), so a lookup
    reads only their mirrors; [] (every collection) when one names none of them."""
    named = [next((c for c in BY_LENGTH if i.startswith(c + "_")), "") for i in ids]
    return [] if "" in named else sorted(set(named))
