"""`mnemex import-roampal` on a real Roampal-layout Chroma directory, into the real stack."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.fixtures.roampal.build import build_roampal_dir
from tests.support.cli_stack import RunningStack
from tests.support.json_read import json_at, json_int, json_list, json_object, json_str

pytestmark = pytest.mark.slow


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_import_roampal_keeps_scores_metadata_and_graph(stack: RunningStack, tmp_path: Path) -> None:
    roampal = build_roampal_dir(tmp_path / "Roampal" / "data")
    before = tree_digest(roampal)
    project = tmp_path / "billing"
    project.mkdir()

    dry = stack.invoke_json(project, "import-roampal", str(roampal), "--dry-run")
    assert dry["would_send"] == 8 and dry["imported"] == 0  # 7 usable rows + the knowledge graph
    assert stack.invoke_json(project, "search", "billing deadlocks", "--collection", "patterns")["memories"] == []

    first = stack.invoke_json(project, "import-roampal", str(roampal))
    assert first["read"] == {
        "roampal_books": 2,
        "roampal_working": 2,
        "roampal_history": 2,
        "roampal_patterns": 1,
        "roampal_memory_bank": 1,
    }
    assert first["skipped"] == {"empty": 1}
    assert first["imported"] == 7 and first["invalid"] == 0 and first["graphs"] == 1

    pattern = stack.invoke_json(project, "search", "deadlocks in the billing worker", "--collection", "patterns")
    top = json_object(pattern, "memories", 0)
    assert top["id"] == "patterns_c1" and top["score"] == pytest.approx(0.95)
    assert (top["uses"], top["success_count"], top["outcome_history"]) == (6, 5.5, "[YYY]")
    assert json_str(top, "created_at").startswith("2024-12-01T12:00:00")
    head, line = stack.invoke(
        project, "search", "deadlocks in the billing worker", "--collection", "patterns"
    ).stdout.splitlines()[:2]
    assert head.endswith((" relevant memory", " relevant memories")), head
    assert line.startswith("1. [patterns] (") and "s:0.95" in line and "6 uses, [YYY]) [id:patterns_c1]" in line

    history = stack.invoke_json(project, "show", "history_b1")
    assert json_str(history, "created_at").startswith("2025-01-20T08:30:00")  # from Roampal's legacy 'timestamp'
    assert history["outcome_history"] == "[~Y]" and json_at(history, "metadata", "imported_from") == "roampal"
    working = stack.invoke_json(project, "search", "parallelize the integration suite", "--collection", "working")
    assert json_str(working, "memories", 0, "content").startswith(
        "User asked how to speed up"
    )  # content from metadata.text

    bank = json_object(
        stack.invoke_json(project, "search", "who is the user", "--collection", "memory_bank"), "memories", 0
    )
    assert bank["id"] == "memory_bank_d1" and bank["tags"] == ["identity", "preference"]
    assert (bank["importance"], bank["confidence"]) == (0.9, 0.85)
    books = {
        json_str(b, "title"): json_at(b, "chunks") for b in json_list(stack.invoke_json(project, "books"), "books")
    }
    assert books == {"Release Handbook": 2}

    kg = json_object(stack.invoke_json(project, "stats"), "kg", "counts")
    assert json_int(kg, "routing_edges") >= 1 and json_int(kg, "actions") >= 1

    second = stack.invoke_json(project, "import-roampal", str(roampal))
    assert second["imported"] == 0 and second["skipped_existing"] == 7
    assert second["graphs"] == 0 and second["graphs_skipped"] == 1
    assert json_at(stack.invoke_json(project, "stats"), "kg", "counts") == kg
    assert tree_digest(roampal) == before  # Roampal's own files were never written


def test_import_roampal_rejects_a_directory_without_roampal_data(stack: RunningStack, tmp_path: Path) -> None:
    result = stack.invoke(tmp_path, "import-roampal", str(tmp_path))
    assert result.exit_code == 1 and "no Roampal data" in result.output


def test_import_roampal_finds_roampals_own_linux_folder_by_itself(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from mnemex.cli import app
    from mnemex.roampal_import.reader import default_directories

    xdg = tmp_path / "xdg"
    env = {"HOME": str(tmp_path / "user"), "XDG_DATA_HOME": str(xdg), "MNEMEX_HOME": str(tmp_path / "data")}
    assert default_directories(env, tmp_path / "user")[0] == xdg / "roampal" / "data"
    missing = CliRunner().invoke(app, ["import-roampal", "--dry-run"], env=env)
    assert missing.exit_code == 1 and str(xdg / "roampal" / "data") in missing.output
    build_roampal_dir(xdg / "roampal" / "data")
    found = CliRunner().invoke(app, ["import-roampal", "--dry-run", "--json"], env=env)
    assert found.exit_code == 0, found.output
    assert json.loads(found.output)["would_send"] == 8
