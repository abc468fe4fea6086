"""Action-effectiveness graph: which action on which collection works in
which kind of context ("coding|search_memory|patterns" -> 85% success).

A multigraph from context-type nodes to collection nodes, one edge per
action, carrying outcome counts and the last few examples (with the doc id
they involved, so removing a doc can remove its examples).
"""

from __future__ import annotations

from typing import Any, TypedDict

import networkx as nx

from kernel.json_values import JSONObject
from services.kg.json_fields import arr, obj, to_int
from services.kg.keys import Outcome
from services.kg.routing import COUNT_FIELDS, Counts, graded, success_rate

MAX_EXAMPLES = 20
# networkx's edge data: outcome counts (COUNT_FIELDS), "first" and "last" (a float or None) and "examples" (a list
# of {"ts", "outcome", "doc_id"}), each updated in place by an outcome's name.
EdgeData = dict[str, Any]  # type: ignore[explicit-any]  # networkx ships no types and the counts are keyed by name
ANY_COLLECTION = "*"


class ActionRow(TypedDict):
    """One action's stats, as ``top`` lists them (the fields of the ActionStat proto)."""

    context_type: str
    action: str
    collection: str
    worked: int
    partial: int
    unknown: int
    failed: int
    success_rate: float
    last: float


def action_key(context_type: str, action: str, collection: str) -> str:
    return f"{context_type}|{action}|{collection or ANY_COLLECTION}"


class ActionGraph:
    def __init__(self) -> None:
        self.graph = nx.MultiDiGraph()

    def _edge(self, context_type: str, action: str, collection: str) -> EdgeData:
        source, target = f"context:{context_type}", f"collection:{collection or ANY_COLLECTION}"
        if not self.graph.has_edge(source, target, key=action):
            self.graph.add_edge(
                source, target, key=action, first=None, last=None, examples=[], **dict.fromkeys(COUNT_FIELDS, 0)
            )
        edge: EdgeData = self.graph.edges[source, target, action]
        return edge

    def record(
        self, context_type: str, action: str, collection: str, outcome: Outcome, doc_id: str, ts: float
    ) -> tuple[float, int]:
        edge = self._edge(context_type, action, collection)
        edge[outcome.value] += 1
        edge["first"] = ts if edge["first"] is None else min(edge["first"], ts)
        edge["last"] = ts if edge["last"] is None else max(edge["last"], ts)
        edge["examples"].append({"ts": ts, "outcome": outcome.value, "doc_id": doc_id})
        del edge["examples"][:-MAX_EXAMPLES]
        return success_rate(edge), self.total(edge)

    @staticmethod
    def total(edge: Counts) -> int:
        return graded(edge) + int(edge.get("unknown", 0))

    def stats(self, context_type: str, action: str, collection: str) -> JSONObject | None:
        source, target = f"context:{context_type}", f"collection:{collection or ANY_COLLECTION}"
        if not self.graph.has_edge(source, target, key=action):
            return None
        edge = self.graph.edges[source, target, action]
        return {**edge, "success_rate": success_rate(edge), "total": self.total(edge)}

    def top(self, limit: int, context_type: str = "") -> list[ActionRow]:
        """Action stats with at least one graded outcome, most evidence first."""
        rows: list[ActionRow] = []
        for source, target, action, edge in self.graph.edges(keys=True, data=True):
            context = source.removeprefix("context:")
            if context_type and context != context_type:
                continue
            if graded(edge) == 0:
                continue
            rows.append(
                ActionRow(
                    context_type=context,
                    action=action,
                    collection=target.removeprefix("collection:"),
                    worked=int(edge["worked"]),
                    partial=int(edge["partial"]),
                    unknown=int(edge["unknown"]),
                    failed=int(edge["failed"]),
                    success_rate=round(success_rate(edge), 4),
                    last=float(edge["last"] or 0.0),
                )
            )
        rows.sort(key=lambda r: (-(r["worked"] + r["partial"] + r["failed"]), -r["last"], r["action"]))  # graded first
        return rows[:limit]

    def remove_docs(self, doc_ids: set[str]) -> int:
        removed = 0
        for _, _, edge in self.graph.edges(data=True):
            kept = [ex for ex in edge["examples"] if ex.get("doc_id") not in doc_ids]
            removed += len(edge["examples"]) - len(kept)
            edge["examples"] = kept
        return removed

    def doc_ids(self) -> set[str]:
        return {
            ex["doc_id"] for _, _, edge in self.graph.edges(data=True) for ex in edge["examples"] if ex.get("doc_id")
        }

    def to_json(self) -> JSONObject:
        out: JSONObject = {}
        for source, target, action, edge in self.graph.edges(keys=True, data=True):
            key = action_key(source.removeprefix("context:"), action, target.removeprefix("collection:"))
            out[key] = {
                **{k: edge[k] for k in COUNT_FIELDS},
                "success_rate": round(success_rate(edge), 4),
                "first": edge["first"],
                "last": edge["last"],
                "examples": list(edge["examples"]),
            }
        return out

    def load_json(self, data: JSONObject) -> None:
        for key, entry in data.items():
            parts = key.split("|")
            if len(parts) != 3:
                continue
            stats = obj(entry)
            edge = self._edge(*parts)
            for name in COUNT_FIELDS:
                edge[name] += to_int(stats.get(name, 0))
            for stamp in ("first", "last"):
                value = stats.get(stamp)
                if isinstance(value, (int, float)):
                    current = edge[stamp]
                    edge[stamp] = value if current is None else (min if stamp == "first" else max)(current, value)
            edge["examples"].extend(arr(stats.get("examples", [])))
            del edge["examples"][:-MAX_EXAMPLES]

    def counts(self) -> dict[str, int]:
        return {"actions": self.graph.number_of_edges()}
