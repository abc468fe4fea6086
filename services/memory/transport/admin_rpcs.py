"""Upkeep and reporting RPCs: Stats, RunMaintenance, ListScopes, Info, GetRules, and consolidation.

Consolidation (FindConsolidationCandidates, Consolidate, UndoConsolidation):
the assistant decides, the service applies (``usecases/consolidation.py``).
Translation only: each RPC checks its scope, calls one use case and converts the reply.
"""

from __future__ import annotations

from dataclasses import asdict

from kernel import __version__
from kernel.grpc_hosting import RpcContext
from kernel.memory_rules import OUTCOME_WORDS
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain.learning_rules import rules_report
from services.memory.domain.lifecycle import LifecycleConfig
from services.memory.domain.outcomes import Outcome
from services.memory.domain.ranking import RankingWeights
from services.memory.transport import memory_protos as protos
from services.memory.usecases.consolidation import Consolidation
from services.memory.usecases.maintenance import Maintenance
from services.memory.usecases.request_scopes import RequestScopes


def rules_response(lifecycle: LifecycleConfig, ranking: RankingWeights) -> pb.GetRulesResponse:
    """``GetRules``' reply: the rules this service runs by (``domain.learning_rules``), on the wire
    (every field of ``kernel.memory_rules.Rules`` under its own name; ``gateway.rules`` reads it back)."""
    rules = rules_report(lifecycle, ranking)
    scalars = {name: value for name, value in asdict(rules).items() if name not in ("lifecycle", "outcomes")}
    return pb.GetRulesResponse(
        lifecycle=pb.LifecycleRules(**asdict(rules.lifecycle)),
        outcomes=[
            pb.OutcomeRule(outcome=protos.OUTCOME_TO_PB[Outcome(word)], **asdict(rules.outcomes[word]))
            for word in OUTCOME_WORDS
        ],
        **scalars,
    )


class AdminRpcs:
    def __init__(
        self,
        scopes: RequestScopes,
        maintenance: Maintenance,
        consolidation: Consolidation,
        *,
        lifecycle: LifecycleConfig,
        ranking: RankingWeights,
    ) -> None:
        self._scopes = scopes
        self._maintenance = maintenance
        self._consolidation = consolidation
        self._lifecycle = lifecycle
        self._ranking = ranking

    async def Stats(self, request: pb.StatsRequest, context: RpcContext) -> pb.StatsResponse:
        found = await self._maintenance.stats(protos.scope(self._scopes, request.scope))
        return pb.StatsResponse(
            counts=found.counts,
            score_histogram=found.score_histogram,
            events=found.events,
            data_bytes=found.data_bytes,
            events_by_day_json=found.events_by_day_json,
        )

    async def RunMaintenance(self, request: pb.RunMaintenanceRequest, context: RpcContext) -> pb.RunMaintenanceResponse:
        scope = protos.scope(self._scopes, request.scope) if request.scope.user else None
        report = await self._maintenance.run(scope)
        return pb.RunMaintenanceResponse(
            promoted=report.promoted,
            demoted=report.demoted,
            deleted=report.deleted,
            expired=report.expired,
            exchanges_pruned=report.exchanges_pruned,
            observations_compacted=report.observations_compacted,
        )

    async def ListScopes(self, request: pb.ListScopesRequest, context: RpcContext) -> pb.ListScopesResponse:
        found = await self._maintenance.scope_counts()
        return pb.ListScopesResponse(
            scopes=[pb.ScopeInfo(scope=common_pb.Scope(user=s.user, project=s.project), counts=c) for s, c in found]
        )

    async def Info(self, request: pb.InfoRequest, context: RpcContext) -> pb.InfoResponse:
        return pb.InfoResponse(service="memory", version=__version__)

    async def GetRules(self, request: pb.GetRulesRequest, context: RpcContext) -> pb.GetRulesResponse:
        return rules_response(self._lifecycle, self._ranking)

    async def FindConsolidationCandidates(
        self, request: pb.FindConsolidationCandidatesRequest, context: RpcContext
    ) -> pb.FindConsolidationCandidatesResponse:
        clusters, scanned = await self._consolidation.candidates(
            protos.scope(self._scopes, request.scope), list(request.kinds), request.limit
        )
        return pb.FindConsolidationCandidatesResponse(
            clusters=[
                pb.ConsolidationCluster(
                    kind=c.kind,
                    reason=c.reason,
                    similarity=c.similarity,
                    memories=[protos.memory(m) for m in c.memories],
                )
                for c in clusters
            ],
            scanned=scanned,
        )

    async def Consolidate(self, request: pb.ConsolidateRequest, context: RpcContext) -> pb.ConsolidateResponse:
        merge = await self._consolidation.consolidate(
            protos.scope(self._scopes, request.scope),
            source_ids=list(request.source_ids),
            content=request.content,
            collection=request.collection,
            tags=list(request.tags),
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
            reason=request.reason,
        )
        return pb.ConsolidateResponse(
            merged=protos.memory(merge.merged), archived=[protos.memory(m) for m in merge.archived]
        )

    async def UndoConsolidation(
        self, request: pb.UndoConsolidationRequest, context: RpcContext
    ) -> pb.UndoConsolidationResponse:
        undo = await self._consolidation.undo(protos.scope(self._scopes, request.scope), request.id)
        return pb.UndoConsolidationResponse(
            restored=[protos.memory(m) for m in undo.restored], merged=protos.memory(undo.merged)
        )
