"""The viewer's project scoping: which facts a project's pages leave out, and the names it shows."""

from __future__ import annotations

from typing import Any

from gateway.ui.project_scope import (
    Facts,
    display_names,
    folder_name,
    scoped_counts,
    shown_in,
    user_wide,
    without_memories,
)


def _fact(id: str, project: str, scope: str | None, archived: bool = False) -> dict[str, Any]:
    metadata = {"fact_scope": scope} if scope else {}
    return {"id": id, "collection": "memory_bank", "project": project, "metadata": metadata, "archived": archived}


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
    memories: list[dict[str, Any]] = [
        _fact("own", "ledger", "project"),
        _fact("other", "orchard", "project"),
        _fact("gone", "orchard", "project", archived=True),
        _fact("everyone", "orchard", "user"),
        _fact("old", "orchard", None),  # stored before facts had a scope: user-wide
        {"id": "x", "collection": "working", "project": "orchard", "metadata": {}},
    ]
    assert [m["id"] for m in shown_in(memories, "ledger")] == ["own", "everyone", "old", "x"]
    facts = Facts(
        (("own", "ledger", False), ("other", "orchard", False), ("gone", "orchard", True), ("all", "", False))
    )
    assert facts.foreign_ids("ledger") == {"other", "gone"}
    assert facts.foreign_ids("orchard") == {"own"}
    assert user_wide(memories[3]) and user_wide(memories[4]) and not user_wide(memories[0])


def test_the_projects_table_counts_each_fact_on_its_own_row() -> None:
    facts = Facts((("a", "ledger", False), ("b", "orchard", False), ("c", "", False)))
    scopes = [
        {"project": "ledger", "name": "ledger", "counts": {"working": 3}},
        {"project": "(user-wide)", "name": "", "counts": {"memory_bank": 3}},
    ]
    rows = {r["name"]: r["counts"] for r in scoped_counts(scopes, facts)}
    assert rows == {"ledger": {"working": 3, "memory_bank": 1}, "": {"memory_bank": 1}, "orchard": {"memory_bank": 1}}


def test_the_graph_loses_another_projects_fact_and_its_edges() -> None:
    elements = {
        "nodes": [
            {"data": {"id": "helm", "kind": "entity"}},
            {"data": {"id": "fact:a", "kind": "fact", "memory": "a"}},
            {"data": {"id": "fact:b", "kind": "fact", "memory": "b"}},
        ],
        "edges": [
            {"data": {"id": "e0", "source": "helm", "target": "fact:a"}},
            {"data": {"id": "e1", "source": "helm", "target": "fact:b"}},
        ],
    }
    kept = without_memories(elements, frozenset({"b"}))
    assert [n["data"]["id"] for n in kept["nodes"]] == ["helm", "fact:a"]
    assert [e["data"]["id"] for e in kept["edges"]] == ["e0"]
    assert without_memories(elements, frozenset()) is elements
