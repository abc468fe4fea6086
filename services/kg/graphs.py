"""All graphs of one scope, and the operations that change them.

Every change is a plain JSON-able dict (an "op") applied by ``apply_op``.
The store journals each op before applying it and replays the journal on
start, so the in-memory graphs and the disk always agree. Ops carry their
own timestamps and already-extracted entities, so a replay is exact even
if the extractor changes between versions.
"""

from __future__ import annotations

from kernel.json_values import JSONObject, JSONValue
from services.kg import episode_reembed, problem_merges
from services.kg.actions import ActionGraph
from services.kg.content import ContentGraph
from services.kg.episodes import EpisodeBook
from services.kg.json_fields import arr, obj, text, to_float, to_int
from services.kg.keys import Outcome, Relation
from services.kg.problem_match import MatchRules
from services.kg.problems import FailureGraph, ProblemGraph
from services.kg.routing import RoutingGraph

EXPORT_FORMAT = "mnemex-kg"
EXPORT_VERSION = 1
UNSPECIFIED_REASON = "unspecified"


def _texts(value: JSONValue) -> list[str]:
    """A list of strings in an op; ``TypeError`` when it is not one."""
    return [text(item) for item in arr(value)]


def _pair(value: JSONValue) -> tuple[str, str]:
    """An (entity name, type) pair in a fact op."""
    name, type_ = arr(value)
    return text(name), text(type_)


def _number(value: JSONValue) -> float:
    """A number in an op as written (an int stays an int); ``TypeError`` for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    raise TypeError(f"expected a number, got {type(value).__name__}")


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
    def apply_op(self, op: JSONObject) -> object:
        """What the op returns: see each op's writer in ``KgStore``."""
        kind = op["op"]
        if kind == "outcome":
            self._apply_outcome(op)
            return None
        if kind == "action":
            return self.actions.record(
                text(op["context_type"]),
                text(op["action"]),
                text(op["collection"]),
                Outcome(text(op["outcome"])),
                text(op["doc_id"]),
                _number(op["ts"]),
            )
        if kind == "fact":
            relations = [Relation(*map(text, arr(r))) for r in arr(op["relations"])]
            entities = [_pair(e) for e in arr(op["entities"])]
            self.content.index_fact(text(op["fact_id"]), entities, relations)
            return None
        if kind == "remove_docs":
            return self.remove_docs({text(doc_id) for doc_id in arr(op["doc_ids"])})
        if kind == "turn":
            return self.episodes.apply_turn(op)
        if kind == "tool_error":
            self.episodes.apply_tool_error(op)
            return None
        if kind == "import":
            self.load_json(obj(op["data"]))
            return None
        if kind == "import_episodes":
            return self.episodes.import_problems(obj(op["data"]), str(op["project"]))
        if kind == "merge_problems":
            return problem_merges.merge_problems(
                self.episodes, str(op["project"]), str(op["keep"]), str(op["merge"]), to_float(op["ts"])
            )
        if kind == episode_reembed.REEMBED_OP:
            episode_reembed.apply_reembed(self.episodes, op)
            return None
        if kind == "unmerge_problems":
            return problem_merges.unmerge_problems(
                self.episodes, str(op["project"]), str(op["merge_id"]), to_float(op["ts"])
            )
        raise ValueError(f"unknown kg op {kind!r}")

    def _apply_outcome(self, op: JSONObject) -> None:
        outcome, ts = Outcome(text(op["outcome"])), to_float(op["ts"])
        concepts, collections, doc_ids = _texts(op["concepts"]), _texts(op["collections"]), _texts(op["doc_ids"])
        self.outcomes_recorded += 1
        if concepts and collections:
            self.routing.record(concepts, collections, outcome, ts)
        signature = op.get("signature")
        if signature and doc_ids:
            self.problems.record(text(signature), doc_ids, outcome, text(op.get("problem", "")), ts)
        if outcome is Outcome.FAILED and concepts:
            self.failures.record(concepts[:8], text(op.get("failure_reason") or UNSPECIFIED_REASON), doc_ids, ts)
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
    def to_json(self) -> JSONObject:
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

    def load_json(self, data: JSONObject) -> None:
        """Merge an export into this scope (counts add up)."""
        self.outcomes_recorded += to_int(data.get("outcomes_recorded", 0))
        self.routing.load_json(obj(data.get("routing", {})))
        self.actions.load_json(obj(data.get("actions", {})))
        self.content.load_json(obj(data.get("content", {})))
        self.problems.load_json(obj(data.get("problems", {})))
        self.failures.load_json(obj(data.get("failures", {})))
        self.episodes.load_json(obj(data.get("episodes", {})))

    def counts(self) -> dict[str, int]:
        merged = {"outcomes_recorded": self.outcomes_recorded}
        for part in (self.routing, self.actions, self.content, self.problems, self.failures, self.episodes):
            merged.update(part.counts())
        return merged
