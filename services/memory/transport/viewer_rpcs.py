"""The web viewer's RPCs: Browse, ListSessions, ListTurns, Overview, OutcomeLog.

Translation only: each RPC checks its scope, calls the viewer's reads and converts the reply.
"""

from __future__ import annotations

import json

from kernel.grpc_hosting import RpcContext
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain.browse import EVENT_KINDS, build_browse_query, project_counts
from services.memory.transport import memory_protos as protos
from services.memory.transport import viewer_protos
from services.memory.usecases.request_scopes import RequestScopes
from services.memory.usecases.viewer_reads import ViewerReads


class ViewerRpcs:
    def __init__(self, scopes: RequestScopes, viewer: ViewerReads) -> None:
        self._scopes = scopes
        self._viewer = viewer

    async def Browse(self, request: pb.BrowseRequest, context: RpcContext) -> pb.BrowseResponse:
        query = build_browse_query(
            collections=list(request.collections),
            tag=request.tag,
            sort=request.sort,
            archived=request.archived,
            limit=request.limit,
            offset=request.offset,
            kind=request.kind,
            session_id=request.session_id,
            ids=list(request.ids),
        )
        shown, total, tags = await self._viewer.browse(protos.scope(self._scopes, request.scope), query)
        return pb.BrowseResponse(memories=[protos.memory(m) for m in shown], total=total, tags=tags)

    async def ListSessions(self, request: pb.ListSessionsRequest, context: RpcContext) -> pb.ListSessionsResponse:
        found = await self._viewer.sessions(protos.scope(self._scopes, request.scope), request.limit)
        return pb.ListSessionsResponse(sessions=[viewer_protos.session(s) for s in found])

    async def ListTurns(self, request: pb.ListTurnsRequest, context: RpcContext) -> pb.ListTurnsResponse:
        scope = protos.scope(self._scopes, request.scope)
        found = await self._viewer.turns(
            scope, session_id=request.session_id, memory_id=request.memory_id, limit=request.limit
        )
        writer = await self._viewer.written_by(scope, request.memory_id) if request.memory_id else ""
        return pb.ListTurnsResponse(turns=[viewer_protos.turn(t) for t in found], written_by=writer)

    async def Overview(self, request: pb.OverviewRequest, context: RpcContext) -> pb.OverviewResponse:
        scope = protos.scope(self._scopes, request.scope)
        found = await self._viewer.overview(scope)
        facts = await self._viewer.facts(scope)
        return pb.OverviewResponse(
            counts=project_counts(found.counts, facts, scope.project),
            score_histogram=found.score_histogram,
            events={kind: found.events.get(kind, 0) for kind in EVENT_KINDS},
            events_by_day_json=json.dumps(found.events_by_day, sort_keys=True),
            facts=[pb.FactOwner(id=f.id, project=f.project, archived=f.archived) for f in facts],
        )

    async def OutcomeLog(self, request: pb.OutcomeLogRequest, context: RpcContext) -> pb.OutcomeLogResponse:
        found = await self._viewer.outcome_log(
            protos.scope(self._scopes, request.scope), request.memory_id, request.limit
        )
        return pb.OutcomeLogResponse(entries=[viewer_protos.outcome_entry(o) for o in found])
