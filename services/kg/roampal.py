"""Read Roampal's ``knowledge_graph.json`` layout into a mnemex export.

Roampal keeps: routing_patterns (concept -> collections_used stats and a
best_collection), success_rates, failure_patterns, problem_categories,
problem_solutions, solution_patterns and context_action_effectiveness.
Counts carry over as counts, so the imported evidence routes the same way
as the same outcomes recorded here. Roampal's partial-or-unknown remainder
(``total`` minus successes and failures) becomes "unknown": it neither
raises nor lowers a preference.
"""

from __future__ import annotations

from datetime import datetime

from kernel.json_values import JSONArray, JSONObject, JSONValue
from services.kg.actions import action_key
from services.kg.graphs import EXPORT_FORMAT, EXPORT_VERSION
from services.kg.json_fields import obj, to_int
from services.kg.keys import concept_key

ROAMPAL_KEYS = (
    "routing_patterns",
    "success_rates",
    "failure_patterns",
    "problem_categories",
    "problem_solutions",
    "solution_patterns",
    "context_action_effectiveness",
)


def looks_like_roampal(data: JSONObject) -> bool:
    return "format" not in data and any(key in data for key in ROAMPAL_KEYS)


def _section(data: JSONObject, key: str) -> JSONObject:
    """A top-level section (an object; missing or empty: none); ``TypeError`` when it is something else."""
    return obj(data.get(key) or {})


def _ts(value: JSONValue) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return 0.0
    return 0.0


def _int(stats: JSONObject, *names: str) -> int:
    for name in names:
        value = stats.get(name)
        if isinstance(value, (int, float)) and value > 0:
            return int(value)
    return 0


def _counts(stats: JSONObject, total_field: str = "total") -> dict[str, int]:
    worked = _int(stats, "successes", "success_count")
    failed = _int(stats, "failures", "failure_count")
    partial = _int(stats, "partials")
    unknown = max(0, _int(stats, total_field) - worked - failed - partial)
    return {"worked": worked, "partial": partial, "unknown": unknown, "failed": failed}


def _routing(data: JSONObject) -> JSONObject:
    concepts: dict[str, JSONObject] = {}
    collections: dict[str, dict[str, int]] = {}
    for concept, pattern in _section(data, "routing_patterns").items():
        if not isinstance(pattern, dict):
            continue
        used = pattern.get("collections_used")
        last = _ts(pattern.get("last_used"))
        best = pattern.get("best_collection")
        if isinstance(used, dict):
            for collection, stats in used.items():
                if isinstance(stats, dict):
                    concepts.setdefault(concept_key(concept), {})[collection] = {**_counts(stats), "last": last}
        elif "successes" in pattern or "total" in pattern:
            collections[concept] = _counts(pattern)  # older per-collection layout
        elif isinstance(best, str):
            # Only a verdict, no counts: keep it as one worked outcome.
            concepts.setdefault(concept_key(concept), {})[best] = {"worked": 1, "last": last}
    for collection, stats in _section(data, "success_rates").items():
        if isinstance(stats, dict):
            merged = collections.setdefault(collection, {})
            for name, value in _counts(stats).items():
                merged[name] = merged.get(name, 0) + value
    return {
        "concepts": dict(concepts),
        "collections": {collection: {**counts} for collection, counts in collections.items()},
    }


def _failures(data: JSONObject) -> JSONObject:
    out: JSONObject = {}
    for concept, entries in _section(data, "failure_patterns").items():
        items: JSONArray = []
        if isinstance(entries, dict):
            items = [{"reason": str(r), "count": int(c) if isinstance(c, int) else 1} for r, c in entries.items()]
        elif isinstance(entries, list):
            for entry in entries:
                if isinstance(entry, str):
                    items.append({"reason": entry, "count": 1})
                elif isinstance(entry, dict):
                    reason = entry.get("reason") or entry.get("failure_reason") or entry.get("error") or "unspecified"
                    docs: JSONArray = [str(entry["doc_id"])] if entry.get("doc_id") else []
                    items.append(
                        {
                            "reason": str(reason),
                            "count": to_int(entry.get("count", 1)),
                            "docs": docs,
                            "last": _ts(entry.get("timestamp")),
                        }
                    )
        if items:
            out[concept_key(concept)] = items
    return out


def _problems(data: JSONObject) -> JSONObject:
    texts: dict[str, str] = {}
    solved: dict[str, dict[str, dict[str, float]]] = {}  # signature -> doc id -> counts and "last"
    for signature, solutions in _section(data, "problem_solutions").items():
        texts.setdefault(signature, "")
        entry = solved.setdefault(signature, {})
        for solution in solutions if isinstance(solutions, list) else []:
            if isinstance(solution, dict) and solution.get("doc_id"):
                counts = _counts(solution)
                entry[str(solution["doc_id"])] = {**counts, "last": _ts(solution.get("last_used"))}
    for pattern_hash, pattern in _section(data, "solution_patterns").items():
        if "::" not in pattern_hash or not isinstance(pattern, dict):
            continue
        signature, doc_id = pattern_hash.rsplit("::", 1)
        texts[signature] = texts.get(signature, "") or str(pattern.get("problem", ""))[:300]
        known = solved.setdefault(signature, {}).setdefault(
            doc_id, {"worked": 0, "partial": 0, "unknown": 0, "failed": 0, "last": 0.0}
        )
        counts = _counts(pattern)
        known["worked"] = max(known["worked"], counts["worked"])
        known["failed"] = max(known["failed"], counts["failed"])
    problems: JSONObject = {
        signature: {"text": texts[signature], "solutions": {doc: {**stats} for doc, stats in solved[signature].items()}}
        for signature in texts
    }
    categories: JSONObject = {
        str(k): [str(m) for m in v] for k, v in _section(data, "problem_categories").items() if isinstance(v, list)
    }
    return {"problems": problems, "categories": categories}


def _examples(value: JSONValue) -> JSONArray:
    """The ``examples`` of an action: a list; an object or a string holds none (none of their items is an
    object); anything else is not iterable (``TypeError``)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict | str):
        return []
    raise TypeError(f"{type(value).__name__} object is not iterable")


def _actions(data: JSONObject) -> JSONObject:
    out: JSONObject = {}
    for key, stats in _section(data, "context_action_effectiveness").items():
        parts = str(key).split("|")
        if len(parts) != 3 or not isinstance(stats, dict):
            continue
        examples: JSONArray = [
            {
                "ts": _ts(ex.get("timestamp")),
                "outcome": str(ex.get("outcome", "unknown")),
                "doc_id": str(ex.get("doc_id") or ""),
            }
            for ex in _examples(stats.get("examples", []))
            if isinstance(ex, dict)
        ]
        out[action_key(*parts)] = {
            **_counts(stats, "total_uses"),
            "first": _ts(stats.get("first_seen")) or None,
            "last": _ts(stats.get("last_used")) or None,
            "examples": examples,
        }
    return out


def convert(data: JSONObject) -> JSONObject:
    """Roampal knowledge_graph.json -> mnemex export JSON (same routing answers)."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "routing": _routing(data),
        "actions": _actions(data),
        "content": {},
        "problems": _problems(data),
        "failures": _failures(data),
    }
