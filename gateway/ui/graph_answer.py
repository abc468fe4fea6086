"""The graph page's answer to a question: which nodes to draw, which to label, and their short titles.

``ViewerGraph.view`` gives the whole graph (routing, entities and facts, problems and solutions); a search
gives the memories that hold the words of ``find``. ``answer`` cuts them to what the page asked:

- ``find``: the seeds are the nodes whose title holds a word of it, and the memories that hold one (a
  memory that is already a fact or solution node marks that node; any other becomes a ``memory`` node
  linked to the entities and concepts it names). The walk goes ``hops`` links out from the seeds and never
  on through a collection: every concept routes to one, so a walk through it would reach them all.
- ``kinds``: only nodes of those kinds are counted and drawn.
- At most ``CAP`` nodes are drawn: the seeds, then each hop in turn, the best connected first; without
  ``find``, the best connected of the whole graph. The page says how many were left out.
- Only the first ``LABELLED`` drawn nodes get a label on the canvas (``shown``); every node keeps its short
  title (``label``) for the side panel and the keyboard list.

Pure functions over the Cytoscape elements (``graph_view.Elements``) and the viewer's memory JSON; deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gateway.gateway_errors import InvalidInput
from gateway.ui import memory_titles
from gateway.ui.graph_view import Edge, EdgeData, Elements, Node, NodeData
from kernel.json_values import str_at

KINDS = ("concept", "collection", "entity", "fact", "problem", "solution", "memory")
MEMORY_KINDS = frozenset({"fact", "solution", "memory"})
CAP = 200  # nodes drawn at most: readable, and laid out by a force layout in well under a second
LABELLED = 20  # nodes whose title is drawn on the canvas
TITLE_CHARS = 40
MENTIONS = 8  # links from one found memory to the entities and concepts it names
MIN_NAME = 3  # shorter names are not looked for in a memory's text
MAX_WORDS = 8
WORD = re.compile(r"\w[\w./+#-]*\w|\w\w")


def kind_group(kind: str) -> str:
    """The colour-key kind of a node: every entity type (identifier, path, library, ...) is an entity."""
    return kind if kind in KINDS else "entity"


def words_of(find: str) -> list[str]:
    """The words ``find`` looks for: lower case, two characters or more, each once."""
    return list(dict.fromkeys(w.lower() for w in WORD.findall(find)))[:MAX_WORDS]


def held(text: str, words: Sequence[str]) -> int:
    """How many of ``words`` the text holds (case-insensitive, as a word or the start of one)."""
    low = text.lower()
    return sum(1 for w in words if re.search(r"(?<!\w)" + re.escape(w), low))


def title_of(text: str) -> str:
    """A short title: a memory's question (an exchange) or first sentence, through ``memory_titles``."""
    # ViewerData puts a memory's text on its node with its whitespace folded: give the answer its line back.
    content = text.replace(" " + memory_titles.ANSWER_MARK, "\n" + memory_titles.ANSWER_MARK, 1)
    return memory_titles.clip(memory_titles.label_of({"content": content}).title, TITLE_CHARS)


@dataclass(frozen=True)
class GraphQuery:
    find: str = ""
    hops: int = 1
    kinds: tuple[str, ...] = KINDS

    @classmethod
    def of(cls, find: str, hops: int, kinds: Iterable[str]) -> GraphQuery:
        """The page's query; no kind named means every kind, an unknown kind is refused."""
        chosen = tuple(dict.fromkeys(k for k in kinds if k))
        unknown = [k for k in chosen if k not in KINDS]
        if unknown:
            raise InvalidInput(f"kind={unknown[0]!r} is unknown: use any of {', '.join(KINDS)}")
        return cls(find.strip(), hops, tuple(k for k in KINDS if k in chosen) or KINDS)

    @property
    def words(self) -> list[str]:
        return words_of(self.find)

    @property
    def every_kind(self) -> bool:
        return set(self.kinds) == set(KINDS)


@dataclass(frozen=True)
class Answer:
    nodes: list[Node]  # Cytoscape elements {"data": {...}}, drawn order
    edges: list[Edge]
    total: int  # nodes of the chosen kinds the question reached, before the cap
    seeds: int  # nodes that hold a word of ``find``
    available: dict[str, int] = field(default_factory=dict)  # per kind, before the kind filter and the cap
    drawn: dict[str, int] = field(default_factory=dict)  # per kind, drawn

    @property
    def capped(self) -> bool:
        return self.total > len(self.nodes)

    @property
    def labelled(self) -> list[NodeData]:
        """The labelled nodes' data, for the keyboard list."""
        return [n["data"] for n in self.nodes if n["data"].get("shown")]

    def elements(self) -> Elements:
        return Elements(nodes=self.nodes, edges=self.edges)


def merged(*graphs: Elements) -> Elements:
    """One element set from several (the whole graph and the kg's own neighbourhood of ``find``): each node
    once, as the first set has it, each link once."""
    nodes: dict[str, Node] = {}
    edges: dict[tuple[str, str, str], Edge] = {}
    for graph in graphs:
        for n in graph["nodes"]:
            nodes.setdefault(n["data"]["id"], n)
        for e in graph["edges"]:
            edges.setdefault((e["data"]["source"], e["data"]["target"], e["data"]["relation"]), e)
    return Elements(nodes=list(nodes.values()), edges=list(edges.values()))


