"""Two problems that share a vocabulary stay two known problems, over the real kg service.

Two alembic failures: one where a revision cannot be found after a rebase, one where two branches
left two heads. Told with the same tool, the same command and most of the same words, each solved
by its own fix. The old rule filed an episode under any known problem at cosine 0.45, so the second
joined the first and its fix slots then held both fixes. Real all-MiniLM-L6-v2 vectors, a real kg
gRPC server, and the counts that Stats reports for the project.
"""

from __future__ import annotations

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1.kg_service_pb2_grpc import KnowledgeGraphServiceStub
from services.embedding.model import Encoder
from tests.integration.kg.known_problems import HEADS, MISSING, lessons, solve


def test_two_alembic_failures_stay_two_problems_each_with_its_own_fix(
    stub: KnowledgeGraphServiceStub, scope: common_pb.Scope, encoder: Encoder
) -> None:
    solve(stub, encoder, scope, "s1", MISSING)
    solve(stub, encoder, scope, "s2", HEADS)
    counts = stub.Stats(pb.StatsRequest(scope=scope), timeout=5).counts
    assert counts["episode_problems"] == 2

    # Told in other words, the two stay too alike to pick one: no lesson beats a wrong one.
    told = "migrations are broken again, alembic says there are multiple heads after the merge"
    assert lessons(stub, encoder, scope, "s3", told) == []
    # The same failure seen again (another branch name, another revision id) names its problem.
    stub.RecordToolError(
        pb.RecordToolErrorRequest(
            scope=scope,
            session_id="s4",
            command="alembic upgrade head",
            output="alembic.util.exc.CommandError: Multiple head revisions are present for given argument 'heads'",
        ),
        timeout=5,
    )
    found = lessons(stub, encoder, scope, "s4", told)
    assert [x.text for x in found if x.kind == "solution"] == [HEADS[3]]
    assert all(x.why.startswith("same error: commanderror: multiple head revisions") for x in found)


def test_stats_count_a_projects_known_problems_not_the_users(
    stub: KnowledgeGraphServiceStub, scope: common_pb.Scope, encoder: Encoder
) -> None:
    """Known problems live in the user's episode book; Stats read the project's own graphs, so it
    always said 0."""
    solve(stub, encoder, scope, "s1", MISSING)
    other = common_pb.Scope(user=scope.user, project=scope.project + "-other")
    assert stub.Stats(pb.StatsRequest(scope=scope), timeout=5).counts["episode_problems"] == 1
    assert stub.Stats(pb.StatsRequest(scope=other), timeout=5).counts["episode_problems"] == 0
