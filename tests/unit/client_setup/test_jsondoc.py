"""Reversible JSON edits: apply, then undo, gives back exactly the original."""

from __future__ import annotations

import copy

import pytest

from kernel.json_values import JSONObject, list_at, object_at
from mnemex.client_setup.jsondoc import Applied, DocumentConflict, Entry, apply_all, apply_entry, undo


def test_key_into_empty_document_creates_and_prunes_containers() -> None:
    doc: JSONObject = {}
    record = apply_entry(doc, Entry("key", ("mcpServers", "mnemex"), {"command": "py"}))
    assert doc == {"mcpServers": {"mnemex": {"command": "py"}}}
    assert record is not None and record.created == (("mcpServers",),)
    undo(doc, [record])
    assert doc == {}


def test_existing_equal_value_is_not_claimed() -> None:
    doc: JSONObject = {"permissions": {"allow": ["mcp__mnemex__search_memory"]}}
    assert apply_entry(doc, Entry("item", ("permissions", "allow"), "mcp__mnemex__search_memory")) is None
    assert doc == {"permissions": {"allow": ["mcp__mnemex__search_memory"]}}


def test_replaced_value_is_restored_on_undo() -> None:
    doc: JSONObject = {"mcpServers": {"mnemex": {"command": "old"}, "other": {"command": "x"}}}
    original = copy.deepcopy(doc)
    record = apply_entry(doc, Entry("key", ("mcpServers", "mnemex"), {"command": "new"}))
    assert record is not None and record.had_previous and record.previous == {"command": "old"}
    assert object_at(doc, "mcpServers")["mnemex"] == {"command": "new"}
    undo(doc, [record])
    assert doc == original


def test_item_appends_once_and_undo_keeps_foreign_items() -> None:
    doc: JSONObject = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "theirs"}]}]}}
    ours: JSONObject = {"hooks": [{"type": "command", "command": "ours"}]}
    records = apply_all(doc, [Entry("item", ("hooks", "Stop"), ours), Entry("item", ("hooks", "Stop"), ours)])
    assert len(records) == 1
    stop = list_at(object_at(doc, "hooks"), "Stop")
    assert stop[-1] == ours and len(stop) == 2
    undo(doc, records)
    assert doc == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "theirs"}]}]}}


def test_user_edited_value_survives_undo_and_is_reported() -> None:
    doc: JSONObject = {}
    record = apply_entry(doc, Entry("key", ("mcpServers", "mnemex"), {"command": "py"}))
    assert record is not None
    object_at(object_at(doc, "mcpServers"), "mnemex")["command"] = "edited by the user"
    report = undo(doc, [record])
    assert doc == {"mcpServers": {"mnemex": {"command": "edited by the user"}}}
    assert report.kept_modified and not report.removed


def test_default_is_set_only_when_missing_and_removed_only_when_alone() -> None:
    doc: JSONObject = {"version": 2}
    assert apply_entry(doc, Entry("default", ("version",), 1)) is None
    fresh: JSONObject = {}
    records = apply_all(fresh, [Entry("default", ("version",), 1), Entry("item", ("hooks", "stop"), {"command": "c"})])
    assert fresh == {"version": 1, "hooks": {"stop": [{"command": "c"}]}}
    object_at(fresh, "hooks")["sessionStart"] = [{"command": "theirs"}]  # the user adds a hook of their own
    undo(fresh, records)
    assert fresh == {"version": 1, "hooks": {"sessionStart": [{"command": "theirs"}]}}


def test_conflicting_shape_is_refused_with_the_path() -> None:
    with pytest.raises(DocumentConflict, match="hooks"):
        apply_entry({"hooks": ["not", "an", "object"]}, Entry("item", ("hooks", "Stop"), {}))


def test_applied_round_trips_through_json() -> None:
    doc: JSONObject = {"a": {"b": 1}}
    record = apply_entry(doc, Entry("key", ("a", "b"), 2))
    assert record is not None
    again = Applied.from_json(record.to_json())
    assert again == record
