"""The graph page's answer (gateway/ui/graph_answer.py): find, hops, kinds, the cap and the labels."""

from __future__ import annotations

import pytest

from gateway.gateway_errors import InvalidInput
from gateway.ui import graph_answer
from gateway.ui.graph_answer import GraphQuery, answer
from gateway.ui.graph_view import Edge, EdgeData, Elements, Node, NodeData


def _node(node_id: str, kind: str, label: str, memories: dict[str, str]) -> Node:
    data = NodeData(id=node_id, kind=kind, label=label)
    if node_id in memories:
        data["memory"] = memories[node_id]
    return Node(data=data)


def _graph(
    nodes: list[tuple[str, str, str]], edges: list[tuple[str, str]], memories: dict[str, str] | None = None
) -> Elements:
    """Elements of these nodes and edges; ``memories``: node id -> the memory a fact node stands for."""
    return Elements(
        nodes=[_node(i, k, label, memories or {}) for i, k, label in nodes],
        edges=[
            Edge(data=EdgeData(id=f"e{n}", source=s, target=t, relation="related", label=""))
            for n, (s, t) in enumerate(edges)
        ],
    )


# A chain: memory text mentions "ledger"; ledger - cluster - region - zone; and a routing hub.
CHAIN = _graph(
    [
        ("ledger", "identifier", "ledger"),
        ("cluster", "identifier", "blue cluster"),
        ("region", "identifier", "eu-west"),
        ("zone", "identifier", "zone-a"),
        ("concept:deploy", "concept", "deploy"),
        ("concept:billing", "concept", "billing"),
        ("collection:history", "collection", "history"),
        ("fact:memory_bank_1", "fact", "The ledger is deployed with Helm on the blue cluster"),
    ],
    [
        ("ledger", "cluster"),
        ("cluster", "region"),
        ("region", "zone"),
        ("concept:deploy", "collection:history"),
        ("concept:billing", "collection:history"),
        ("fact:memory_bank_1", "ledger"),
    ],
    {"fact:memory_bank_1": "memory_bank_1"},
)
HELM = {
    "id": "history_9",
    "collection": "history",
    "content": "User: how do we roll back helm?\nAssistant: Run helm rollback on the ledger.",
}


def test_find_matches_a_word_any_memory_holds_and_links_it_to_what_it_names() -> None:
    shown = answer(CHAIN, [HELM], GraphQuery.of("helm", 1, []))
    ids = [n["data"]["id"] for n in shown.nodes]
    assert "memory:history_9" in ids  # the exchange that says "helm" is a node of its own
    memory = next(n["data"] for n in shown.nodes if n["data"]["id"] == "memory:history_9")
    assert memory["label"] == "how do we roll back helm?" and memory["seed"]
    assert "fact:memory_bank_1" in ids and "ledger" in ids  # the fact says "Helm"; the memory names "ledger"
    assert {"source": "memory:history_9", "target": "ledger"}.items() <= next(
        e["data"] for e in shown.edges if e["data"]["source"] == "memory:history_9"
    ).items()
    assert shown.seeds == 2


def test_a_memory_without_the_word_is_not_a_seed() -> None:
    other = {"id": "history_3", "collection": "history", "content": "Something about kubernetes"}
    shown = answer(CHAIN, [other], GraphQuery.of("helm", 1, []))
    assert "memory:history_3" not in [n["data"]["id"] for n in shown.nodes]


def test_two_hops_reach_further_than_one_and_never_through_a_collection() -> None:
    one = {n["data"]["id"] for n in answer(CHAIN, [], GraphQuery.of("ledger", 1, [])).nodes}
    two = {n["data"]["id"] for n in answer(CHAIN, [], GraphQuery.of("ledger", 2, [])).nodes}
    assert one == {"ledger", "cluster", "fact:memory_bank_1"}
    assert two == one | {"region"}
    through = {n["data"]["id"] for n in answer(CHAIN, [], GraphQuery.of("billing", 2, [])).nodes}
    assert through == {"concept:billing", "collection:history"}  # deploy is not reached through history
    seed = {n["data"]["id"] for n in answer(CHAIN, [], GraphQuery.of("history", 1, [])).nodes}
    assert seed == {"collection:history", "concept:deploy", "concept:billing"}


def test_kinds_filter_what_is_counted_and_drawn() -> None:
    whole = answer(CHAIN, [], GraphQuery.of("", 1, []))
    assert whole.total == len(whole.nodes) == 8 and whole.available["entity"] == 4
    concepts = answer(CHAIN, [], GraphQuery.of("", 1, ["concept", "collection"]))
    assert concepts.total == len(concepts.nodes) == 3
    assert {n["data"]["group"] for n in concepts.nodes} == {"concept", "collection"}
    assert concepts.available == whole.available  # the key still says what the other kinds hold
    with pytest.raises(InvalidInput, match="kind='bogus' is unknown"):
        GraphQuery.of("", 1, ["bogus"])


def test_the_whole_graph_is_capped_best_connected_first_and_few_are_labelled() -> None:
    nodes = [(f"n{i}", "identifier", f"name{i}") for i in range(600)]
    edges = [("n0", f"n{i}") for i in range(1, 300)] + [("n1", "n2"), ("n1", "n3")]
    shown = answer(_graph(nodes, edges), [], GraphQuery())
    assert len(shown.nodes) == graph_answer.CAP and shown.total == 600 and shown.capped
    ids = [n["data"]["id"] for n in shown.nodes]
    assert ids[:2] == ["n0", "n1"]  # most links first
    assert all(n["data"]["source"] in ids and n["data"]["target"] in ids for n in shown.edges)
    assert len(shown.labelled) == graph_answer.LABELLED
    assert [n["data"]["shown"] for n in shown.nodes[: graph_answer.LABELLED]] == [
        n["data"]["label"] for n in shown.nodes[: graph_answer.LABELLED]
    ]
    assert all(n["data"]["shown"] == "" for n in shown.nodes[graph_answer.LABELLED :])


def test_titles_are_short_and_read_like_the_memory() -> None:
    exchange = "User: why does the ledger deploy fail on arm64 machines every single time? Assistant: the cache."
    assert graph_answer.title_of(exchange) == "why does the ledger deploy fail on…"
    assert len(graph_answer.title_of("x" * 200)) <= graph_answer.TITLE_CHARS
    assert graph_answer.words_of("Helm, helm rollback a") == ["helm", "rollback"]
