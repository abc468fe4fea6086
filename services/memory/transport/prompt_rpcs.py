"""The prompt path's RPCs: PrepareContext, Search, and the session turns around them.

PrepareContext (the get-context hot path), Search, the turn records a client
writes (RecordInjection, RecordExchange), the scoring state it reads
(GetScoringState) and the outcome it reports (Score). Translation only: each
RPC checks its scope, calls one use case and converts the reply.
"""

from __future__ import annotations

from kernel.grpc_hosting import RpcContext
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain.client_names import check_client
from services.memory.retrieval.searcher import Searcher
from services.memory.transport import memory_protos as protos
from services.memory.transport import viewer_protos
from services.memory.usecases.outcome_scoring import OutcomeScoring
from services.memory.usecases.prepare_context import PrepareContext
from services.memory.usecases.request_scopes import RequestScopes
from services.memory.usecases.turn_recording import SessionTurns
from services.memory.usecases.viewer_reads import ViewerReads


class PromptRpcs:
    def __init__(
        self,
        scopes: RequestScopes,
        prepare: PrepareContext,
        searcher: Searcher,
        turns: SessionTurns,
        scoring: OutcomeScoring,
        viewer: ViewerReads,
    ) -> None:
        self._scopes = scopes
        self._prepare = prepare
        self._searcher = searcher
        self._turns = turns
        self._scoring = scoring
        self._viewer = viewer  # keeps which client sent a turn

    async def PrepareContext(self, request: pb.PrepareContextRequest, context: RpcContext) -> pb.PrepareContextResponse:
        params = protos.search_params(request.search) if request.HasField("search") else None
        scope = protos.scope(self._scopes, request.scope)
        prepared = await self._prepare.select(
            scope,
            request.session_id,
            params,
            request.search.query_vector,
            request.prompt,
            lesson_ids=list(request.lesson_ids),
            client=check_client(request.client),
            preview=request.preview,
        )
        required, ids, exchange_id = prepared.state
        return pb.PrepareContextResponse(
            memories=[protos.memory(m) for m in prepared.memories],
            scoring_required=required,
            injected_ids=ids,
            exchange_id=exchange_id,
            lessons=[protos.memory(m) for m in prepared.lessons],
            choices=[
                pb.ContextChoice(
                    id=c.id,
                    kept=c.kept,
                    reason=c.reason,
                    merged_ids=c.merged_ids,
                    relevance=c.relevance,
                    parts=viewer_protos.rank_parts(c.parts),
                )
                for c in prepared.choices
            ],
        )

    async def Search(self, request: pb.SearchRequest, context: RpcContext) -> pb.SearchResponse:
        scope = protos.scope(self._scopes, request.scope)  # the shard check comes before any other
        params = protos.search_params(request)
        if not request.distinct_relevant:
            found = await self._searcher.search(scope, params, request.query_vector)
            return pb.SearchResponse(memories=[protos.memory(m) for m in found])
        listing = await self._searcher.listing(scope, params, request.query_vector)
        return pb.SearchResponse(
            memories=[protos.memory(item.memory) for item in listing.shown],
            duplicate_ids={
                item.memory.id: pb.IdList(ids=item.duplicate_ids) for item in listing.shown if item.duplicate_ids
            },
            relevance_judged=listing.judged,
        )

    async def Score(self, request: pb.ScoreRequest, context: RpcContext) -> pb.ScoreResponse:
        summary = await self._scoring.score(
            protos.scope(self._scopes, request.scope),
            session_id=request.session_id,
            outcome=protos.outcome(request.outcome),
            memory_scores=protos.memory_scores(request.memory_scores),
            related=list(request.related.ids) if request.HasField("related") else None,
        )
        return pb.ScoreResponse(
            scored=[protos.scored(s) for s in summary.scored],
            exchange_id=summary.exchange_id,
            not_found=summary.not_found,
            collections=summary.collections,
            prompt=summary.prompt,
            session_id=summary.session_id,
        )

    async def RecordExchange(self, request: pb.RecordExchangeRequest, context: RpcContext) -> pb.RecordExchangeResponse:
        scope = protos.scope(self._scopes, request.scope)
        check_client(request.client)  # refused before anything is written
        exchange_id = await self._turns.record_exchange_once(
            scope, request.session_id, request.turn_key, request.user_text, request.assistant_text
        )
        await self._viewer.record_client(scope, request.session_id, request.client)
        if exchange_id is None:
            return pb.RecordExchangeResponse(already_recorded=True)
        return pb.RecordExchangeResponse(exchange_id=exchange_id)

    async def GetScoringState(
        self, request: pb.GetScoringStateRequest, context: RpcContext
    ) -> pb.GetScoringStateResponse:
        required, ids, exchange_id = await self._turns.scoring_state(
            protos.scope(self._scopes, request.scope), request.session_id
        )
        return pb.GetScoringStateResponse(scoring_required=required, injected_ids=ids, exchange_id=exchange_id)

    async def RecordInjection(
        self, request: pb.RecordInjectionRequest, context: RpcContext
    ) -> pb.RecordInjectionResponse:
        scope = protos.scope(self._scopes, request.scope)
        check_client(request.client)  # refused before anything is written
        await self._turns.record_injection(scope, request.session_id, list(request.ids), request.prompt)
        await self._viewer.record_client(scope, request.session_id, request.client)
        return pb.RecordInjectionResponse()
