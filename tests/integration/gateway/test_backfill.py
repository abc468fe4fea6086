"""POST /api/backfill over real HTTP against real embedding, memory and kg services."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gateway.capabilities.backfill_service import backfill_id
from gateway.reply_models import BackfillOut, GraphOut, SearchOut, StopOut
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as mem_grpc
from tests.integration.gateway.live_stack import LiveStack
from tests.support.json_read import json_str
from tests.support.loop_thread import LoopThread

if TYPE_CHECKING:
    from mnemex.backfill.report import Report
    from mnemex.backfill.sources import Source

STARTED = "2025-03-04T10:15:00Z"


def project(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    (path / ".git").mkdir(parents=True)
    return str(path)


def exchange(source_id: str, cwd: str, user: str, answer: str, **extra: object) -> dict[str, object]:
    return {
        "source_id": source_id,
        "client": "claude",
        "session_id": "hist-1",
        "cwd": cwd,
        "started_at": STARTED,
        "user_text": user,
        "assistant_text": answer,
        **extra,
    }


def test_history_is_stored_dated_found_and_replays_store_nothing(live: LiveStack, tmp_path: Path) -> None:
    ledger, billing = project(tmp_path, "ledger"), project(tmp_path, "billing")
    edit = {
        "tool_name": "Edit",
        "tool_input": {"file_path": f"{ledger}/src/retry.py", "old_string": "a", "new_string": "b"},
        "tool_response": {"success": True},
    }
    batch = [
        exchange(
            "s1:m1",
            ledger,
            "why does the ledger importer time out on large CSV files?",
            "The importer reads the whole file into memory; stream it in chunks of 10,000 rows.",
            tool_uses=[edit, edit],
        ),
        exchange("s1:m2", ledger, "my key is AKIAQ3EGRX5N7HZKW4TB <private>pin 4321</private> ok", "Noted."),
        exchange("s2:m1", billing, "which queue does billing publish invoices to?", "invoices.v2 on RabbitMQ."),
    ]
    dry = live.post_as("/api/backfill", {"exchanges": batch, "dry_run": True}, BackfillOut)
    assert (dry.stored, dry.existing, dry.observations) == (3, 0, 1)
    by_name = {name.split("-")[0]: (c.stored, c.existing) for name, c in dry.projects.items()}  # "ledger-<hash>"
    assert by_name == {"ledger": (2, 0), "billing": (1, 0)}
    assert live.post_as("/api/search", {"query": "ledger importer CSV", "cwd": ledger}, SearchOut).memories == []

    first = live.post_as("/api/backfill", {"exchanges": batch}, BackfillOut)
    assert (first.stored, first.existing, first.observations) == (3, 0, 1)
    assert first.kg_taught == 3

    query = {"query": "ledger importer times out on big CSV", "cwd": ledger, "limit": 3}
    top = live.post_as("/api/search", query, SearchOut).memories[0]
    assert top.id == backfill_id("claude", "s1:m1")
    assert top.content.startswith("User: why does the ledger importer") and "\nAssistant: " in top.content
    assert top.collection == "history" and top.created_at.startswith("2025-03-04T10:15:00")
    assert top.metadata["kind"] == "exchange" and top.metadata["session_id"] == "hist-1"
    assert top.score == 0.5
    recent = live.post_as(
        "/api/search", {"days_back": 7, "cwd": ledger, "collections": ["working", "history"]}, SearchOut
    )
    assert top.id not in [m.id for m in recent.memories]  # dated 2025: not recent
    other = live.post_as("/api/search", {"query": "billing invoices queue", "cwd": billing, "limit": 1}, SearchOut)
    assert other.memories[0].id == backfill_id("claude", "s2:m1")

    secret = live.post_as("/api/search", {"id": backfill_id("claude", "s1:m2"), "cwd": ledger}, SearchOut).memories[0]
    assert "AKIAQ3EGRX5N7HZKW4TB" not in secret.content and "4321" not in secret.content
    observation_id = backfill_id("claude", "s1:m1", "tool:0")
    observed = live.post_as("/api/search", {"id": observation_id, "cwd": ledger}, SearchOut).memories[0]
    assert observed.metadata["type"] == "observation"
    assert "retry.py" in observed.content
    assert observed.metadata["observation_importance"] == 0.6  # an edit, as PostToolUse stamps it

    again_json = live.post("/api/backfill", {"exchanges": batch})
    again = BackfillOut.model_validate(again_json)
    assert (again.stored, again.existing, again.observations) == (0, 3, 0)
    assert sorted((c.stored, c.existing) for c in again.projects.values()) == [(0, 1), (0, 2)]
    assert "kg_taught" not in again_json

    graph = live.get_as("/api/kg", GraphOut, cwd=ledger)
    labels = " ".join(n.label + " " + n.id for n in graph.nodes)
    assert "importer" in labels or "csv" in labels.lower(), graph.nodes[:10]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"client": "vim"}, "client"),
        ({"started_at": "yesterday"}, "started_at"),
        ({"started_at": "2025-03-04T10:15:00"}, "started_at"),  # no time zone
        ({"source_id": ""}, "source_id"),
        ({"source_id": "x" * 201}, "source_id"),
        ({"user_text": "x" * 100_001}, "user_text"),
        ({"tool_uses": [{"tool_name": "Read"}] * 51}, "tool_uses"),
    ],
)
def test_bad_exchanges_are_refused_naming_the_field(live: LiveStack, patch: dict[str, object], field: str) -> None:
    body = {"exchanges": [{**exchange("bad", "/tmp", "q", "a"), **patch}]}
    reply = live.post("/api/backfill", body, expect=422)
    assert field in json_str(reply, "error")


def test_batch_bounds(live: LiveStack) -> None:
    assert "exchanges" in json_str(live.post("/api/backfill", {"exchanges": []}, expect=422), "error")
    many = [exchange(f"n{i}", "/tmp", "q", "a") for i in range(257)]
    assert "exchanges" in json_str(live.post("/api/backfill", {"exchanges": many}, expect=422), "error")


def test_an_exchange_the_live_hooks_stored_is_not_stored_again(live: LiveStack, tmp_path: Path) -> None:
    """History overlaps the weeks mnemex ran: the transcript's copy of a live exchange is 'existing'."""
    repo = project(tmp_path, "overlap")
    prompt, answer = "how is the nightly overlap report generated?", "A cron job runs make overlap-report at 02:00."
    live.post("/api/hooks/get-context", {"session_id": "live-7", "prompt": prompt, "cwd": repo})
    stored_live = live.post_as(
        "/api/hooks/stop", {"session_id": "live-7", "cwd": repo, "assistant_text": answer}, StopOut
    )
    same = exchange("live-7:a1", repo, prompt, answer, session_id="live-7")
    other_session = exchange("live-8:a1", repo, prompt, answer, session_id="live-8")
    reply = live.post_as("/api/backfill", {"exchanges": [same, other_session]}, BackfillOut)
    assert (reply.stored, reply.existing) == (1, 1)
    found = live.post_as(
        "/api/search",
        {"query": "nightly overlap report", "cwd": repo, "collections": ["working", "history"]},
        SearchOut,
    )
    shown = [m for m in found.memories if m.content.startswith("User: how is the nightly overlap")]
    assert len(shown) == 1  # one text: the search lists it once, the other copy among its duplicates
    ids = [shown[0].id, *shown[0].duplicate_ids]
    assert sorted(ids) == sorted([stored_live.exchange_id, backfill_id("claude", "live-8:a1")])


