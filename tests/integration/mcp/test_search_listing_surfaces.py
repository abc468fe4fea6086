"""Every surface that lists memories (MCP search_memory, POST /api/search, ``mnemex search``) shows each text once
with how often it was seen, and says plainly when nothing is relevant to the query.

The project is filled through POST /api/backfill, as ``mnemex backfill`` does: the same exchange (and the
same file edit) in five sessions, beside distinct ones. Searches name the collections a backfill writes, so
the user-wide memory_bank facts of other tests on the shared stack stay out.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.reply_models import BackfillOut, SearchOut
from kernel.json_values import JSONObject
from mnemex.cli import app
from tests.integration.mcp.clients import connect, ok, reply, text_of
from tests.support.mcp_stack import McpStack, run_async

ABSENT = "terraform state lock"
ABOUT_THE_COPIES = "useEffect runs twice in development"
WHERE = ["history", "working"]


def fill(stack: McpStack, project: Path) -> None:
    edit = {
        "tool_name": "Edit",
        "tool_input": {"file_path": f"{project}/src/components/SearchForm.tsx", "old_string": "a", "new_string": "b"},
        "tool_response": {"success": True},
    }

    def exchange(source_id: str, session: str, user: str, answer: str, **extra: object) -> dict[str, object]:
        return {
            "source_id": source_id,
            "client": "claude",
            "session_id": session,
            "cwd": str(project),
            "started_at": (datetime.now(UTC) - timedelta(days=2)).isoformat(timespec="seconds"),
            "user_text": user,
            "assistant_text": answer,
            **extra,
        }

    copies = [
        exchange(
            f"s{i}:m1",
            f"session-{i}",
            "why does useEffect run twice in development?",
            "React 18 StrictMode mounts, unmounts and remounts components in development; added a cleanup.",
            tool_uses=[edit],
        )
        for i in range(5)
    ]
    others = [
        exchange("o1:m1", "other-1", "the dark mode toggle forgets its value", "Persisted the theme in localStorage."),
        exchange("o2:m1", "other-2", "jest cannot import SVG icons", "Mapped svg files to a stub in moduleNameMapper."),
    ]
    tally = BackfillOut.model_validate(stack.post("/api/backfill", {"exchanges": copies + others}))
    assert tally.stored == 7 and tally.observations == 5


def test_search_memory_rest_and_cli_collapse_copies_and_say_when_nothing_is_relevant(
    mcp_stack: McpStack, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(mcp_stack, project)

    async def go() -> tuple[SearchOut, str, JSONObject, str]:
        async with connect(mcp_stack, "http", project) as client:
            found = await client.call_tool("search_memory", {"query": ABOUT_THE_COPIES, "collections": WHERE})
            absent = await client.call_tool("search_memory", {"query": ABSENT, "collections": WHERE})
            return reply(found, SearchOut), text_of(found), ok(absent), text_of(absent)

    found, found_text, absent, absent_text = run_async(go)
    first = found.memories[0]
    assert "StrictMode" in first.content and first.duplicates == 4 and len(first.duplicate_ids) == 4
    contents = [m.content for m in found.memories]
    assert len(contents) == len(set(contents)) and found.relevant == len(contents)
    header = found_text.splitlines()[0]
    assert (
        header
        == f"{len(contents)} relevant memor{'y' if len(contents) == 1 else 'ies'} for query {ABOUT_THE_COPIES!r}:"
    )
    assert "seen 5 times" in found_text.splitlines()[1]
    assert absent == {"memories": [], "relevant": 0}
    assert absent_text.startswith(f"No memory is relevant to query {ABSENT!r}")

    rest = mcp_stack.post("/api/search", {"query": ABSENT, "cwd": str(project), "collections": WHERE})
    assert rest == {"memories": [], "relevant": 0}
    listing = SearchOut.model_validate(
        mcp_stack.post(
            "/api/search", {"days_back": 365, "cwd": str(project), "sort_by": "recency", "collections": WHERE}
        )
    )
    assert listing.relevant is None  # a time window: nothing to judge relevance against
    assert sorted(m.duplicates for m in listing.memories) == [0, 0, 4, 4]  # the exchange and the edit

    monkeypatch.chdir(project)
    cli = CliRunner()
    where = [option for name in WHERE for option in ("--collection", name)]
    nothing = cli.invoke(app, ["search", ABSENT, *where], env=mcp_stack.env)
    assert nothing.exit_code == 0, nothing.output
    assert nothing.output.strip() == "No memory is relevant to this query."
    seen = cli.invoke(app, ["search", ABOUT_THE_COPIES, *where], env=mcp_stack.env)
    assert seen.exit_code == 0, seen.output
    assert "relevant memor" in seen.output.splitlines()[0] and "seen 5 times" in seen.output
