"""The viewer's project scoping: which facts a project's pages leave out, and the names it shows."""

from __future__ import annotations

from gateway.replies.memory_replies import Memory
from gateway.ui.graph_view import Edge, EdgeData, Elements, Node, NodeData
from gateway.ui.project_scope import (
    Facts,
    ScopeRow,
    display_names,
    folder_name,
    scoped_counts,
    shows_in,
    user_wide,
    without_memories,
)


def _fact(id: str, project: str, scope: str | None, archived: bool = False) -> Memory:
    metadata = {"fact_scope": scope} if scope else {}
    return Memory(id=id, collection="memory_bank", content="", project=project, metadata=metadata, archived=archived)


def test_folder_names_keep_the_hash_only_when_two_collide() -> None:
    assert folder_name("ledger-1a2b3c4d") == "ledger"
    assert folder_name("my-app") == "my-app"  # a bound name has no hash
    assert folder_name("app-XYZ12345") == "app-XYZ12345"  # not a hex hash
    names = display_names(["app-11111111", "app-22222222", "ledger-1a2b3c4d", "notes"])
    assert names == {
        "app-11111111": "app-11111111",
        "app-22222222": "app-22222222",
        "ledger-1a2b3c4d": "ledger",
        "notes": "notes",
    }


def test_another_projects_fact_is_left_out_and_not_counted() -> None:
    memories = [
        _fact("own", "ledger", "project"),
        _fact("other", "orchard", "project"),
        _fact("gone", "orchard", "project", archived=True),
        _fact("everyone", "orchard", "user"),
        _fact("old", "orchard", None),  # stored before facts had a scope: user-wide
        Memory(id="x", collection="working", content="", project="orchard", metadata={}),
    ]
    assert [m.id for m in memories if shows_in(m, "ledger")] == ["own", "everyone", "old", "x"]
    facts = Facts(
        (("own", "ledger", False), ("other", "orchard", False), ("gone", "orchard", True), ("all", "", False))
    )
    assert facts.foreign_ids("ledger") == {"other", "gone"}
    assert facts.foreign_ids("orchard") == {"own"}
    as_json = [m.to_json() for m in memories]  # the memories page reads a memory's JSON
    assert user_wide(as_json[3]) and user_wide(as_json[4]) and not user_wide(as_json[0]) and not user_wide(as_json[5])


def test_the_projects_table_counts_each_fact_on_its_own_row() -> None:
    facts = Facts((("a", "ledger", False), ("b", "orchard", False), ("c", "", False)))
    scopes = [
        ScopeRow(project="ledger", name="ledger", counts={"working": 3}),
        ScopeRow(project="(user-wide)", name="", counts={"memory_bank": 3}),
    ]
    rows = {r["name"]: r["counts"] for r in scoped_counts(scopes, facts)}
    assert rows == {"ledger": {"working": 3, "memory_bank": 1}, "": {"memory_bank": 1}, "orchard": {"memory_bank": 1}}


def test_the_graph_loses_another_projects_fact_and_its_edges() -> None:
    elements = Elements(
        nodes=[
            Node(data=NodeData(id="helm", kind="entity", label="helm")),
            Node(data=NodeData(id="fact:a", kind="fact", label="a", memory="a")),
            Node(data=NodeData(id="fact:b", kind="fact", label="b", memory="b")),
        ],
        edges=[
            Edge(data=EdgeData(id="e0", source="helm", target="fact:a", relation="mentions")),
            Edge(data=EdgeData(id="e1", source="helm", target="fact:b", relation="mentions")),
        ],
    )
    kept = without_memories(elements, frozenset({"b"}))
    assert [n["data"]["id"] for n in kept["nodes"]] == ["helm", "fact:a"]
    assert [e["data"]["id"] for e in kept["edges"]] == ["e0"]
    assert without_memories(elements, frozenset()) is elements
