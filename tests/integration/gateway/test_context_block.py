"""What one injected block costs and says, over real HTTP against the real stack (issue 28)."""

from __future__ import annotations

from pathlib import Path

import grpc

from gateway.formatting import BLOCK_TOKENS
from gateway.reply_models import ContextOut, StoredFactOut
from kernel import projects
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from tests.integration.gateway.live_stack import LiveStack


def project(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    (path / ".git").mkdir(parents=True)
    return str(path)


def test_the_reply_reports_the_blocks_token_cost_and_stays_within_it(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path, "tokens")
    detail = " ".join(f"step {i}: check the ledger migration lock table and the alembic head" for i in range(12))
    for n in range(6):
        live.post_as(
            "/api/memory-bank/add",
            {"content": f"Ledger migration note {n}: alembic upgrade needs the lock released. {detail}", "cwd": cwd},
            StoredFactOut,
        )
    reply = live.post_as(
        "/api/hooks/get-context",
        {"session_id": "tokens-1", "prompt": "the ledger alembic migration hangs on the lock", "cwd": cwd},
        ContextOut,
    )
    known = reply.known_context
    assert known and reply.memories
    assert reply.tokens.known_context == -(-len(known) // 4)
    assert reply.tokens.known_context <= BLOCK_TOKENS
    assert reply.tokens.context == -(-len(reply.context) // 4)
    kept = [c for c in reply.choices if c.kept]
    assert [c.id for c in kept] == [m.id for m in reply.memories]
    assert all(c.reason.startswith("kept") for c in kept)


def test_a_user_wide_fact_is_stored_as_such_and_a_project_fact_by_default(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path, "scoped")
    local = live.post_as(
        "/api/memory-bank/add", {"content": "The ledger service deploys with Helm", "cwd": cwd}, StoredFactOut
    )
    wide = live.post_as(
        "/api/memory-bank/add",
        {"content": "The user writes commit messages in English", "cwd": cwd, "user_wide": True},
        StoredFactOut,
    )
    assert local.memory.metadata["fact_scope"] == "project"
    assert wide.memory.metadata["fact_scope"] == "user"


def test_the_session_page_shows_why_each_line_was_kept_and_what_was_left_out(live: LiveStack, tmp_path: Path) -> None:
    cwd = project(tmp_path, "viewer")
    exchange = (
        "User: the billing tests fail with ModuleNotFoundError for billing.utils\n"
        "Assistant: Install the package in editable mode: pip install -e . fixes the import."
    )
    scope = common_pb.Scope(user=live.settings.user, project=projects.resolve(cwd, live.home))
    with grpc.insecure_channel(live.memory_addr) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        for collection in ("working", "history"):  # one fix in two tiers: one line shown, one collapsed into it
            stub.Store(
                pb.StoreRequest(scope=scope, collection=collection, content=exchange, allow_duplicate=True), timeout=30
            )
        chatter = "User: thanks!\nAssistant: You're welcome."
        stub.Store(pb.StoreRequest(scope=scope, collection="working", content=chatter), timeout=30)
    reply = live.post_as(
        "/api/hooks/get-context",
        {"session_id": "viewer-1", "prompt": "pytest: No module named billing.utils again", "cwd": cwd},
        ContextOut,
    )
    kept = [c for c in reply.choices if c.kept]
    assert len(kept) == 1 and len(kept[0].merged_ids) == 1
    page = live.client.get("/ui/session", params={"id": "viewer-1", "project": scope.project})
    assert page.status_code == 200, page.text
    html = page.text
    # One sentence per kept line (why it was shown, its copies folded in); the left-out line with its text,
    # its relevance and the floor in force.
    assert "Shown because it matched" in html and "1 copy of it folded in" in html
    assert "thanks!" in html and "below the relevance floor" in html and 'data-testid="floor"' in html
