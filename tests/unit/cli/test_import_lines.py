"""The gateway's JSONL import line rules (gateway/export_format.py)."""

from __future__ import annotations

import json

import pytest

from gateway.export_format import ImportTally, classify_line
from gateway.gateway_errors import InvalidInput
from kernel.json_values import JSONObject
from tests.support.json_read import json_at

DEFAULT = {"user": "me", "project": "here-1234"}


def classify(obj: object, keep_user: bool = False, tally: ImportTally | None = None) -> JSONObject | None:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return classify_line(raw, 1, DEFAULT, keep_user=keep_user, tally=tally or ImportTally())


def classified(obj: object, keep_user: bool = False, tally: ImportTally | None = None) -> JSONObject:
    """A line that is imported: its JSON record."""
    line = classify(obj, keep_user, tally)
    assert line is not None
    return line


def test_memory_without_scope_goes_to_the_callers_project() -> None:
    line = classify({"type": "memory", "record": {"collection": "working", "content": "x", "id": "working_1"}})
    assert line == {
        "type": "memory",
        "record": {"collection": "working", "content": "x", "id": "working_1", "scope": DEFAULT},
    }


def test_user_is_always_the_gateways_and_keep_user_refuses_foreign_records() -> None:
    record = {"collection": "memory_bank", "content": "x", "scope": {"user": "alice", "project": ""}}
    assert json_at(classified({"type": "memory", "record": record}), "record", "scope") == {"user": "me", "project": ""}
    tally = ImportTally()
    assert classify({"type": "memory", "record": record}, keep_user=True, tally=tally) is None
    assert tally.invalid == 1 and "belongs to user 'alice'" in tally.errors[0]
    assert classify({"type": "kg", "scope": {"user": "alice", "project": "p"}, "graph": {}}, keep_user=True) is None
    own = {**record, "scope": {"user": "me", "project": "p-1"}}
    assert json_at(classified({"type": "memory", "record": own}, keep_user=True), "record", "scope") == {
        "user": "me",
        "project": "p-1",
    }


def test_kg_header_end_and_bad_lines() -> None:
    assert classified({"type": "kg", "graph": {"routing_patterns": {}}})["scope"] == DEFAULT
    assert classify({"type": "header", "format": "mnemex-export", "version": 1}) is None
    assert classify({"type": "end", "memories": 1}) is None
    tally = ImportTally()
    assert classify(b"{not json", tally=tally) is None
    assert classify({"type": "memory", "record": {"content": "no collection"}}, tally=tally) is None
    assert classify({"type": "kg", "graph": []}, tally=tally) is None
    assert tally.invalid == 3 and len(tally.errors) == 3 and tally.errors[0].startswith("line 1: not JSON")
    with pytest.raises(InvalidInput, match="not a mnemex-export v1 file"):
        classify({"type": "header", "format": "other"})
    with pytest.raises(InvalidInput, match="not a mnemex-export v1 file"):
        classify({"type": "header", "format": "mnemex-export", "version": "one"})


def test_roampal_graph_lines_keep_their_merge_condition() -> None:
    assert classified({"type": "kg", "graph": {"routing_patterns": {}}, "when": "empty"})["when"] == "empty"
    assert classified({"type": "kg", "graph": {"format": "mnemex-kg"}})["when"] == "always"
