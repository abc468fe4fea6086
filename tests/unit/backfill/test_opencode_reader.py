"""The OpenCode reader on a database written by the real binary (1.18), read-only, and on broken stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from kernel.json_values import str_at
from mnemex.backfill.exchange import Exchange
from mnemex.backfill.opencode_reader import list_sessions, read_opencode_session
from mnemex.backfill.sources import discover
from tests.support.backfill_homes import OPENCODE_SESSION, install_opencode


def read_all(db: Path) -> list[Exchange]:
    exchanges: list[Exchange] = []
    for session in list_sessions(db):
        exchanges += list(read_opencode_session(db, session, [0]))
    return exchanges


def add_message(
    db: Path, message_id: str, role: str, created: int, parts: list[dict[str, object]], **info: object
) -> None:
    with sqlite3.connect(db) as connection:
        data = {"role": role, "time": {"created": created, "completed": created + 500}, **info}
        connection.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
            (message_id, OPENCODE_SESSION, created, created, json.dumps(data)),
        )
        for index, part in enumerate(parts):
            connection.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)",
                (f"prt_{message_id}_{index}", message_id, OPENCODE_SESSION, created, created, json.dumps(part)),
            )


def test_a_real_session_gives_its_exchanges_with_dates_directory_and_tools(tmp_path: Path) -> None:
    db = install_opencode(tmp_path)
    [session] = list_sessions(db)
    assert (session.id, session.directory, session.messages) == (OPENCODE_SESSION, "/srv/home/code/shop", 5)
    first, second = read_all(db)
    # `opencode run "a b"` quotes an argument with spaces: that is what OpenCode stored as the prompt
    assert first["user_text"] == '"How do we deploy the shop service?"'
    assert first["assistant_text"] == "Answer to your question."
    assert first["started_at"] == "2026-11-25T04:01:53.283Z"  # the user message's time.created
    assert second["started_at"] == "2026-11-25T04:01:55.881Z"
    assert first["source_id"] == f"opencode:{OPENCODE_SESSION}:msg_210ddfec200105b4MSCKmzOwFU"
    assert {e["cwd"] for e in (first, second)} == {"/srv/home/code/shop"}
    assert second["assistant_text"] == "The README says: deploys with helm."
    [read_tool] = second["tool_uses"]
    assert read_tool["tool_name"] == "Read"  # OpenCode's "read", named as Claude Code names it
    assert read_tool["tool_input"] == {"file_path": "/srv/home/code/shop/README.md"}
    assert "Shop deploys with helm." in str_at(read_tool["tool_response"], "output")


def test_synthetic_parts_and_an_unfinished_last_turn_are_left_out(tmp_path: Path) -> None:
    db = install_opencode(tmp_path)
    context = "═══ KNOWN CONTEXT ═══\n• a memory [id:p_1]\n═══ END CONTEXT ═══"
    add_message(
        db,
        "msg_9a",
        "user",
        1795579400000,
        [{"type": "text", "text": "Add a health check"}, {"type": "text", "text": context, "synthetic": True}],
    )
    add_message(db, "msg_9b", "assistant", 1795579401000, [{"type": "text", "text": "Added /healthz."}], finish="stop")
    add_message(db, "msg_9c", "user", 1795579402000, [{"type": "text", "text": "Now deploy it"}])
    add_message(
        db,
        "msg_9d",
        "assistant",
        1795579403000,
        [{"type": "tool", "tool": "bash", "state": {"status": "running", "input": {"command": "make deploy"}}}],
        finish="tool-calls",
    )
    exchanges = read_all(db)
    assert [e["user_text"] for e in exchanges][-1] == "Add a health check"
    assert exchanges[-1]["assistant_text"] == "Added /healthz." and "KNOWN CONTEXT" not in json.dumps(exchanges)


def test_subagent_sessions_are_not_listed(tmp_path: Path) -> None:
    db = install_opencode(tmp_path)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
            "time_updated) SELECT 'ses_child', project_id, id, 'child', directory, 'sub', version, time_created, "
            "time_updated FROM session"
        )
    assert [s.id for s in list_sessions(db)] == [OPENCODE_SESSION]


def test_the_database_is_opened_read_only(tmp_path: Path) -> None:
    db = install_opencode(tmp_path)
    db.chmod(0o444)
    before = db.read_bytes()
    assert len(read_all(db)) == 2
    assert db.read_bytes() == before


def test_a_corrupt_database_is_reported_not_raised(tmp_path: Path) -> None:
    db = tmp_path / "home" / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4096)
    found = discover(tmp_path / "home", ("opencode",))
    assert found.sources == []
    [problem] = found.unreadable
    assert problem.path == str(db) and "not a readable OpenCode database" in problem.reason
