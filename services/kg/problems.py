"""Problem -> solution and failure-pattern graphs.

A problem signature is the sorted top concepts of the problem text joined
by "_" (Roampal's shape, so imported signatures match). Lookups also
accept near matches: signatures sharing most of their word weight with the
query's concepts (rare and specific words weigh more; see ``_matching``),
found through a word -> signature index.
"""

from __future__ import annotations

import math
import re
from typing import TypedDict

import networkx as nx

from kernel.json_values import JSONObject
from services.kg.json_fields import arr, obj, to_float, to_int
from services.kg.json_fields import text as text_of
from services.kg.keys import Outcome, signature_words
from services.kg.routing import COUNT_FIELDS, Counts, graded, success_rate

SIGNATURE_CONCEPTS = 5
MIN_OVERLAP = 0.6  # share of a stored signature's word weight the query must contain
SPECIFIC_WEIGHT = 2.0
# A query word found in more problems than this does not propose candidates (it still
# counts toward the overlap of those another word proposes): it bounds a prompt's cost
# once months of problems share words such as "error" or "test".
MAX_WORD_PROBLEMS = 256
_SPECIFIC = re.compile(r"\d|[./]")


MAX_REASON_DOCS = 10
MAX_PROBLEM_TEXT = 300


def is_specific(word: str) -> bool:
    """Words that name one thing: with a digit, a dot or a slash (codes, exceptions, paths)."""
    return _SPECIFIC.search(word) is not None


def signature_for(concepts: list[str]) -> str:
    return "_".join(sorted(dict.fromkeys(concepts[:SIGNATURE_CONCEPTS])))


class Solution(TypedDict):
    """A doc that worked (or failed) for a problem matching a prompt, as ``lessons`` ranks it."""

    doc_id: str
    success_rate: float
    uses: int
    worked: int
    failed: int
    signature: str
    score: float


