"""The memory servicer is its RPC groups: every RPC of MemoryService answered by exactly one group."""

from __future__ import annotations

from types import MethodType

import pytest

from services.memory.transport.admin_rpcs import AdminRpcs
from services.memory.transport.memory_rpcs import MemoryRpcs
from services.memory.transport.memory_servicer import SERVICE, MemoryServicer
from services.memory.transport.portability_rpcs import PortabilityRpcs
from services.memory.transport.prompt_rpcs import PromptRpcs
from services.memory.transport.viewer_rpcs import ViewerRpcs

GROUPS = (PromptRpcs, MemoryRpcs, ViewerRpcs, AdminRpcs, PortabilityRpcs)


def test_every_rpc_is_answered_by_exactly_one_group() -> None:
    owners = {
        name: [g.__name__ for g in GROUPS if callable(getattr(g, name, None))] for name in SERVICE.methods_by_name
    }
    assert {name: found for name, found in owners.items() if len(found) != 1} == {}
    assert owners["PrepareContext"] == ["PromptRpcs"]


class _Prompt:
    async def PrepareContext(self, request: object, context: object) -> None: ...


def test_an_rpc_no_group_answers_or_two_groups_answer_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="answered by 0 RPC groups"):
        MemoryServicer(_Prompt())
    everything = [object.__new__(g) for g in GROUPS]  # bound methods only: nothing is called
    servicer = MemoryServicer(*everything)
    handler = servicer.handlers["PrepareContext"]
    assert isinstance(handler, MethodType) and handler.__self__ is everything[0]
    with pytest.raises(ValueError, match="PrepareContext is answered by 2 RPC groups"):
        MemoryServicer(*everything, _Prompt())
