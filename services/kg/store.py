"""The kg's state: one ``ScopeGraphs`` per (user, project), journaled.

Reads touch only memory (a scope is loaded from disk the first time it is
asked for). Writes build an op, commit it to the journal, then apply it;
every ``snapshot_every`` ops a scope's full state is snapshotted and its
journal trimmed.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from kernel import error_signature
from kernel.json_values import JSONArray, JSONObject, JSONValue
from kernel.privacy import redact
from services.kg import problem_merges, roampal
from services.kg.episode_records import EpisodeLesson, ProblemMerge, vector_from_bytes
from services.kg.episode_reembed import REEMBED_OP
from services.kg.episodes import MAX_ERROR_CHARS, MAX_PROBLEM_CHARS, MAX_TRIED_CHARS, EpisodeBook, TurnResult
from services.kg.extraction import extract
from services.kg.graphs import EXPORT_FORMAT, ScopeGraphs
from services.kg.journal import Journal
from services.kg.json_fields import obj
from services.kg.keys import Outcome, concept_key
from services.kg.problem_match import MatchRules
from services.kg.problem_merges import ProblemSummary
from services.kg.problems import signature_for
from services.kg.routing import RouteAnswer


class ImportFormatError(ValueError):
    """The JSON is neither a mnemex export nor Roampal's layout."""


@dataclass(frozen=True)
class ScopeKey:
    user: str
    project: str

    def __str__(self) -> str:
        return f"{self.user}|{self.project}"


# Episodes and the problems learned from them live in one book per user (not per project), so a
# problem solved in one project can be recognised in another and labelled with its project. The
# name holds a "*", which no scope a client sends may (validation._SCOPE_RE), so it never collides.
EPISODES_PROJECT = "*episodes"


def episodes_scope(user: str) -> ScopeKey:
    return ScopeKey(user, EPISODES_PROJECT)


# The fields of an op (at any depth: a known problem in an import) that hold base64 of float32s, never text.
VECTOR_FIELDS = frozenset({"vector", "vectors", "phrasings", "symptoms"})