class ProblemGraph:
    def __init__(self) -> None:
        self.graph = nx.DiGraph()
        self.word_index: dict[str, set[str]] = {}
        # The same, for the problems without a specific word only: a problem with one can match
        # only through a shared specific word, so a generic query word never needs to visit it.
        self.generic_index: dict[str, set[str]] = {}
        self.categories: dict[str, list[str]] = {}
        self.problem_count = 0

    def _problem(self, signature: str, text: str) -> str:
        node = f"problem:{signature}"
        if node not in self.graph:
            words = signature_words(signature.split("_"))
            specific = frozenset(w for w in words if is_specific(w))
            self.graph.add_node(
                node, kind="problem", name=signature, words=words, specific=specific, text=text[:MAX_PROBLEM_TEXT]
            )
            self.problem_count += 1
            for word in words:
                self.word_index.setdefault(word, set()).add(node)
                if not specific:
                    self.generic_index.setdefault(word, set()).add(node)
        elif text and not self.graph.nodes[node]["text"]:
            self.graph.nodes[node]["text"] = text[:MAX_PROBLEM_TEXT]
        return node

    def add_counts(self, signature: str, doc_id: str, counts: dict[str, int], text: str, ts: float) -> None:
        pnode = self._problem(signature, text)
        dnode = f"doc:{doc_id}"
        if not self.graph.has_edge(pnode, dnode):
            self.graph.add_node(dnode, kind="doc", name=doc_id)
            self.graph.add_edge(pnode, dnode, relation="solved_by", last=ts, **dict.fromkeys(COUNT_FIELDS, 0))
        edge = self.graph.edges[pnode, dnode]
        for name in COUNT_FIELDS:
            edge[name] += int(counts.get(name, 0))
        edge["last"] = max(edge["last"], ts)

    def record(self, signature: str, doc_ids: list[str], outcome: Outcome, text: str, ts: float) -> None:
        for doc_id in dict.fromkeys(doc_ids):
            self.add_counts(signature, doc_id, {outcome.value: 1}, text, ts)

    def _weight(self, word: str, problems: int) -> float:
        """Rarer words weigh more (1 + ln(problems / problems with the word)); specific ones double."""
        df = len(self.word_index.get(word, ())) or 1
        return (1.0 + math.log(max(problems, df) / df)) * (SPECIFIC_WEIGHT if is_specific(word) else 1.0)

    def _matching(self, concepts: list[str]) -> dict[str, float]:
        """Problem nodes matching these concepts -> match strength (1.0 for the exact signature).

        A stored problem matches when the words it shares with the query carry
        at least ``MIN_OVERLAP`` of its weight, and, if it has specific words
        (an error code, a dotted or slashed name: "e1042", "sqlite3.operationalerror"),
        when at least one of those is shared: "error E1042 in the test stage" never
        matches "error E2217 in the test stage" on the generic words alone.
        """
        query_sig = signature_for(concepts)
        query_words = signature_words(concepts)
        candidates: dict[str, float] = {}
        exact = f"problem:{query_sig}"
        if exact in self.graph:
            candidates[exact] = 1.0
        problems = self.problem_count
        weights: dict[str, float] = {}

        def weight(word: str) -> float:
            if word not in weights:
                weights[word] = self._weight(word, problems)
            return weights[word]

        seen: set[str] = set(candidates)
        nodes = self.graph.nodes
        for word in query_words:
            pnodes = (self.word_index if is_specific(word) else self.generic_index).get(word, ())
            if len(pnodes) > MAX_WORD_PROBLEMS:
                continue
            for pnode in pnodes:
                if pnode in seen:
                    continue
                seen.add(pnode)
                data = nodes[pnode]
                if data["specific"] and data["specific"].isdisjoint(query_words):
                    continue
                words = data["words"]
                shared = words & query_words
                overlap = sum(weight(w) for w in shared) / (sum(weight(w) for w in words) or 1.0)
                if overlap >= MIN_OVERLAP:
                    candidates[pnode] = overlap
        return candidates

    def _entry(self, pnode: str, dnode: str, stats: Counts, score: float) -> Solution:
        return {
            "doc_id": dnode.removeprefix("doc:"),
            "success_rate": round(success_rate(stats), 4),
            "uses": graded(stats) + int(stats["unknown"]),
            "worked": int(stats["worked"]),
            "failed": int(stats["failed"]),
            "signature": self.graph.nodes[pnode]["name"],
            "score": score,
        }

    def solutions(self, concepts: list[str], limit: int) -> list[Solution]:
        """Best docs for problems matching these concepts, best first."""
        return self.lessons(concepts, limit, 0)[0]

    def lessons(
        self, concepts: list[str], solution_limit: int, failure_limit: int
    ) -> tuple[list[Solution], list[Solution]]:
        """(solutions, failures) for problems matching these concepts.

        A solution is a doc that worked (or partly) for a matching problem,
        ranked by match x success rate. A failure is a doc that failed more
        often than it worked for a matching problem, ranked by match x
        failures; a doc is never both (its best-matching problem decides).
        """
        if not concepts or not self.word_index:
            return [], []
        best: dict[str, Solution] = {}
        worst: dict[str, Solution] = {}
        for pnode, match in self._matching(concepts).items():
            for dnode, stats in self.graph.succ[pnode].items():
                doc_id = dnode.removeprefix("doc:")
                good = stats["worked"] + stats["partial"]
                if good > 0:
                    score = match * success_rate(stats)
                    if doc_id not in best or score > best[doc_id]["score"]:
                        best[doc_id] = self._entry(pnode, dnode, stats, score)
                if stats["failed"] > good:
                    score = match * stats["failed"]
                    if doc_id not in worst or score > worst[doc_id]["score"]:
                        worst[doc_id] = self._entry(pnode, dnode, stats, score)
        ranked = sorted(best.values(), key=lambda s: (-s["score"], -s["uses"], s["doc_id"]))[:solution_limit]
        shown = {s["doc_id"] for s in ranked}
        failed = [f for f in worst.values() if f["doc_id"] not in best and f["doc_id"] not in shown]
        failed.sort(key=lambda s: (-s["score"], s["doc_id"]))
        return ranked, failed[:failure_limit]

    def remove_docs(self, doc_ids: set[str]) -> int:
        removed = 0
        for doc_id in doc_ids:
            dnode = f"doc:{doc_id}"
            if dnode in self.graph:
                problems = list(self.graph.predecessors(dnode))
                removed += len(problems)
                self.graph.remove_node(dnode)
                for pnode in problems:
                    if self.graph.out_degree(pnode) == 0:
                        for word in self.graph.nodes[pnode]["words"]:
                            self.word_index.get(word, set()).discard(pnode)
                            self.generic_index.get(word, set()).discard(pnode)
                        self.graph.remove_node(pnode)
                        self.problem_count -= 1
        for key, members in list(self.categories.items()):
            kept = [m for m in members if m not in doc_ids]
            removed += len(members) - len(kept)
            if kept:
                self.categories[key] = kept
            else:
                del self.categories[key]
        return removed

    def doc_ids(self) -> set[str]:
        docs = {str(d["name"]) for _, d in self.graph.nodes(data=True) if d.get("kind") == "doc"}
        return docs | {m for members in self.categories.values() for m in members}

    def to_json(self) -> JSONObject:
        problems: JSONObject = {}
        for pnode, data in self.graph.nodes(data=True):
            if data.get("kind") != "problem":
                continue
            problems[data["name"]] = {
                "text": data["text"],
                "solutions": {
                    dnode.removeprefix("doc:"): {**{k: s[k] for k in COUNT_FIELDS}, "last": s["last"]}
                    for dnode, s in self.graph.succ[pnode].items()
                },
            }
        return {"problems": problems, "categories": {key: list(members) for key, members in self.categories.items()}}

    def load_json(self, data: JSONObject) -> None:
        for signature, problem in obj(data.get("problems", {})).items():
            entry = obj(problem)
            for doc_id, solution in obj(entry.get("solutions", {})).items():
                stats = obj(solution)
                counts = {name: to_int(stats.get(name, 0)) for name in COUNT_FIELDS}
                self.add_counts(
                    signature, doc_id, counts, text_of(entry.get("text", "")), to_float(stats.get("last", 0.0))
                )
        for key, members in obj(data.get("categories", {})).items():
            merged = self.categories.setdefault(key, [])
            merged.extend(m for m in map(text_of, arr(members)) if m not in merged)

    def counts(self) -> dict[str, int]:
        kinds = [d.get("kind") for _, d in self.graph.nodes(data=True)]
        return {"problems": kinds.count("problem"), "solutions": self.graph.number_of_edges()}


