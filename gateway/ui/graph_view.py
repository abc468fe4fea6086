"""The knowledge-graph page's data: the kg service's view plus problem → solution links, as Cytoscape elements.

Three pictures in one graph, told apart by node kind:

- routing: concept → collection, each edge's label the success rate learned from outcomes;
- entities → facts: the top entities, their links, and the memory_bank facts they appear in;
- problem → solution: problems the kg saw solved, linked to the memories that solved them.

Plain functions over the kg's typed view (``replies.KgGraph``) and its export; ``ViewerData`` does the RPCs.
The elements are the dicts Cytoscape reads (``graph.js``), typed here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NotRequired, TypedDict

from gateway.replies.kg_replies import KgGraph
from kernel.json_values import as_object, float_at, int_at, object_at, parse_value


class NodeData(TypedDict):
    id: str
    kind: str
    label: str
    memory: NotRequired[str]  # a fact's or solution's memory id
    rate: NotRequired[str]  # what its outcomes say, for the side panel
    group: NotRequired[str]  # set by ``graph_answer``: the colour-key kind
    level: NotRequired[int]  # hops from what holds the words looked for
    seed: NotRequired[bool]  # holds them
    shown: NotRequired[str]  # the label drawn on the canvas ("" : none)


class EdgeData(TypedDict):
    id: str
    source: str
    target: str
    relation: str
    label: NotRequired[str]


class Node(TypedDict):
    data: NodeData


class Edge(TypedDict):
    data: EdgeData


class Elements(TypedDict):
    nodes: list[Node]
    edges: list[Edge]


class Solution(TypedDict):
    id: str
    rate: float
    uses: int


class Problem(TypedDict):
    signature: str
    text: str
    solutions: list[Solution]


class RoutingRow(TypedDict):
    concept: str
    collection: str
    rate: str
    rate_value: float
    uses: int


NO_ELEMENTS = Elements(nodes=[], edges=[])
MAX_PROBLEMS = 30
MAX_SOLUTIONS = 5
MAX_LABEL = 60
# Every other node kind of the kg view is an entity, kinded by its type (identifier, path, library, ...).
NOT_ENTITIES = frozenset({"concept", "collection", "fact", "problem", "solution"})
ROUTING_PAGE = 25
RoutingKey = Callable[[RoutingRow], tuple[float, str, str]]
# The routing table's columns, each with its sort key (ties broken by concept).
ROUTING_SORTS: dict[str, RoutingKey] = {
    "concept": lambda r: (0.0, r["concept"], r["concept"]),
    "collection": lambda r: (0.0, r["collection"], r["concept"]),
    "rate": lambda r: (r["rate_value"], "", r["concept"]),
    "uses": lambda r: (float(r["uses"]), "", r["concept"]),
}
MIN_CONCEPT = 3
# Words the routing table learned from prompts that name no topic: English function words, contraction
# stems left by tokenizing "doesn't", and verbs too common to route on.
STOP_CONCEPTS = frozenset(
    """
    the and for are but not you all any can had her was one our out has him his how its may new now
    old see two way who did get got let put say she too use using used uses this that with from have
    what when where which while will would could should there their them then than they these those
    into onto over under about after before again also just like make made some such only very more
    most much many other each every both few own same here why does doesn don didn isn wasn aren
    weren hasn haven hadn won wouldn couldn shouldn can't don't doesn't didn't isn't it's i'm i've
    let's that's there's what's ain need needs want wants know think look looks looking still yet
    thing things something anything everything nothing please thanks thank okay yes yeah sure right
    good great well really go goes going gone come comes came take takes took give gives gave keep
    head tell try tried work works worked working help show shows set sets run runs ran first last
    next one two three able via per etc else even ever never always again way ways lot lots bit
    """.split()
)


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def success_rate(stats: Mapping[str, object]) -> float:
    graded = sum(int_at(stats, k) for k in ("worked", "partial", "failed"))
    return (int_at(stats, "worked") + 0.5 * int_at(stats, "partial")) / graded if graded else 0.5


def problems_of(export_json: str) -> list[Problem]:
    """[{"signature", "text", "solutions": [{"id", "rate", "uses"}]}] from a kg export, most used first."""
    try:
        data = as_object(parse_value(export_json)) if export_json else {}
    except ValueError:
        return []
    table = object_at(object_at(data, "problems"), "problems")
    out: list[Problem] = []
    for signature, value in table.items():
        if not isinstance(value, dict):
            continue
        entry = as_object(value)
        solutions = [
            Solution(
                id=doc,
                rate=round(success_rate(s), 2),
                uses=sum(int_at(s, k) for k in ("worked", "partial", "unknown", "failed")),
            )
            for doc, s in object_at(entry, "solutions").items()
            if isinstance(s, dict)
        ]
        solutions.sort(key=lambda s: (-s["uses"], s["id"]))
        out.append(Problem(signature=signature, text=str(entry.get("text", "")), solutions=solutions[:MAX_SOLUTIONS]))
    out.sort(key=lambda p: (-sum(s["uses"] for s in p["solutions"]), p["signature"]))
    return out[:MAX_PROBLEMS]


def is_noise(concept: str) -> bool:
    """A routing concept that says nothing: a stop word, a contraction's stem ("doesn"), a number, 1-2 letters."""
    word = concept.strip().lower()
    return len(word) < MIN_CONCEPT or word.isdigit() or word in STOP_CONCEPTS