def redacted_op(value: JSONValue) -> JSONValue:
    """``value`` with every string redacted but its vectors: their base64 is long and random, a secret rule
    can match it by chance, and a redacted vector no longer decodes."""
    if isinstance(value, dict):
        return {redact(k): v if k in VECTOR_FIELDS else redacted_op(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted_op(v) for v in value]
    return redact(value) if isinstance(value, str) else value  # what redact_json does to one value


class KgStore:
    def __init__(
        self,
        journal: Journal,
        *,
        snapshot_every: int = 500,
        clock: Callable[[], float] = time.time,
        rules: MatchRules | None = None,
    ) -> None:
        self.journal = journal
        self.rules = rules or MatchRules()
        self.snapshot_every = snapshot_every
        self._clock = clock
        self._scopes: dict[str, ScopeGraphs] = {}
        self._pending: dict[str, int] = {}

    def graphs(self, scope: ScopeKey) -> ScopeGraphs:
        key = str(scope)
        graphs = self._scopes.get(key)
        if graphs is None:
            graphs = ScopeGraphs(self.rules)
            snapshot, ops, pending = self.journal.load(key)
            if snapshot is not None:
                graphs.load_json(snapshot)
            for op in ops:
                graphs.apply_op(op)
            self._scopes[key] = graphs
            self._pending[key] = pending
        return graphs

    def _mutate(self, scope: ScopeKey, op: JSONObject, *, snapshot_now: bool = False) -> object:
        """What ``ScopeGraphs.apply_op`` returns for ``op``, once the op is journaled."""
        graphs = self.graphs(scope)
        key = str(scope)
        op = obj(redacted_op(op))  # nothing reaches the journal, the graph or a snapshot unredacted
        self.journal.append(key, op)
        result = graphs.apply_op(op)
        self._pending[key] = self._pending.get(key, 0) + 1
        if snapshot_now or self._pending[key] >= self.snapshot_every:
            self.journal.snapshot(key, graphs.to_json())
            self._pending[key] = 0
        return result

    # -- writes -----------------------------------------------------------
    def record_outcome(
        self,
        scope: ScopeKey,
        *,
        concepts: list[str],
        collections: list[str],
        doc_ids: list[str],
        outcome: Outcome,
        context_type: str = "",
        problem: str = "",
        failure_reason: str = "",
    ) -> None:
        keys = [concept_key(c) for c in concepts if c.strip()]
        problem = redact(problem)  # before extraction: "KEY=value" splits into words no recogniser knows
        problem_concepts = extract(problem).concepts if problem.strip() else []
        if not keys:
            keys = problem_concepts
        signature = signature_for(problem_concepts or keys) if doc_ids else ""
        op: JSONObject = {
            "op": "outcome",
            "ts": self._clock(),
            "concepts": list(dict.fromkeys(keys)),
            "collections": list(dict.fromkeys(c for c in collections if c)),
            "doc_ids": list(dict.fromkeys(d for d in doc_ids if d)),
            "outcome": outcome.value,
            "context_type": context_type,
            "signature": signature,
            "problem": problem[:300],
            "failure_reason": failure_reason,
        }
        self._mutate(scope, op)

    def record_action(
        self, scope: ScopeKey, *, context_type: str, action: str, collection: str, outcome: Outcome, doc_id: str
    ) -> tuple[float, int]:
        op: JSONObject = {
            "op": "action",
            "ts": self._clock(),
            "context_type": context_type,
            "action": action,
            "collection": collection,
            "outcome": outcome.value,
            "doc_id": doc_id,
        }
        return cast("tuple[float, int]", self._mutate(scope, op))  # ActionGraph.record's (rate, total)

    def record_turn(
        self,
        scope: ScopeKey,
        *,
        session_id: str,
        prompt: str,
        vector: bytes,
        outcome: Outcome,
        answer: str,
        doc_id: str,
    ) -> TurnResult:
        """One scored turn for the session's episode; returns its problem statement and status."""
        op: JSONObject = {
            "op": "turn",
            "ts": self._clock(),
            "session_id": session_id,
            "project": scope.project,
            "prompt": redact(prompt)[:MAX_PROBLEM_CHARS],
            "vector": base64.b64encode(vector).decode("ascii") if vector else "",
            "outcome": outcome.value,
            "answer": redact(answer)[:400],
            "doc_id": doc_id,
        }
        return cast(TurnResult, self._mutate(episodes_scope(scope.user), op))  # EpisodeBook.apply_turn's

    def record_tool_error(
        self, scope: ScopeKey, *, session_id: str, command: str, output: str, vector: bytes = b""
    ) -> str:
        """Remember a failed tool call of the session (its command, error line and the line's vector);
        returns the signature."""
        line, signature = error_signature.of_output(redact(output))
        op: JSONObject = {
            "op": "tool_error",
            "ts": self._clock(),
            "session_id": session_id,
            "project": scope.project,
            "command": redact(command)[:MAX_TRIED_CHARS],
            "line": line[:MAX_ERROR_CHARS],
            "signature": signature,
            "vector": base64.b64encode(vector).decode("ascii") if vector and signature else "",
        }
        self._mutate(episodes_scope(scope.user), op)
        return signature

    def merge_problems(self, scope: ScopeKey, *, keep: str, merge: str) -> ProblemMerge:
        """Fold known problem ``merge`` into ``keep`` (both of the scope's project); refused before it
        is journaled (problem_merges.UnknownProblem / MergeRefused), so a replay never meets a refusal."""
        book = self.graphs(episodes_scope(scope.user)).episodes
        problem_merges.check_merge(book, scope.project, keep, merge)
        op: JSONObject = {
            "op": "merge_problems",
            "ts": self._clock(),
            "project": scope.project,
            "keep": keep,
            "merge": merge,
        }
        record = self._mutate(episodes_scope(scope.user), op)
        assert isinstance(record, ProblemMerge)
        return record

    def unmerge_problems(self, scope: ScopeKey, *, merge_id: str) -> ProblemMerge:
        """Undo a merge of two known problems of the scope's project; refused like ``merge_problems``."""
        book = self.graphs(episodes_scope(scope.user)).episodes
        problem_merges.check_unmerge(book, scope.project, merge_id)
        op: JSONObject = {"op": "unmerge_problems", "ts": self._clock(), "project": scope.project, "merge_id": merge_id}
        record = self._mutate(episodes_scope(scope.user), op)
        assert isinstance(record, ProblemMerge)
        return record

    def episode_users(self) -> list[str]:
        """The users whose episode book the journal holds."""
        suffix = f"|{EPISODES_PROJECT}"
        return [scope.removesuffix(suffix) for scope in self.journal.scopes() if scope.endswith(suffix)]

    def episode_book(self, user: str) -> EpisodeBook:
        """The user's episode book, to read (it changes only through this store's writes)."""
        return self.graphs(episodes_scope(user)).episodes

    def reembed_episodes(self, user: str, op: JSONObject) -> None:
        """Give the user's episode book the vectors of another embedding model: the op of
        ``episode_reembed.reembed_op``, journaled and applied like any write, then a snapshot (the
        op carries every vector of the book; a replay need not read it again)."""
        if op.get("op") != REEMBED_OP:
            raise ValueError(f"not a reembed op: {op.get('op')!r}")
        self._mutate(episodes_scope(user), op, snapshot_now=True)

    def known_problems(self, scope: ScopeKey) -> tuple[list[ProblemSummary], list[ProblemMerge]]:
        """The project's known problems, most recently seen first, and its merges that hold, newest first."""
        book = self.graphs(episodes_scope(scope.user)).episodes
        return problem_merges.list_problems(book, scope.project), problem_merges.merges_holding(book, scope.project)

    def counts(self, scope: ScopeKey) -> dict[str, int]:
        """The scope's graph counts; its known problems are counted in the user's episode book, where
        they live (the project's own graphs hold none)."""
        counts = self.graphs(scope).counts()
        counts.update(self.graphs(episodes_scope(scope.user)).episodes.counts(scope.project))
        return counts

    def knows_episodes(self, scope: ScopeKey) -> bool:
        """Whether the user's episodes hold any known problem (with none, ``episode_lessons`` is empty)."""
        return bool(self.graphs(episodes_scope(scope.user)).episodes.problems)

    def episode_lessons(
        self, scope: ScopeKey, *, session_id: str, vector: bytes, prompt: str, limit: int
    ) -> list[EpisodeLesson]:
        """What worked and what failed for the known problems matching a prompt (local project first)."""
        book = self.graphs(episodes_scope(scope.user)).episodes
        query = vector_from_bytes(vector)
        return book.lessons(
            query, session_id, scope.project, self._clock(), prompt=prompt, fixes=max(1, limit // 3), failures=limit
        )

    def index_fact(self, scope: ScopeKey, fact_id: str, text: str) -> list[tuple[str, str]]:
        extraction = extract(redact(text), with_relations=True)  # redacted first, as in record_outcome
        entities = [(e.name, e.type) for e in extraction.entities]
        pairs: JSONArray = [[name, type_] for name, type_ in entities]  # as the journal keeps them
        relations: JSONArray = [[r.source, r.target, r.relation] for r in extraction.relations]
        self._mutate(scope, {"op": "fact", "fact_id": fact_id, "entities": pairs, "relations": relations})
        return entities

    def remove_docs(self, scope: ScopeKey, doc_ids: list[str]) -> int:
        removed = self._mutate(scope, {"op": "remove_docs", "doc_ids": [d for d in sorted(set(doc_ids))]})
        assert isinstance(removed, int)
        return removed

    def import_json(self, scope: ScopeKey, data: JSONObject) -> str:
        if data.get("format") == EXPORT_FORMAT:
            kind, export = "mnemex", data
        elif roampal.looks_like_roampal(data):
            kind = "roampal"
            try:
                export = roampal.convert(data)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ImportFormatError(
                    f"graph_json looks like Roampal's layout but has a malformed entry: {exc!r}"
                ) from exc
        else:
            raise ImportFormatError(
                'graph_json is neither a mnemex export ("format": "mnemex-kg") nor Roampal\'s '
                "knowledge_graph.json (routing_patterns, context_action_effectiveness, ...)"
            )
        try:
            ScopeGraphs().load_json(export)  # a dry run, so a bad file never reaches the journal
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ImportFormatError(f"graph_json has the {kind} layout but a malformed entry: {exc!r}") from exc
        # A project's known problems (episodes) live in the user's episode book, not in the project's graphs.
        episodes = obj(export.get("episodes") or {})  # an object: the dry run read it
        self._mutate(scope, {"op": "import", "data": {**export, "episodes": {}}}, snapshot_now=True)
        if episodes.get("problems"):
            self._mutate(
                episodes_scope(scope.user),
                {"op": "import_episodes", "data": {"problems": episodes["problems"]}, "project": scope.project},
                snapshot_now=True,
            )
        return kind

    def export_json(self, scope: ScopeKey) -> JSONObject:
        """A project's graphs with its known problems from the user's episode book."""
        data = self.graphs(scope).to_json()
        data["episodes"] = self.graphs(episodes_scope(scope.user)).episodes.project_json(scope.project)
        return data

    # -- reads ------------------------------------------------------------
    def route(self, scope: ScopeKey, concepts: list[str]) -> RouteAnswer:
        return self.graphs(scope).routing.route([concept_key(c) for c in concepts if c.strip()])

    def close(self) -> None:
        for key, pending in self._pending.items():
            if pending:
                self.journal.snapshot(key, self._scopes[key].to_json())
        self.journal.close()
