"""PrepareContext says each thing once, on topic, and nothing the session already has.

Real memory service, real Chroma, real all-MiniLM-L6-v2 vectors. Each test
replays one measured defect of issue 28: the same fix on 2.6 lines per block,
off-topic lines filling k, 8-10 % of lines being turns of the current session.
"""

from __future__ import annotations

from protos.mnemex.common.v1.common_pb2 import Scope
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from tests.support.memory_service import store

FIX_EXCHANGE = (
    "User: running the test suite gives ModuleNotFoundError for billing.utils\n"
    "Assistant: The package is not installed in editable mode; run pip install -e . and the import resolves."
)
FIX_TAKEAWAY = "Fix for ModuleNotFoundError on billing imports in tests: install the package in editable mode with pip install -e ."
PROMPT = "pytest fails with ModuleNotFoundError: No module named 'billing.utils' when I run the tests"


def prepare(
    stub: MemoryServiceStub, scope: Scope, session: str, query: str, limit: int = 5
) -> pb.PrepareContextResponse:
    request = pb.PrepareContextRequest(scope=scope, session_id=session, prompt=query)
    request.search.CopyFrom(pb.SearchRequest(query=query, limit=limit))
    return stub.PrepareContext(request, timeout=30)


def reasons(reply: pb.PrepareContextResponse) -> dict[str, str]:
    return {c.id: c.reason for c in reply.choices}


def test_copies_of_one_fix_collapse_into_one_line_with_their_ids(stub: MemoryServiceStub, scope: Scope) -> None:
    exchange = store(stub, scope, FIX_EXCHANGE, "working", allow_duplicate=True)
    promoted_copy = store(stub, scope, FIX_EXCHANGE, "history", allow_duplicate=True)
    takeaway = store(stub, scope, FIX_TAKEAWAY, "working", allow_duplicate=True)
    reply = prepare(stub, scope, "s-dup", PROMPT)
    shown = [m.id for m in reply.memories]
    copies = {exchange.id, promoted_copy.id, takeaway.id}
    assert len(copies & set(shown)) == 1, shown
    [kept] = [c for c in reply.choices if c.kept and c.id in copies]
    assert set(kept.merged_ids) == copies - {kept.id}
    for other in copies - {kept.id}:
        assert reasons(reply)[other] == f"duplicate of {kept.id}"


def test_off_topic_lines_do_not_fill_the_slots(stub: MemoryServiceStub, scope: Scope) -> None:
    fix = store(stub, scope, FIX_EXCHANGE, "history")
    chatter = store(stub, scope, "User: thanks, that's great!\nAssistant: You're welcome, glad it helped.")
    branch = store(stub, scope, "User: how do I rename a git branch?\nAssistant: git branch -m old new")
    reply = prepare(stub, scope, "s-floor", PROMPT, limit=5)
    shown = [m.id for m in reply.memories]
    assert shown == [fix.id]
    assert reasons(reply)[chatter.id].startswith("below relevance floor")
    assert reasons(reply)[branch.id].startswith("below relevance floor")


def test_turns_of_the_asking_session_are_left_out(stub: MemoryServiceStub, scope: Scope) -> None:
    stub.PrepareContext(pb.PrepareContextRequest(scope=scope, session_id="s-echo", prompt=PROMPT), timeout=30)
    exchange_id = stub.RecordExchange(
        pb.RecordExchangeRequest(scope=scope, session_id="s-echo", assistant_text="Run pip install -e . first."),
        timeout=30,
    ).exchange_id
    same_session = prepare(stub, scope, "s-echo", "still ModuleNotFoundError for billing.utils in pytest")
    assert exchange_id not in [m.id for m in same_session.memories]
    assert reasons(same_session)[exchange_id] == "current session"
    other_session = prepare(stub, scope, "s-later", "still ModuleNotFoundError for billing.utils in pytest")
    assert exchange_id in [m.id for m in other_session.memories]


def test_a_wrong_fix_and_the_right_fix_for_one_problem_stay_two_lines(stub: MemoryServiceStub, scope: Scope) -> None:
    # Cosine 0.91 between these two: as close as an exchange and its takeaway. They differ
    # in what they tell the model to do, so both are shown.
    wrong = store(
        stub,
        scope,
        "User: pytest says No module named billing.utils\nAssistant: Try adding an __init__.py to billing/.",
    )
    right = store(
        stub,
        scope,
        "User: pytest says No module named billing.utils\nAssistant: Install the package in editable mode: pip install -e .",
    )
    reply = prepare(stub, scope, "s-two-fixes", PROMPT)
    assert {wrong.id, right.id} <= {m.id for m in reply.memories}
