"""State files damaged on disk read as empty, never as a crash: the backfill checkpoint and project bindings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernel import projects
from mnemex.backfill.checkpoint import VERSION, Checkpoint

GOOD = {"fingerprint": "f1", "size": 10, "filters": "", "sent": 3, "complete": True}


@pytest.mark.parametrize(
    "saved",
    [
        {"version": VERSION, "sources": ["not", "a", "map"]},
        {"version": VERSION, "sources": "text"},
        [GOOD],
        {"version": VERSION + 1, "sources": {"a": GOOD}},
    ],
)
def test_a_checkpoint_of_the_wrong_shape_reads_as_empty(tmp_path: Path, saved: object) -> None:
    path = tmp_path / "checkpoint.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    assert Checkpoint.load(path).entries == {}


def test_a_damaged_entry_is_read_again_and_the_rest_kept(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.json"
    no_size = {key: value for key, value in GOOD.items() if key != "size"}
    sources = {"good": GOOD, "no-size": no_size, "list": [1], "missing": {"fingerprint": "f"}}
    path.write_text(json.dumps({"version": VERSION, "sources": sources}), encoding="utf-8")
    entries = Checkpoint.load(path).entries
    assert list(entries) == ["good"]
    assert entries["good"].sent == 3 and entries["good"].complete


@pytest.mark.parametrize("saved", [{"bindings": ["x"]}, {"bindings": "x"}, ["x"], {"bindings": {"/w": 3, "/v": "api"}}])
def test_bindings_of_the_wrong_shape_keep_only_what_is_readable(tmp_path: Path, saved: object) -> None:
    (tmp_path / projects.BINDINGS_FILE).write_text(json.dumps(saved), encoding="utf-8")
    expected = {"/v": "api"} if isinstance(saved, dict) and isinstance(saved["bindings"], dict) else {}
    assert projects.load_bindings(tmp_path) == expected
