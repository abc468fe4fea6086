"""What a search may ask for, checked once.

Pure module. ``build_search_params`` validates a request and says how to fix
it when it is wrong; ``filters`` applies what it parsed.

Metadata filters are a JSON object ``{"key": value}`` (equality) or
``{"key": {"$op": value}}`` with ``$eq $ne $gt $gte $lt $lte $in $nin
$contains``. A key is either a normalized field (``collection``, ``score``,
``uses``, ``created_at``, ``tags``, ...) or a stored metadata key (``title``,
``session_id``, ...). ``created_at`` comparisons are date-aware.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from kernel.json_values import JSONValue, parse_value
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import COLLECTIONS, check_collection, check_id

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
MAX_DAYS_BACK = 3650  # ten years: backfilled history is older than one
MAX_QUERY_CHARS = 10_000
MAX_FILTER_JSON_CHARS = 4_000
MAX_BOOST_IDS = 100
MAX_COLLECTION_WEIGHT = 10.0
OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$contains"})


class SortBy(StrEnum):
    RELEVANCE = "relevance"
    RECENCY = "recency"
    SCORE = "score"


@dataclass(frozen=True)
class FieldFilter:
    key: str
    op: str
    value: JSONValue  # a list for $in and $nin


@dataclass(frozen=True)
class SearchParams:
    query: str = ""
    has_vector: bool = False
    collections: tuple[str, ...] = COLLECTIONS
    limit: int = DEFAULT_LIMIT
    days_back: int = 0
    memory_id: str = ""
    sort_by: SortBy = SortBy.RELEVANCE
    filters: tuple[FieldFilter, ...] = ()
    collection_weights: Mapping[str, float] = field(default_factory=dict)
    boost_ids: tuple[str, ...] = ()
    # get-context: only the memory_bank facts that hold in this project (user-wide, or stated there;
    # ``fact_scope.holds_in``) are candidates, so another project's facts cannot crowd them out.
    # None (search_memory): every fact of the user.
    fact_project: str | None = None

    @property
    def semantic(self) -> bool:
        return bool(self.query) or self.has_vector


def build_search_params(
    *,
    query: str = "",
    has_vector: bool = False,
    collections: Sequence[str] = (),
    limit: int = 0,
    days_back: int = 0,
    memory_id: str = "",
    sort_by: str = "",
    filters_json: str = "",
    collection_weights: Mapping[str, float] | None = None,
    boost_ids: Sequence[str] = (),
) -> SearchParams:
    query = query.strip()
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidRequest(
            f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}: "
            "send the prompt's first part or a summary"
        )
    memory_id = check_id(memory_id) if memory_id.strip() else ""
    if not (query or has_vector or days_back or memory_id):
        raise InvalidRequest(
            "nothing to search for: pass at least one of query (text), days_back (1-3650, e.g. 7 for the "
            "last week) or id (a memory id such as patterns_<hex> from an [id:...] tag)"
        )
    if limit == 0:
        limit = DEFAULT_LIMIT
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit={limit} is out of range: use 1-{MAX_LIMIT} (0 means the default {DEFAULT_LIMIT})")
    if not 0 <= days_back <= MAX_DAYS_BACK:
        raise InvalidRequest(f"days_back={days_back} is out of range: use 1-{MAX_DAYS_BACK}, or 0 for no time limit")
    chosen = tuple(dict.fromkeys(check_collection(c) for c in collections)) or COLLECTIONS
    if sort_by:
        try:
            order = SortBy(sort_by)
        except ValueError:
            raise InvalidRequest(f"sort_by={sort_by!r} is unknown: use relevance, recency or score") from None
    else:
        order = SortBy.RELEVANCE if (query or has_vector) else SortBy.RECENCY
    weights = dict(collection_weights or {})
    for name, weight in weights.items():
        check_collection(name)
        if not (math.isfinite(weight) and 0.0 <= weight <= MAX_COLLECTION_WEIGHT):
            raise InvalidRequest(
                f"collection_weights[{name!r}]={weight} is out of range: use 0-{MAX_COLLECTION_WEIGHT} (1 = neutral)"
            )
    if len(boost_ids) > MAX_BOOST_IDS:
        raise InvalidRequest(f"{len(boost_ids)} boost_ids given; at most {MAX_BOOST_IDS} are allowed")
    return SearchParams(
        query=query,
        has_vector=has_vector,
        collections=chosen,
        limit=limit,
        days_back=days_back,
        memory_id=memory_id,
        sort_by=order,
        filters=parse_filters(filters_json),
        collection_weights=weights,
        boost_ids=tuple(dict.fromkeys(check_id(i) for i in boost_ids)),
    )


_FILTER_HELP = 'example: {"title": "Design notes", "score": {"$gte": 0.7}, "tags": {"$contains": "preference"}}'


def parse_filters(text: str) -> tuple[FieldFilter, ...]:
    if not text.strip():
        return ()
    if len(text) > MAX_FILTER_JSON_CHARS:
        raise InvalidRequest(f"metadata filters are {len(text)} characters; keep them under {MAX_FILTER_JSON_CHARS}")
    try:
        data = parse_value(text)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(f"metadata filters are not valid JSON ({exc.msg}); {_FILTER_HELP}") from None
    if not isinstance(data, dict):
        raise InvalidRequest(f"metadata filters must be a JSON object; {_FILTER_HELP}")
    out: list[FieldFilter] = []
    for key, spec in data.items():
        if isinstance(spec, dict):
            if not spec:
                raise InvalidRequest(f"filter {key!r} has an empty operator object; {_FILTER_HELP}")
            for op, value in spec.items():
                if op not in OPERATORS:
                    raise InvalidRequest(f"filter {key!r} uses unknown operator {op!r}: use one of {sorted(OPERATORS)}")
                if op in ("$in", "$nin") and not isinstance(value, list):
                    raise InvalidRequest(f"filter {key!r} {op} needs a list of values")
                out.append(FieldFilter(key, op, value))
        elif isinstance(spec, list):
            raise InvalidRequest(f'filter {key!r} is a list: use {{"$in": [...]}} to match any of several values')
        else:
            out.append(FieldFilter(key, "$eq", spec))
    return tuple(out)
