"""A huge invalid value (an 8 MB id or title) is refused with INVALID_ARGUMENT or NOT_FOUND, never
RESOURCE_EXHAUSTED: error messages quote at most a short prefix of what they were given.

gRPC carries the status message in a trailer, and a trailer over the 16 KB metadata
limit reaches the client as RESOURCE_EXHAUSTED instead of the real error.
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc

HUGE = "x" * (8 * 1024 * 1024)
HUGE_SPACED = "y " * (4 * 1024 * 1024)  # not a valid id either, and not one word


def _refusal(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    return refused.value


@pytest.mark.parametrize("value", [HUGE, HUGE_SPACED], ids=["word", "spaced"])
def test_huge_ids_and_titles_get_their_real_error(
    stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope, value: str
) -> None:
    calls = {
        "Get": lambda: stub.Get(pb.GetRequest(scope=scope, id=value), timeout=60),
        "Archive": lambda: stub.Archive(pb.ArchiveRequest(scope=scope, id=value), timeout=60),
        "Restore": lambda: stub.Restore(pb.RestoreRequest(scope=scope, id=value), timeout=60),
        "RemoveBook": lambda: stub.RemoveBook(pb.RemoveBookRequest(scope=scope, title=value), timeout=60),
        "UndoConsolidation": lambda: stub.UndoConsolidation(
            pb.UndoConsolidationRequest(scope=scope, id=value), timeout=60
        ),
        "Consolidate": lambda: stub.Consolidate(
            pb.ConsolidateRequest(scope=scope, source_ids=[value, "working_1"], content="merged"), timeout=60
        ),
        "Store": lambda: stub.Store(pb.StoreRequest(scope=scope, collection=value, content="a note"), timeout=60),
    }
    seen = {}
    for name, call in calls.items():
        error = _refusal(call)
        seen[name] = error.code()
        details = error.details() or ""
        assert len(details) < 2_000, (name, len(details))
    assert all(code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND) for code in seen.values()), seen


def test_a_quoted_value_is_cut_with_its_length(stub: pb_grpc.MemoryServiceStub, scope: common_pb.Scope) -> None:
    error = _refusal(lambda: stub.RemoveBook(pb.RemoveBookRequest(scope=scope, title=HUGE), timeout=60))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    details = error.details() or ""
    assert "x" * 80 in details and "x" * 81 not in details
    assert f"{len(HUGE):,} characters" in details