def answer(elements: Elements, memories: Sequence[Mapping[str, object]], query: GraphQuery) -> Answer:
    """The nodes and edges to draw for ``query`` (see the module docstring)."""
    nodes: dict[str, NodeData] = {}
    for n in elements["nodes"]:
        data = NodeData(**n["data"])
        label = data["label"] or data["id"]
        data["label"] = title_of(label) if data["kind"] in MEMORY_KINDS else memory_titles.clip(label, TITLE_CHARS)
        nodes[data["id"]] = data
    edges = [EdgeData(**e["data"]) for e in elements["edges"] if e["data"]["source"] != e["data"]["target"]]
    words = query.words
    found = _found_memories(nodes, edges, memories, words) if words else []
    if words:
        named = [(held(d["label"], words), i) for i, d in nodes.items() if d["kind"] != "memory"]
        seeds = [i for score, i in sorted(named, key=lambda s: -s[0]) if score] + found
        seeds = list(dict.fromkeys(seeds))
    else:
        seeds = []
    neighbours = _adjacency(edges)
    level = _walk(nodes, neighbours, seeds, query.hops) if words else dict.fromkeys(nodes, 0)
    available: dict[str, int] = {}
    for node_id in level:
        kind = kind_group(nodes[node_id]["kind"])
        available[kind] = available.get(kind, 0) + 1
    chosen = set(query.kinds)
    kept = [i for i in level if kind_group(nodes[i]["kind"]) in chosen]
    first = {s: rank for rank, s in enumerate(seeds)}
    kept.sort(key=lambda i: (level[i], first.get(i, len(first)), -len(neighbours.get(i, ())), nodes[i]["label"]))
    drawn = kept[:CAP]
    live = set(drawn)
    drawn_counts: dict[str, int] = {}
    out_nodes: list[Node] = []
    for rank, node_id in enumerate(drawn):
        data = nodes[node_id]
        data["group"] = kind_group(data["kind"])
        data["level"] = level[node_id]
        data["seed"] = node_id in first
        data["shown"] = data["label"] if rank < LABELLED else ""
        drawn_counts[data["group"]] = drawn_counts.get(data["group"], 0) + 1
        out_nodes.append(Node(data=data))
    kept_edges = [e for e in edges if e["source"] in live and e["target"] in live]
    out_edges = [Edge(data=EdgeData(**{**e, "id": f"e{k}"})) for k, e in enumerate(kept_edges)]
    return Answer(out_nodes, out_edges, len(kept), len(seeds), available, drawn_counts)


def _found_memories(
    nodes: dict[str, NodeData], edges: list[EdgeData], memories: Sequence[Mapping[str, object]], words: list[str]
) -> list[str]:
    """The node of each memory that holds a word of ``find``: its fact or solution node, else a new
    ``memory`` node linked to the entities and concepts it names. Adds them to ``nodes`` and ``edges``."""
    by_memory = {d["memory"]: i for i, d in nodes.items() if d.get("memory")}
    names = [
        (re.compile(r"(?<!\w)" + re.escape(d["label"].lower()) + r"(?!\w)"), i)
        for i, d in nodes.items()
        if d["kind"] not in MEMORY_KINDS and d["kind"] != "collection" and len(d["label"]) >= MIN_NAME
    ]
    out: list[str] = []
    for memory in memories:
        content = str_at(memory, "content")
        if not held(content, words):
            continue
        title = memory_titles.clip(memory_titles.label_of(memory).title, TITLE_CHARS)
        memory_id = str_at(memory, "id")
        node_id = by_memory.get(memory_id)
        if node_id is not None:
            nodes[node_id]["label"] = title
            out.append(node_id)
            continue
        node_id = f"memory:{memory_id}"
        nodes[node_id] = NodeData(id=node_id, kind="memory", label=title, memory=memory_id)
        low = content.lower()
        named = [i for pattern, i in names if pattern.search(low)][:MENTIONS]
        edges += [EdgeData(id="", source=node_id, target=i, relation="mentions") for i in named]
        out.append(node_id)
    return out


def _adjacency(edges: list[EdgeData]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in edges:
        out.setdefault(e["source"], []).append(e["target"])
        out.setdefault(e["target"], []).append(e["source"])
    return out


def _walk(nodes: dict[str, NodeData], neighbours: dict[str, list[str]], seeds: list[str], hops: int) -> dict[str, int]:
    """Each node reached from the seeds within ``hops`` links, with its distance; never on through a
    collection that was reached (a seed collection is walked from)."""
    level = dict.fromkeys(seeds, 0)
    frontier = list(seeds)
    for depth in range(1, hops + 1):
        reached: list[str] = []
        for node_id in frontier:
            if level[node_id] and nodes[node_id]["kind"] == "collection":
                continue
            for other in neighbours.get(node_id, ()):
                if other not in level:
                    level[other] = depth
                    reached.append(other)
        frontier = reached
    return level
