"""All graphs of one scope, and the operations that change them.

Every change is a plain JSON-able dict (an "op") applied by ``apply_op``.
The store journals each op before applying it and replays the journal on
start, so the in-memory graphs and the disk always agree. Ops carry their
own timestamps and already-extracted entities, so a replay is exact even
if the extractor changes between versions.
"""

from __future__ import annotations

from typing import Any

from services.kg import problem_merges
from services.kg.actions import ActionGraph
from services.kg.content import ContentGraph
from services.kg.episodes import EpisodeBook
from services.kg.keys import Outcome, Relation
from services.kg.problem_match import MatchRules
from services.kg.problems import FailureGraph, ProblemGraph
from services.kg.routing import RoutingGraph

EXPORT_FORMAT = "mnemex-kg"
EXPORT_VERSION = 1
UNSPECIFIED_REASON = "unspecified"


class ScopeGraphs:
    def __init__(self, rules: MatchRules | None = None) -> None:
        self.routing = RoutingGraph()
        self.actions = ActionGraph()
        self.content = ContentGraph()
        self.problems = ProblemGraph()
        self.failures = FailureGraph()
        self.episodes = EpisodeBook(rules)
        self.outcomes_recorded = 0

    # -- ops --------------------------------------------------------------
    def apply_op(self, op: dict[str, Any]) -> Any:
        kind = op["op"]
        if kind == "outcome":
            return self._apply_outcome(op)
        if kind == "action":
            return self.actions.record(
                op["context_type"], op["action"], op["collection"], Outcome(op["outcome"]), op["doc_id"], op["ts"]
            )
        if kind == "fact":
            relations = [Relation(*r) for r in op["relations"]]
            self.content.index_fact(op["fact_id"], [tuple(e) for e in op["entities"]], relations)
            return None
        if kind == "remove_docs":
            return self.remove_docs(set(op["doc_ids"]))
        if kind == "turn":
            return self.episodes.apply_turn(op)
        if kind == "tool_error":
            return self.episodes.apply_tool_error(op)
        if kind == "import":
            self.load_json(op["data"])
            return None
        if kind == "import_episodes":
            return self.episodes.import_problems(op["data"], str(op["project"]))
        if kind == "merge_problems":
            return problem_merges.merge_problems(
                self.episodes, str(op["project"]), str(op["keep"]), str(op["merge"]), float(op["ts"])
            )
        if kind == "unmerge_problems":
            return problem_merges.unmerge_problems(
                self.episodes, str(op["project"]), str(op["merge_id"]), float(op["ts"])
            )
        raise ValueError(f"unknown kg op {kind!r}")

    def _apply_outcome(self, op: dict[str, Any]) -> None:
        outcome, ts = Outcome(op["outcome"]), float(op["ts"])
        concepts, collections, doc_ids = op["concepts"], op["collections"], op["doc_ids"]
        self.outcomes_recorded += 1
        if concepts and collections:
            self.routing.record(concepts, collections, outcome, ts)
        if op.get("signature") and doc_ids:
            self.problems.record(op["signature"], doc_ids, outcome, op.get("problem", ""), ts)
        if outcome is Outcome.FAILED and concepts:
            self.failures.record(concepts[:8], op.get("failure_reason") or UNSPECIFIED_REASON, doc_ids, ts)
        # Action effectiveness is taught by RecordAction only (the gateway sends
        # one per scored memory), so an outcome is never counted twice there.

    def remove_docs(self, doc_ids: set[str]) -> int:
        removed = sum(self.content.remove_fact(doc_id) for doc_id in doc_ids)
        removed += self.problems.remove_docs(doc_ids)
        removed += self.actions.remove_docs(doc_ids)
        removed += self.failures.remove_docs(doc_ids)
        return removed

    def referenced_doc_ids(self) -> set[str]:
        """Every doc id any graph still points at (for dangling-reference checks)."""
        return self.content.doc_ids() | self.problems.doc_ids() | self.actions.doc_ids() | self.failures.doc_ids()

    # -- export / import --------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "outcomes_recorded": self.outcomes_recorded,
            "routing": self.routing.to_json(),
            "actions": self.actions.to_json(),
            "content": self.content.to_json(),
            "problems": self.problems.to_json(),
            "failures": self.failures.to_json(),
            "episodes": self.episodes.to_json(),
        }

    def load_json(self, data: dict[str, Any]) -> None:
        """Merge an export into this scope (counts add up)."""
        self.outcomes_recorded += int(data.get("outcomes_recorded", 0))
        self.routing.load_json(data.get("routing", {}))
        self.actions.load_json(data.get("actions", {}))
        self.content.load_json(data.get("content", {}))
        self.problems.load_json(data.get("problems", {}))
        self.failures.load_json(data.get("failures", {}))
        self.episodes.load_json(data.get("episodes", {}))

    def counts(self) -> dict[str, int]:
        merged = {"outcomes_recorded": self.outcomes_recorded}
        for part in (self.routing, self.actions, self.content, self.problems, self.failures, self.episodes):
            merged.update(part.counts())
        return merged
