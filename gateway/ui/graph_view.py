"""The knowledge-graph page's data: the kg service's view plus problem → solution links, as Cytoscape elements.

Three pictures in one graph, told apart by node kind:

- routing: concept → collection, each edge's label the success rate learned from outcomes;
- entities → facts: the top entities, their links, and the memory_bank facts they appear in;
- problem → solution: problems the kg saw solved, linked to the memories that solved them.

Plain functions over dicts; ``ViewerData`` does the RPCs.
"""

from __future__ import annotations

import json
from typing import Any

JSON = dict[str, Any]
MAX_PROBLEMS = 30
MAX_SOLUTIONS = 5
MAX_LABEL = 60
# Every other node kind of the kg view is an entity, kinded by its type (identifier, path, library, ...).
NOT_ENTITIES = frozenset({"concept", "collection", "fact", "problem", "solution"})
ROUTING_PAGE = 25
ROUTING_SORTS = {"concept": "concept", "collection": "collection", "rate": "rate_value", "uses": "uses"}
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


def success_rate(stats: JSON) -> float:
    graded = sum(int(stats.get(k, 0)) for k in ("worked", "partial", "failed"))
    return (stats.get("worked", 0) + 0.5 * stats.get("partial", 0)) / graded if graded else 0.5


def problems_of(export_json: str) -> list[JSON]:
    """[{"signature", "text", "solutions": [{"id", "rate", "uses"}]}] from a kg export, most used first."""
    try:
        data = json.loads(export_json) if export_json else {}
    except ValueError:
        return []
    table = ((data.get("problems") or {}).get("problems") or {}) if isinstance(data, dict) else {}
    out: list[JSON] = []
    for signature, entry in table.items():
        if not isinstance(entry, dict):
            continue
        solutions: list[JSON] = [
            {
                "id": doc,
                "rate": round(success_rate(s), 2),
                "uses": sum(int(s.get(k, 0)) for k in ("worked", "partial", "unknown", "failed")),
            }
            for doc, s in (entry.get("solutions") or {}).items()
            if isinstance(s, dict)
        ]
        solutions.sort(key=lambda s: (-s["uses"], s["id"]))
        out.append(
            {"signature": str(signature), "text": str(entry.get("text", "")), "solutions": solutions[:MAX_SOLUTIONS]}
        )
    out.sort(key=lambda p: (-sum(s["uses"] for s in p["solutions"]), p["signature"]))
    return out[:MAX_PROBLEMS]


def is_noise(concept: str) -> bool:
    """A routing concept that says nothing: a stop word, a contraction's stem ("doesn"), a number, 1-2 letters."""
    word = concept.strip().lower()
    return len(word) < MIN_CONCEPT or word.isdigit() or word in STOP_CONCEPTS


def routing_rows(routing: JSON) -> list[JSON]:
    """The routing table's rows, noise concepts left out, most used first."""
    rows: list[JSON] = []
    for concept, entry in routing.items():
        if not isinstance(entry, dict) or is_noise(str(concept)):
            continue
        rate = float(entry.get("success_rate", 0.5))
        rows.append(
            {
                "concept": str(concept),
                "collection": str(entry.get("best_collection", "")),
                "rate": f"{rate:.0%}",
                "rate_value": rate,
                "uses": int(entry.get("uses", 0) or 0),
            }
        )
    rows.sort(key=lambda r: (-r["uses"], r["concept"]))
    return rows


def sorted_page(rows: list[JSON], sort: str, page: int) -> tuple[list[JSON], int]:
    """One page of routing rows sorted by ``sort`` (a ROUTING_SORTS key; "-" first means descending)."""
    descending = sort.startswith("-")
    key = ROUTING_SORTS.get(sort.lstrip("-"), "uses")
    ordered = sorted(rows, key=lambda r: (r[key], r["concept"]), reverse=descending)
    pages = max(1, -(-len(ordered) // ROUTING_PAGE))
    page = min(max(page, 1), pages)
    return ordered[(page - 1) * ROUTING_PAGE : page * ROUTING_PAGE], pages


def rates_of(routing: JSON) -> dict[str, str]:
    """For a concept node's click: "routes to history, 80% of 5 uses"."""
    out = {}
    for concept, entry in routing.items():
        if isinstance(entry, dict):
            rate = float(entry.get("success_rate", 0.5))
            out[f"concept:{concept}"] = (
                f"routes to {entry.get('best_collection', '?')}: {rate:.0%} success over {entry.get('uses', 0)} uses"
            )
    return out


def matching_problems(problems: list[JSON], term: str) -> list[JSON]:
    words = [w for w in term.lower().split() if w]
    return [p for p in problems if all(w in (p["text"] or p["signature"]).lower() for w in words)]


def hop_entities(graph: JSON, seen: set[str], limit: int) -> list[str]:
    """Entity labels one hop out from a found graph, for a second hop (concepts and facts are not entities)."""
    names = [n["label"] for n in graph.get("nodes", []) if n["kind"] not in NOT_ENTITIES and n["label"] not in seen]
    return list(dict.fromkeys(names))[:limit]


def elements(base: JSON, focused: JSON, problems: list[JSON], rates: dict[str, str] | None = None) -> JSON:
    """Cytoscape nodes and edges (``{"nodes": [{"data": ...}], "edges": [...]}``), each node once."""
    nodes: dict[str, JSON] = {}
    edges: dict[tuple[str, str, str], JSON] = {}

    def node(node_id: str, kind: str, label: str, **extra: Any) -> None:
        nodes.setdefault(node_id, {"data": {"id": node_id, "kind": kind, "label": short(label), **extra}})

    def edge(source: str, target: str, relation: str, label: str = "") -> None:
        key = (source, target, relation)
        edges.setdefault(
            key,
            {
                "data": {
                    "id": f"e{len(edges)}",
                    "source": source,
                    "target": target,
                    "relation": relation,
                    "label": label,
                }
            },
        )

    rates = rates or {}
    for graph in (base, focused):
        for n in graph.get("nodes", []):
            if n["kind"] == "concept" and is_noise(str(n["label"] or "")):
                continue
            extra: JSON = {"memory": n["id"].removeprefix("fact:")} if n["kind"] == "fact" else {}
            if n["id"] in rates:
                extra["rate"] = rates[n["id"]]
            node(n["id"], n["kind"], n["label"] or n["id"], **extra)
        for e in graph.get("edges", []):
            label = f"{e['weight']:.0%}" if e["relation"] == "routes_to" else ""
            edge(e["source"], e["target"], e["relation"], label)
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
    return {"nodes": list(nodes.values()), "edges": kept}


def _label_by_neighbours(nodes: dict[str, JSON], edges: list[JSON]) -> None:
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