class FailureGraph:
    """concept -> failure reason edges with counts and the docs involved."""

    def __init__(self) -> None:
        self.graph = nx.DiGraph()

    def record(self, concepts: list[str], reason: str, doc_ids: list[str], ts: float, count: int = 1) -> None:
        rnode = f"reason:{reason}"
        self.graph.add_node(rnode, kind="reason", name=reason)
        for concept in dict.fromkeys(concepts):
            cnode = f"concept:{concept}"
            self.graph.add_node(cnode, kind="concept", name=concept)
            if not self.graph.has_edge(cnode, rnode):
                self.graph.add_edge(cnode, rnode, relation="failed_because", count=0, docs=[], last=ts)
            edge = self.graph.edges[cnode, rnode]
            edge["count"] += count
            edge["last"] = max(edge["last"], ts)
            edge["docs"] = [d for d in edge["docs"] if d not in doc_ids] + list(dict.fromkeys(doc_ids))
            del edge["docs"][:-MAX_REASON_DOCS]

    def reasons(self, concept: str) -> list[tuple[str, int]]:
        cnode = f"concept:{concept}"
        if cnode not in self.graph:
            return []
        return sorted(
            ((r.removeprefix("reason:"), d["count"]) for r, d in self.graph.succ[cnode].items()),
            key=lambda p: (-p[1], p[0]),
        )

    def remove_docs(self, doc_ids: set[str]) -> int:
        removed = 0
        for _, _, edge in self.graph.edges(data=True):
            kept = [d for d in edge["docs"] if d not in doc_ids]
            removed += len(edge["docs"]) - len(kept)
            edge["docs"] = kept
        return removed

    def doc_ids(self) -> set[str]:
        return {d for _, _, edge in self.graph.edges(data=True) for d in edge["docs"]}

    def to_json(self) -> JSONObject:
        out: JSONObject = {}
        for cnode, rnode, edge in self.graph.edges(data=True):
            arr(out.setdefault(cnode.removeprefix("concept:"), [])).append(
                {
                    "reason": rnode.removeprefix("reason:"),
                    "count": edge["count"],
                    "docs": edge["docs"],
                    "last": edge["last"],
                }
            )
        return out

    def load_json(self, data: JSONObject) -> None:
        for concept, entries in data.items():
            for item in arr(entries):
                entry = obj(item)
                self.record(
                    [concept],
                    str(entry["reason"]),
                    [str(doc) for doc in arr(entry.get("docs", []))],
                    to_float(entry.get("last", 0.0)),
                    to_int(entry.get("count", 1)),
                )

    def counts(self) -> dict[str, int]:
        return {"failure_patterns": self.graph.number_of_edges()}
