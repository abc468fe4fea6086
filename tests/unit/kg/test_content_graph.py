"""Content graph: entities <-> facts, spreading activation, and removal
that leaves no dangling references anywhere."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kernel.json_values import JSONArray, JSONObject
from services.kg.graphs import ScopeGraphs
from services.kg.keys import Outcome
from services.kg.store import KgStore, ScopeKey


def fact_op(fact_id: str, entities: list[tuple[str, str]], relations: Sequence[list[str]] = ()) -> JSONObject:
    pairs: JSONArray = [[name, type_] for name, type_ in entities]
    links: JSONArray = [[*relation] for relation in relations]
    return {"op": "fact", "fact_id": fact_id, "entities": pairs, "relations": links}


def build() -> ScopeGraphs:
    graphs = ScopeGraphs()
    graphs.apply_op(
        fact_op(
            "f1",
            [("billing service", "phrase"), ("PostgreSQL", "library")],
            [["billing service", "postgresql", "depends_on"]],
        )
    )
    graphs.apply_op(fact_op("f2", [("billing service", "phrase"), ("Redis", "library"), ("Alice", "name")]))
    graphs.apply_op(fact_op("f3", [("Redis", "library"), ("celery", "library")]))
    return graphs


def test_facts_for_entities_prefers_specific_entities() -> None:
    graphs = build()
    found = graphs.content.facts_for_entities(["PostgreSQL", "unknown thing"], 10)
    assert [f for f, _, _ in found] == ["f1"]
    both = graphs.content.facts_for_entities(["Alice", "redis"], 10)
    assert both[0][0] == "f2"  # linked to both entities, so it ranks first
    assert graphs.content.facts_for_entities(["nothing here"], 10) == []


def test_neighbors_and_typed_relations() -> None:
    edges = build().content.neighbors("billing service", 20)
    relations = {(s, t): r for s, t, r, _ in edges}
    assert relations[("billing service", "PostgreSQL")] == "depends_on"
    assert relations[("billing service", "f1")] == "mentions"
    assert build().content.neighbors("no such entity", 5) == []


def test_spreading_activation_decays_with_distance() -> None:
    nodes = dict((n, a) for n, a, _ in build().content.traverse(["Alice"], 3, 0.5, 50))
    assert nodes["f2"] > nodes["f3"]  # f3 is two hops further, via Redis
    assert nodes["Redis"] > nodes["celery"]
    assert "Alice" not in nodes  # seeds are not reported
    shallow = dict((n, a) for n, a, _ in build().content.traverse(["Alice"], 1, 0.5, 50))
    assert "celery" not in shallow


def test_removing_a_book_leaves_no_dangling_references(tmp_path: Path) -> None:
    from services.kg.journal import Journal

    store = KgStore(Journal(tmp_path / "kg.sqlite3"))
    scope = ScopeKey("tester", "proj")
    book = [f"book_chunk_{i}" for i in range(4)]
    for _ in range(3):
        store.record_outcome(
            scope,
            concepts=["python"],
            collections=["books"],
            doc_ids=book[:2],
            outcome=Outcome.WORKED,
            context_type="coding",
            problem="python asyncio gather",
        )
    store.record_outcome(
        scope,
        concepts=["python"],
        collections=["books", "books"],
        doc_ids=book[2:],
        outcome=Outcome.FAILED,
        context_type="coding",
        failure_reason="outdated chapter",
    )
    store.record_action(
        scope, context_type="coding", action="search_memory", collection="books", outcome=Outcome.WORKED, doc_id=book[3]
    )
    store.index_fact(scope, "fact_1", "The team uses Python 3.11 with asyncio.")
    graphs = store.graphs(scope)
    assert set(book) <= graphs.referenced_doc_ids()
    removed = store.remove_docs(scope, book)
    assert removed > 0
    assert graphs.referenced_doc_ids().isdisjoint(book)
    assert graphs.problems.solutions(["python", "asyncio", "gather"], 5) == []
    assert "fact_1" in graphs.referenced_doc_ids()  # unrelated references stay
    assert graphs.routing.route(["python"]).has_preference  # collection-level learning stays
    assert store.remove_docs(scope, book) == 0  # idempotent


def test_removing_a_fact_drops_orphaned_entities_and_edges() -> None:
    graphs = build()
    graphs.apply_op({"op": "remove_docs", "doc_ids": ["f1"]})
    cg = graphs.content.graph
    assert "entity:postgresql" not in cg  # only f1 mentioned it
    assert "entity:billing service" in cg  # f2 still does
    assert not cg.has_edge("entity:billing service", "entity:postgresql")
    graphs.apply_op({"op": "remove_docs", "doc_ids": ["f2", "f3"]})
    assert cg.number_of_nodes() == 0 and cg.number_of_edges() == 0


def test_reindexing_a_fact_replaces_its_links() -> None:
    graphs = build()
    graphs.apply_op(fact_op("f1", [("MySQL", "library")]))
    assert graphs.content.facts_for_entities(["PostgreSQL"], 5) == []
    assert [f for f, _, _ in graphs.content.facts_for_entities(["MySQL"], 5)] == ["f1"]
