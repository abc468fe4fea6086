"""A memory_bank fact belongs to the project where it was stated, unless stated user-wide.

Real memory service, real Chroma, real embeddings. The measured defect (issue 28):
a fact stated in project B about an attribute superseded and archived project
A's different, true fact about the same attribute.
"""

from __future__ import annotations

import json

import numpy as np

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from services.memory.domain.naming import MEMORY_BANK, memory_id, new_uid
from services.memory.domain.write_rules import new_record
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import MemoryService, store


def other_project(scope: common_pb.Scope, name: str) -> common_pb.Scope:
    return common_pb.Scope(user=scope.user, project=f"{scope.project}-{name}")


def get(stub: MemoryServiceStub, scope: common_pb.Scope, memory_id_: str) -> pb.Memory:
    return stub.Get(pb.GetRequest(scope=scope, id=memory_id_), timeout=10).memory


def test_a_fact_in_another_project_does_not_supersede_this_projects_fact(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    project_b = other_project(scope, "b")
    fact_a = store(stub, scope, "The staging database port is 5432", MEMORY_BANK)
    reply = stub.Store(
        pb.StoreRequest(scope=project_b, collection=MEMORY_BANK, content="The staging database port is 6543"),
        timeout=30,
    )
    assert list(reply.superseded_ids) == []
    assert not get(stub, scope, fact_a.id).archived
    # Within one project the newer value still supersedes the older one.
    again = stub.Store(
        pb.StoreRequest(scope=project_b, collection=MEMORY_BANK, content="The staging database port is 7000"),
        timeout=30,
    )
    assert list(again.superseded_ids) == [reply.memory.id]
    assert not get(stub, scope, fact_a.id).archived


def test_user_wide_facts_supersede_each_other_but_not_project_facts(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    local = store(stub, scope, "The user's editor is vim", MEMORY_BANK)
    wide = stub.Store(
        pb.StoreRequest(scope=scope, collection=MEMORY_BANK, content="The user's editor is emacs", user_wide=True),
        timeout=30,
    ).memory
    assert json.loads(wide.metadata_json)["fact_scope"] == "user"
    assert not get(stub, scope, local.id).archived
    newer = stub.Store(
        pb.StoreRequest(
            scope=other_project(scope, "c"),
            collection=MEMORY_BANK,
            content="The user's editor is helix",
            user_wide=True,
        ),
        timeout=30,
    )
    assert list(newer.superseded_ids) == [wide.id]


def test_facts_stored_before_scopes_stay_user_wide(
    memory_service: MemoryService, loop_thread: LoopThread, stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    """Migration: a fact without ``fact_scope`` was user-wide and stays so: a project fact leaves it
    alone, a user-wide fact with another value supersedes it, and no fact is hidden."""
    memory = memory_service.memory
    mem_scope = memory.scope(scope.user, scope.project)

    async def legacy_fact() -> str:
        record = new_record(
            memory_id=memory_id(MEMORY_BANK, new_uid()),
            collection=MEMORY_BANK,
            content="The default branch is main",
            project=scope.project,
            now=memory.clock(),
            tags=[],
            importance=None,
            confidence=None,
            initial_outcome=None,
            session_id="",
            extra={},
        )
        vector = np.random.default_rng(7).standard_normal(384).astype(np.float32)  # supersession reads no vector
        [stored] = await memory.store.add(mem_scope, [(record, vector / np.linalg.norm(vector))])
        return stored.id

    old_id = loop_thread.run(legacy_fact())
    project_fact = stub.Store(
        pb.StoreRequest(scope=other_project(scope, "d"), collection=MEMORY_BANK, content="The default branch is trunk"),
        timeout=30,
    )
    assert list(project_fact.superseded_ids) == []
    wide = stub.Store(
        pb.StoreRequest(scope=scope, collection=MEMORY_BANK, content="The default branch is develop", user_wide=True),
        timeout=30,
    )
    assert list(wide.superseded_ids) == [old_id]


def test_another_projects_fact_is_never_injected(stub: MemoryServiceStub, scope: common_pb.Scope) -> None:
    """Issue 35 replaced the old rule (shown below the local lines, labelled with its project): a project
    fact holds only in its project, so another project's never reaches the block."""
    project_b = other_project(scope, "e")
    theirs = store(stub, scope, "The billing service deploys to the Frankfurt cluster", MEMORY_BANK, importance=1.0)
    ours = store(stub, project_b, "The billing service deploys to the Dublin cluster", MEMORY_BANK, importance=0.5)
    request = pb.PrepareContextRequest(scope=project_b, session_id="scope-1", prompt="where does billing deploy?")
    request.search.CopyFrom(pb.SearchRequest(query="where does the billing service deploy to?", limit=5))
    reply = stub.PrepareContext(request, timeout=30)
    shown = [m.id for m in reply.memories]
    assert ours.id in shown and theirs.id not in shown
    # The search itself leaves another project's facts out (they take no place among the results).
    assert theirs.id not in [c.id for c in reply.choices]


CITIES = ("Frankfurt", "Paris", "Madrid", "Milan", "Vienna", "Warsaw", "Zurich", "Oslo", "Lisbon", "Prague")


def test_a_projects_own_fact_is_not_crowded_out_by_other_projects_facts(
    stub: MemoryServiceStub, scope: common_pb.Scope
) -> None:
    """Ten facts of other projects, each closer to the prompt than this project's own: the search took the
    best few of all the user's facts and only then dropped the other projects', so the own fact never
    appeared. Now a project's facts (and user-wide ones) compete among themselves."""
    theirs = [
        store(stub, other_project(scope, f"o{i}"), f"The billing service deploys to the {city} cluster", MEMORY_BANK)
        for i, city in enumerate(CITIES)
    ]
    ours = store(stub, scope, "Billing releases ship to the Dublin cluster on Tuesdays", MEMORY_BANK)
    wide = stub.Store(
        pb.StoreRequest(scope=scope, collection=MEMORY_BANK, content="Deploys need a change ticket", user_wide=True),
        timeout=30,
    ).memory
    request = pb.PrepareContextRequest(scope=scope, session_id="crowd-1", prompt="where does billing deploy?")
    request.search.CopyFrom(pb.SearchRequest(query="where does the billing service deploy to?", limit=5))
    reply = stub.PrepareContext(request, timeout=30)
    shown = [m.id for m in reply.memories]
    assert ours.id in shown and not {m.id for m in theirs} & set(shown)
    assert wide.id in [c.id for c in reply.choices]  # a user-wide fact holds here: it is still a candidate
    # search_memory still finds every project's facts.
    found = stub.Search(pb.SearchRequest(scope=scope, query="where does the billing service deploy to?", limit=5))
    assert {m.id for m in found.memories} <= {m.id for m in theirs} | {ours.id, wide.id}
    assert {m.id for m in found.memories} & {m.id for m in theirs}
