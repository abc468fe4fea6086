"""Search across projects: every project of the user answers, the best of all come back, each naming its
project (issue 37, item 8). Real embedding, memory and kg services behind the real gateway."""

from __future__ import annotations

from pathlib import Path

from gateway.reply_models import SearchOut, StopOut
from tests.integration.gateway.live_stack import LiveStack


def repo(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    (path / ".git").mkdir(parents=True)
    return str(path)


def test_all_projects_finds_each_projects_memory_and_names_its_project(live: LiveStack, tmp_path: Path) -> None:
    ledger, billing = repo(tmp_path, "ledger-svc"), repo(tmp_path, "billing-svc")
    told = {
        ledger: ("why do ledger imports time out?", "Postgres statement_timeout of 5 s cut the bulk insert."),
        billing: ("billing reports time out at night", "The nightly Postgres vacuum held a lock on invoices."),
    }
    for n, (cwd, (user, answer)) in enumerate(told.items()):
        live.post_as(
            "/api/hooks/stop",
            {"session_id": f"all-{n}", "cwd": cwd, "user_text": user, "assistant_text": answer, "turn_key": f"t{n}"},
            StopOut,
        )
    query = {"query": "postgres timeouts", "cwd": ledger, "days_back": 1}
    here = live.post_as("/api/search", query, SearchOut).memories
    everywhere = live.post_as("/api/search", {**query, "all_projects": True}, SearchOut)
    assert any("statement_timeout" in m.content for m in here)
    assert not any("vacuum" in m.content for m in here)
    by_text = {("vacuum" in m.content, "statement_timeout" in m.content): m for m in everywhere.memories}
    assert by_text[(True, False)].project != by_text[(False, True)].project
    assert len({m.id for m in everywhere.memories}) == len(everywhere.memories)
