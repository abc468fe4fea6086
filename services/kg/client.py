"""Async client for the kg service, for the gateway and the memory service.

Methods take plain Python values and return the generated messages; a
scope is (user, project). Outcomes are "worked", "partial", "unknown" or
"failed".
"""

from __future__ import annotations

import grpc

from kernel.grpc_runtime import client_metadata
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc

OUTCOMES = {
    "worked": common_pb.OUTCOME_WORKED,
    "partial": common_pb.OUTCOME_PARTIAL,
    "unknown": common_pb.OUTCOME_UNKNOWN,
    "failed": common_pb.OUTCOME_FAILED,
}


class KgClient:
    def __init__(self, channel: grpc.aio.Channel, token: str | None = None, timeout: float = 2.0) -> None:
        self._stub = pb_grpc.KnowledgeGraphServiceStub(channel)
        self._metadata = client_metadata(token)
        self._timeout = timeout

    @staticmethod
    def scope(user: str, project: str) -> common_pb.Scope:
        return common_pb.Scope(user=user, project=project)

    async def extract(self, text: str, timeout: float | None = None) -> pb.ExtractConceptsResponse:
        return await self._stub.ExtractConcepts(
            pb.ExtractConceptsRequest(text=text), timeout=timeout or self._timeout, metadata=self._metadata
        )

    async def route(self, user: str, project: str, concepts: list[str], timeout: float | None = None) -> pb.RouteResponse:
        return await self._stub.Route(
            pb.RouteRequest(scope=self.scope(user, project), concepts=concepts),
            timeout=timeout or self._timeout,
            metadata=self._metadata,
        )

    async def record_outcome(
        self,
        user: str,
        project: str,
        *,
        outcome: str,
        concepts: list[str] = (),  # type: ignore[assignment]
        collections: list[str] = (),  # type: ignore[assignment]
        doc_ids: list[str] = (),  # type: ignore[assignment]
        context_type: str = "",
        problem: str = "",
        failure_reason: str = "",
        timeout: float | None = None,
    ) -> None:
        await self._stub.RecordOutcome(
            pb.RecordOutcomeRequest(
                scope=self.scope(user, project),
                concepts=list(concepts),
                collections=list(collections),
                doc_ids=list(doc_ids),
                outcome=OUTCOMES[outcome],
                context_type=context_type,
                problem=problem,
                failure_reason=failure_reason,
            ),
            timeout=timeout or self._timeout,
            metadata=self._metadata,
        )

    async def index_fact(self, user: str, project: str, fact_id: str, text: str, timeout: float | None = None) -> pb.IndexFactResponse:
        return await self._stub.IndexFact(
            pb.IndexFactRequest(scope=self.scope(user, project), fact_id=fact_id, text=text),
            timeout=timeout or self._timeout,
            metadata=self._metadata,
        )

    async def facts_for_entities(
        self, user: str, project: str, entities: list[str], limit: int = 5, timeout: float | None = None
    ) -> pb.FactsForEntitiesResponse:
        return await self._stub.FactsForEntities(
            pb.FactsForEntitiesRequest(scope=self.scope(user, project), entities=entities, limit=limit),
            timeout=timeout or self._timeout,
            metadata=self._metadata,
        )

    async def remove_docs(self, user: str, project: str, doc_ids: list[str], timeout: float | None = None) -> int:
        reply = await self._stub.RemoveDocs(
            pb.RemoveDocsRequest(scope=self.scope(user, project), doc_ids=doc_ids),
            timeout=timeout or self._timeout,
            metadata=self._metadata,
        )
        return int(reply.references_removed)

    async def graph(
        self, user: str, project: str, entities: list[str] = (), limit: int = 0, timeout: float | None = None  # type: ignore[assignment]
    ) -> pb.GraphResponse:
        return await self._stub.Graph(
            pb.GraphRequest(scope=self.scope(user, project), entities=list(entities), limit=limit),
            timeout=timeout or self._timeout,
            metadata=self._metadata,
        )