def routing_rows(routing: Mapping[str, object]) -> list[RoutingRow]:
    """The routing table's rows, noise concepts left out, most used first."""
    rows: list[RoutingRow] = []
    for concept, value in routing.items():
        if not isinstance(value, dict) or is_noise(concept):
            continue
        entry = as_object(value)
        rate = float_at(entry, "success_rate", 0.5)
        rows.append(
            RoutingRow(
                concept=concept,
                collection=str(entry.get("best_collection", "")),
                rate=f"{rate:.0%}",
                rate_value=rate,
                uses=int_at(entry, "uses"),
            )
        )
    rows.sort(key=lambda r: (-r["uses"], r["concept"]))
    return rows


def sorted_page(rows: list[RoutingRow], sort: str, page: int) -> tuple[list[RoutingRow], int]:
    """One page of routing rows sorted by ``sort`` (a ROUTING_SORTS key; "-" first means descending)."""
    descending = sort.startswith("-")
    key = ROUTING_SORTS.get(sort.lstrip("-"), ROUTING_SORTS["uses"])
    ordered = sorted(rows, key=key, reverse=descending)
    pages = max(1, -(-len(ordered) // ROUTING_PAGE))
    page = min(max(page, 1), pages)
    return ordered[(page - 1) * ROUTING_PAGE : page * ROUTING_PAGE], pages


def rates_of(routing: Mapping[str, object]) -> dict[str, str]:
    """For a concept node's click: "routes to history, 80% of 5 uses"."""
    out = {}
    for concept, value in routing.items():
        if isinstance(value, dict):
            entry = as_object(value)
            rate = float_at(entry, "success_rate", 0.5)
            out[f"concept:{concept}"] = (
                f"routes to {entry.get('best_collection', '?')}: {rate:.0%} success over {entry.get('uses', 0)} uses"
            )
    return out


def matching_problems(problems: list[Problem], term: str) -> list[Problem]:
    words = [w for w in term.lower().split() if w]
    return [p for p in problems if all(w in (p["text"] or p["signature"]).lower() for w in words)]


def hop_entities(graph: KgGraph, seen: set[str], limit: int) -> list[str]:
    """Entity labels one hop out from a found graph, for a second hop (concepts and facts are not entities)."""
    names = [n.label for n in graph.nodes if n.kind not in NOT_ENTITIES and n.label not in seen]
    return list(dict.fromkeys(names))[:limit]


def elements(
    base: KgGraph | None, focused: KgGraph | None, problems: list[Problem], rates: dict[str, str] | None = None
) -> Elements:
    """Cytoscape nodes and edges (``{"nodes": [{"data": ...}], "edges": [...]}``), each node once."""
    nodes: dict[str, Node] = {}
    edges: dict[tuple[str, str, str], Edge] = {}

    def node(node_id: str, kind: str, label: str, *, memory: str = "", rate: str = "") -> None:
        data = NodeData(id=node_id, kind=kind, label=short(label))
        if memory:
            data["memory"] = memory
        if rate:
            data["rate"] = rate
        nodes.setdefault(node_id, Node(data=data))

    def edge(source: str, target: str, relation: str, label: str = "") -> None:
        key = (source, target, relation)
        data = EdgeData(id=f"e{len(edges)}", source=source, target=target, relation=relation, label=label)
        edges.setdefault(key, Edge(data=data))

    rates = rates or {}
    for graph in (base, focused):
        for n in graph.nodes if graph else ():
            if n.kind == "concept" and is_noise(n.label or ""):
                continue
            memory = n.id.removeprefix("fact:") if n.kind == "fact" else ""
            node(n.id, n.kind, n.label or n.id, memory=memory, rate=rates.get(n.id, ""))
        for e in graph.edges if graph else ():
            label = f"{e.weight:.0%}" if e.relation == "routes_to" else ""
            edge(e.source, e.target, e.relation, label)
    for problem in problems:
        pid = f"problem:{problem['signature']}"
        node(pid, "problem", problem["text"] or problem["signature"])
        for solution in problem["solutions"]:
            sid = f"doc:{solution['id']}"
            rate = f"solved it {solution['rate']:.0%} of the time over {solution['uses']} uses"
            node(sid, "solution", solution["id"], memory=solution["id"], rate=rate)
            edge(pid, sid, "solved_by", f"{solution['rate']:.0%}")
    live = set(nodes)
    kept = [e for e in edges.values() if e["data"]["source"] in live and e["data"]["target"] in live]
    _label_by_neighbours(nodes, kept)
    return Elements(nodes=list(nodes.values()), edges=kept)


def _label_by_neighbours(nodes: dict[str, Node], edges: list[Edge]) -> None:
    """Fact and solution nodes are named by memory ids; until ``ViewerData`` puts the memory's own text on
    them (it looks up the first few), say what they are linked to: "fact about A, B", "solution to P"."""
    linked: dict[str, list[str]] = {}
    for e in edges:
        source, target = e["data"]["source"], e["data"]["target"]
        linked.setdefault(source, []).append(nodes[target]["data"]["label"])
        linked.setdefault(target, []).append(nodes[source]["data"]["label"])
    for node_id, n in nodes.items():
        data = n["data"]
        names = list(dict.fromkeys(linked.get(node_id, [])))[:3]
        if data["kind"] == "fact":
            data["label"] = short("fact about " + ", ".join(names)) if names else "fact (no entity linked)"
        elif data["kind"] == "solution":
            data["label"] = short("solution to " + names[0]) if names else "solution"