def _sweep(live: LiveStack) -> mem_pb.RunMaintenanceResponse:
    """The memory service's real maintenance pass (what runs 30 s after start and every 15 min), every scope."""
    import grpc

    with grpc.insecure_channel(live.memory_addr) as channel:
        reply: mem_pb.RunMaintenanceResponse = mem_grpc.MemoryServiceStub(channel).RunMaintenance(
            mem_pb.RunMaintenanceRequest(), timeout=120
        )
    return reply


def test_imported_history_survives_the_lifecycle_sweeps(live: LiveStack, tmp_path: Path) -> None:
    """Issue 27, defect 1: backfilled exchanges, dated a year back, were all expired by the first sweep."""
    repo = project(tmp_path, "importer")
    runs = [
        {
            "tool_name": "Bash",
            "tool_input": {"command": f"pytest tests/test_{i}.py"},
            "tool_response": {"stdout": f"{i + 2} passed in 0.1s"},
        }
        for i in range(4)
    ]
    batch = [
        exchange(
            f"old-{i}",
            repo,
            f"question {i} about the quarterly importer",
            f"answer {i}: rerun it with --resume",
            session_id="old-session",
            tool_uses=runs if i == 0 else [],
        )
        for i in range(12)
    ]
    stored = live.post_as("/api/backfill", {"exchanges": batch}, BackfillOut)
    assert (stored.stored, stored.observations) == (12, 4)
    ids = [backfill_id("claude", f"old-{i}") for i in range(12)]
    ids += [backfill_id("claude", "old-0", f"tool:{i}") for i in range(4)]

    for _ in range(2):  # the first sweeps after an import
        swept = _sweep(live)
        assert (swept.expired, swept.deleted, swept.observations_compacted) == (0, 0, 0)
    for memory_id in ids:
        found = live.post_as("/api/search", {"id": memory_id, "cwd": repo}, SearchOut).memories
        assert [m.id for m in found] == [memory_id]
        assert found[0].collection == "history" and found[0].created_at.startswith("2025-03-04")
        assert json_str(found[0].metadata, "imported_at") > found[0].created_at
    query = {"query": "quarterly importer", "cwd": repo, "limit": 20}
    listed = live.post_as("/api/search", query, SearchOut).memories
    assert {m.id for m in listed} >= set(ids[:12])


