"""Two alembic failures told with one vocabulary, and how a test teaches and asks the real kg service about
them: shared by the tests that keep them apart, merge them and unmerge them."""

from __future__ import annotations

import numpy as np

from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
from services.embedding.model import Encoder

MISSING = (
    "alembic upgrade head fails after I rebased onto main: Can't locate revision identified by 'a81f2c0e'",
    "alembic upgrade head",
    "alembic.util.exc.CommandError: Can't locate revision identified by 'a81f2c0e'",
    "Restored the deleted migration file a81f2c0e from main and reran alembic upgrade head.",
)
HEADS = (
    "alembic upgrade head fails after I merged the feature branch: Multiple head revisions are present",
    "alembic upgrade head",
    "alembic.util.exc.CommandError: Multiple head revisions are present for given argument 'head'",
    "Ran alembic merge heads -m 'merge branches' to join the two heads, then alembic upgrade head.",
)


def vec(encoder: Encoder, text: str) -> bytes:
    return np.asarray(encoder.encode([text])[0], dtype="<f4").tobytes()


def solve(
    stub: pb_grpc.KnowledgeGraphServiceStub,
    encoder: Encoder,
    scope: common_pb.Scope,
    session: str,
    problem: tuple[str, ...],
) -> None:
    statement, command, error, fix = problem
    stub.RecordToolError(
        pb.RecordToolErrorRequest(
            scope=scope, session_id=session, command=command, output=error, error_vector=vec(encoder, error)
        ),
        timeout=5,
    )
    for prompt, outcome, answer in (
        (statement, common_pb.OUTCOME_FAILED, "Tried alembic stamp head."),
        ("that fixed it", common_pb.OUTCOME_WORKED, fix),
    ):
        stub.RecordTurn(
            pb.RecordTurnRequest(
                scope=scope,
                session_id=session,
                prompt=prompt,
                prompt_vector=vec(encoder, prompt),
                outcome=outcome,
                answer=answer,
            ),
            timeout=5,
        )


def lessons(
    stub: pb_grpc.KnowledgeGraphServiceStub, encoder: Encoder, scope: common_pb.Scope, session: str, prompt: str
) -> list[pb.EpisodeLesson]:
    reply = stub.EpisodeLessons(
        pb.EpisodeLessonsRequest(
            scope=scope, session_id=session, query_vector=vec(encoder, prompt), prompt=prompt, limit=6
        ),
        timeout=5,
    )
    return list(reply.lessons)