class _Quiet:
    def start_source(self, source: Source) -> None: ...
    def advance(self, done: int, total: int, exchanges: int) -> None: ...
    def source_done(self) -> None: ...
    def batch_sent(self, sent_total: int) -> None: ...


def test_a_rerun_says_when_imported_exchanges_are_gone(
    live: LiveStack, loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    """Issue 27, defect 1: a re-run over unchanged files said "0 read, unchanged" after memory lost them all."""
    import shutil

    from mnemex.backfill.backfill_run import Backfill
    from mnemex.backfill.checkpoint import Checkpoint
    from mnemex.backfill.exchange import Exchange
    from mnemex.backfill.plan import Filters
    from mnemex.backfill.sources import discover
    from tests.integration.gateway.live_stack import start_live_stack

    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "backfill"
    user_home = tmp_path / "home"
    transcript = user_home / ".claude" / "projects" / "-srv-home-code-shop" / "session.jsonl"
    transcript.parent.mkdir(parents=True)
    shutil.copy(fixtures / "claude_session.jsonl", transcript)
    checkpoint_path = tmp_path / "mnemex" / "backfill" / "checkpoint.json"

    def run_against(stack: LiveStack) -> Report:
        def post(exchanges: list[Exchange], dry_run: bool) -> object:
            return stack.post("/api/backfill", {"exchanges": exchanges, "dry_run": dry_run})

        runner = Backfill(post, _Quiet(), Filters(), Checkpoint.load(checkpoint_path), False)
        return runner.run(discover(user_home, ("claude",)))

    first = run_against(live)
    assert first.count("read") == 1 and first.stored + first.existing == first.sent > 0
    unchanged = run_against(live)  # nothing lost: the re-check finds every exchange
    assert unchanged.count("unchanged") == 1 and (unchanged.rechecked, unchanged.missing) == (first.sent, 0)
    assert unchanged.sources[0].detail == ""

    emptied = start_live_stack(loop_thread, embedding_addr, tmp_path / "replaced-store")  # memory lost them all
    try:
        lost = run_against(emptied)
        assert lost.count("unchanged") == 1 and lost.stored == 0  # a dry run: nothing was written
        assert (lost.rechecked, lost.missing) == (first.sent, first.sent)
        assert lost.sources[0].detail.startswith(f"{first.sent} of {first.sent} exchanges imported earlier")
        assert "--rescan" in lost.sources[0].detail
        assert lost.to_json()["exchanges"]["missing"] == first.sent
    finally:
        emptied.close()


def test_history_older_than_a_year_is_listed_by_a_wide_enough_window(live: LiveStack, tmp_path: Path) -> None:
    old = project(tmp_path, "archive")
    two_years = exchange("old:m1", old, "how did we shard the audit log?", "By tenant id, 64 shards.")
    two_years["started_at"] = "2024-06-01T09:00:00Z"
    assert live.post_as("/api/backfill", {"exchanges": [two_years]}, BackfillOut).stored == 1
    within_a_year = live.post_as("/api/search", {"days_back": 365, "cwd": old, "sort_by": "recency"}, SearchOut)
    ten_years = live.post_as("/api/search", {"days_back": 3650, "cwd": old, "sort_by": "recency"}, SearchOut)
    assert not any("64 shards" in m.content for m in within_a_year.memories)
    assert any("64 shards" in m.content for m in ten_years.memories)
