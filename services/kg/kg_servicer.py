"""gRPC servicer and entrypoint for the knowledge-graph service.

    python -m services.kg      (MNEMEX_KG_ADDR, MNEMEX_HOME, MNEMEX_TOKEN)

The servicer only translates between protos and ``KgStore``; input rules
live in kg_request_checks.py, graph logic in the plain modules beside it.
"""

from __future__ import annotations

import json
import logging
from typing import Protocol

import grpc

from kernel import __version__, home_schema
from kernel.grpc_call_policy import ErrorTable
from kernel.grpc_hosting import RpcContext, RunningService, start_service
from kernel.service_main import run_service
from kernel.sharding import NotThisShard, Shard
from kernel.store_health import sqlite_problem
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as pb
from protos.mnemex.kg.v1 import kg_service_pb2_grpc as pb_grpc
from services.kg import kg_request_checks as v
from services.kg.episode_records import ProblemMerge
from services.kg.extraction import extract
from services.kg.journal import Journal
from services.kg.kg_view import build_view
from services.kg.problem_merges import MergeRefused, ProblemSummary, UnknownProblem
from services.kg.problems import Solution
from services.kg.settings import KgSettings
from services.kg.store import ImportFormatError, KgStore, ScopeKey

log = logging.getLogger("mnemex.kg")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["KnowledgeGraphService"].full_name
ERRORS: ErrorTable = {
    v.InvalidKgRequest: grpc.StatusCode.INVALID_ARGUMENT,
    ImportFormatError: grpc.StatusCode.INVALID_ARGUMENT,
    NotThisShard: grpc.StatusCode.FAILED_PRECONDITION,
    UnknownProblem: grpc.StatusCode.NOT_FOUND,
    MergeRefused: grpc.StatusCode.FAILED_PRECONDITION,
}
RECALL_ENTITIES = 20  # entities (names, then concepts) looked up per prompt
MAX_STATEMENT_CHARS = 300  # of a known problem, in ListProblems and the merge replies


class _Scoped(Protocol):
    """A request that names its scope (every kg request does)."""

    @property
    def scope(self) -> common_pb.Scope: ...


def _scope(message: _Scoped) -> ScopeKey:
    v.check_scope(message.scope.user, message.scope.project)
    return ScopeKey(message.scope.user, message.scope.project)


def _entities(pairs: list[tuple[str, str]]) -> list[pb.Entity]:
    return [pb.Entity(name=name, type=type_) for name, type_ in pairs]


def _solution(found: Solution) -> pb.Solution:
    return pb.Solution(
        doc_id=found["doc_id"],
        success_rate=found["success_rate"],
        uses=found["uses"],
        signature=found["signature"],
        worked=found.get("worked", 0),
        failed=found.get("failed", 0),
    )


def _problem_proto(problem: ProblemSummary) -> pb.KnownProblem:
    return pb.KnownProblem(
        id=problem.id,
        statement=problem.statement[:MAX_STATEMENT_CHARS],
        fixes=problem.fixes,
        failures=problem.failures,
        episodes=problem.episodes,
        last_seen=problem.last,
    )


def _merge_proto(merge: ProblemMerge) -> pb.ProblemMerge:
    return pb.ProblemMerge(
        id=merge.id,
        keep=merge.keep,
        merged=merge.merged,
        merged_statement=merge.statement[:MAX_STATEMENT_CHARS],
        merged_at=merge.at,
        undone_at=merge.undone_at,
        fixes=len(merge.fixes),
        failures=len(merge.failures),
    )


def _listed(problems: list[ProblemSummary], merges: list[ProblemMerge], limit: int) -> pb.ListProblemsResponse:
    return pb.ListProblemsResponse(
        problems=[_problem_proto(p) for p in problems[:limit]],
        merges=[_merge_proto(m) for m in merges],
        total=len(problems),
    )


def _merged(merge: ProblemMerge, problems: list[ProblemSummary]) -> pb.MergeProblemsResponse:
    reply = pb.MergeProblemsResponse(merge=_merge_proto(merge))
    kept = next((p for p in problems if p.id == merge.keep), None)
    if kept is not None:
        reply.problem.CopyFrom(_problem_proto(kept))
    return reply


def _unmerged(merge: ProblemMerge, problems: list[ProblemSummary]) -> pb.UnmergeProblemsResponse:
    reply = pb.UnmergeProblemsResponse(merge=_merge_proto(merge))
    by_id = {p.id: p for p in problems}
    if merge.keep in by_id:
        reply.kept.CopyFrom(_problem_proto(by_id[merge.keep]))
    if merge.merged in by_id:
        reply.restored.CopyFrom(_problem_proto(by_id[merge.merged]))
    return reply


class KnowledgeGraphServicer(pb_grpc.KnowledgeGraphServiceServicer):
    def __init__(self, store: KgStore, shard: Shard | None = None) -> None:
        self._store = store
        self._shard = shard

    def _scope(self, message: _Scoped) -> ScopeKey:
        """The request's scope, checked, and owned by this shard when the service is sharded."""
        scope = _scope(message)
        if self._shard is not None:
            self._shard.check(scope.user)
        return scope

    async def ExtractConcepts(
        self, request: pb.ExtractConceptsRequest, context: RpcContext
    ) -> pb.ExtractConceptsResponse:
        v.check_text(request.text)
        result = extract(request.text)
        return pb.ExtractConceptsResponse(
            concepts=result.concepts,
            entities=_entities([(e.name, e.type) for e in result.entities]),
            context_type=result.context_type,
        )

    async def Route(self, request: pb.RouteRequest, context: RpcContext) -> pb.RouteResponse:
        scope = self._scope(request)
        v.check_names(list(request.concepts), "concepts")
        answer = self._store.route(scope, list(request.concepts))
        return pb.RouteResponse(
            weights=answer.weights,
            recommended=answer.recommended,
            confidence=answer.confidence,
            has_preference=answer.has_preference,
        )

    async def Recall(self, request: pb.RecallRequest, context: RpcContext) -> pb.RecallResponse:
        scope = self._scope(request)
        v.check_text(request.text)
        limit = v.limit_of(request.fact_limit, default=5)
        found = extract(request.text)
        concepts = list(dict.fromkeys(found.concepts))
        entities = list(dict.fromkeys([e.name for e in found.entities] + concepts))[:RECALL_ENTITIES]
        reply = pb.RecallResponse(
            extraction=pb.ExtractConceptsResponse(
                concepts=concepts,
                entities=_entities([(e.name, e.type) for e in found.entities]),
                context_type=found.context_type,
            )
        )
        if concepts:
            answer = self._store.route(scope, concepts)
            reply.route.CopyFrom(
                pb.RouteResponse(
                    weights=answer.weights,
                    recommended=answer.recommended,
                    confidence=answer.confidence,
                    has_preference=answer.has_preference,
                )
            )
        graphs = self._store.graphs(scope)
        if entities:
            facts = graphs.content.facts_for_entities(entities, limit)
            reply.facts.extend(pb.FactRef(fact_id=f, entity=e, weight=w) for f, e, w in facts)
        lessons = v.lessons_of(request.lesson_limit)
        if lessons and concepts:
            solutions, failures = graphs.problems.lessons(concepts, lessons, lessons)
            reply.solutions.extend(_solution(s) for s in solutions)
            reply.failures.extend(_solution(f) for f in failures)
        reply.no_episodes = not self._store.knows_episodes(scope)  # lets get-context skip EpisodeLessons
        return reply

    async def RecordOutcome(self, request: pb.RecordOutcomeRequest, context: RpcContext) -> pb.RecordOutcomeResponse:
        scope = self._scope(request)
        outcome = v.outcome_of(request.outcome)
        v.check_names(list(request.concepts), "concepts")
        v.check_collections(list(request.collections))
        v.check_names(list(request.doc_ids), "doc_ids", limit=v.MAX_DOC_IDS, max_chars=v.MAX_ID_CHARS)
        v.check_text(request.problem, "problem", required=False)
        v.check_text(request.failure_reason, "failure_reason", required=False)
        if request.context_type:
            v.check_label(request.context_type, "context_type")
        if not request.concepts and not request.problem.strip():
            raise v.InvalidKgRequest("nothing to learn from: send concepts, or the problem text to take them from")
        if not request.collections and not request.doc_ids:
            raise v.InvalidKgRequest("nothing to credit: send the collections and/or doc_ids the outcome applies to")
        self._store.record_outcome(
            scope,
            concepts=list(request.concepts),
            collections=list(request.collections),
            doc_ids=list(request.doc_ids),
            outcome=outcome,
            context_type=request.context_type,
            problem=request.problem,
            failure_reason=request.failure_reason[:500],
        )
        return pb.RecordOutcomeResponse()

    async def RecordAction(self, request: pb.RecordActionRequest, context: RpcContext) -> pb.RecordActionResponse:
        scope = self._scope(request)
        outcome = v.outcome_of(request.outcome)
        v.check_label(request.context_type, "context_type")
        v.check_action(request.action)
        v.check_collections([request.collection])
        v.check_names([request.doc_id], "doc_id", max_chars=v.MAX_ID_CHARS)
        rate, total = self._store.record_action(
            scope,
            context_type=request.context_type,
            action=request.action,
            collection=request.collection,
            outcome=outcome,
            doc_id=request.doc_id,
        )
        return pb.RecordActionResponse(success_rate=rate, total=total)

    async def IndexFact(self, request: pb.IndexFactRequest, context: RpcContext) -> pb.IndexFactResponse:
        scope = self._scope(request)
        if not request.fact_id:
            raise v.InvalidKgRequest("fact_id is empty: send the memory_bank id of the fact")
        v.check_names([request.fact_id], "fact_id", max_chars=v.MAX_ID_CHARS)
        v.check_text(request.text)
        return pb.IndexFactResponse(entities=_entities(self._store.index_fact(scope, request.fact_id, request.text)))

    async def FactsForEntities(
        self, request: pb.FactsForEntitiesRequest, context: RpcContext
    ) -> pb.FactsForEntitiesResponse:
        scope = self._scope(request)
        v.check_names(list(request.entities), "entities")
        limit = v.limit_of(request.limit)
        found = self._store.graphs(scope).content.facts_for_entities(list(request.entities), limit)
        return pb.FactsForEntitiesResponse(facts=[pb.FactRef(fact_id=f, entity=e, weight=w) for f, e, w in found])

    async def SolutionsFor(self, request: pb.SolutionsForRequest, context: RpcContext) -> pb.SolutionsForResponse:
        scope = self._scope(request)
        v.check_text(request.problem, "problem")
        limit = v.limit_of(request.limit, default=5)
        found = self._store.graphs(scope).problems.solutions(extract(request.problem).concepts, limit)
        return pb.SolutionsForResponse(solutions=[_solution(s) for s in found])

    async def Effectiveness(self, request: pb.EffectivenessRequest, context: RpcContext) -> pb.EffectivenessResponse:
        scope = self._scope(request)
        if request.context_type:
            v.check_label(request.context_type, "context_type")
        rows = self._store.graphs(scope).actions.top(v.limit_of(request.limit), request.context_type)
        return pb.EffectivenessResponse(actions=[pb.ActionStat(**row) for row in rows])

    async def Neighbors(self, request: pb.NeighborsRequest, context: RpcContext) -> pb.NeighborsResponse:
        scope = self._scope(request)
        if not request.entity.strip():
            raise v.InvalidKgRequest("entity is empty: name the entity (or fact id) whose neighbours you want")
        v.check_names([request.entity], "entity")
        found = self._store.graphs(scope).content.neighbors(request.entity, v.limit_of(request.limit, 50))
        return pb.NeighborsResponse(edges=[pb.Edge(source=s, target=t, relation=r, weight=w) for s, t, r, w in found])

    async def Traverse(self, request: pb.TraverseRequest, context: RpcContext) -> pb.TraverseResponse:
        scope = self._scope(request)
        if not request.seeds:
            raise v.InvalidKgRequest("seeds is empty: name at least one entity to start spreading from")
        v.check_names(list(request.seeds), "seeds", limit=32)
        found = self._store.graphs(scope).content.traverse(
            list(request.seeds),
            v.depth_of(request.max_depth),
            v.decay_of(request.decay),
            v.limit_of(request.limit, 20),
        )
        return pb.TraverseResponse(nodes=[pb.Activation(node=n, activation=a, kind=k) for n, a, k in found])

    async def RemoveDocs(self, request: pb.RemoveDocsRequest, context: RpcContext) -> pb.RemoveDocsResponse:
        scope = self._scope(request)
        if not request.doc_ids:
            raise v.InvalidKgRequest("doc_ids is empty: send the ids whose references should be dropped")
        v.check_names(list(request.doc_ids), "doc_ids", limit=10 * v.MAX_DOC_IDS, max_chars=v.MAX_ID_CHARS)
        return pb.RemoveDocsResponse(references_removed=self._store.remove_docs(scope, list(request.doc_ids)))

    async def Graph(self, request: pb.GraphRequest, context: RpcContext) -> pb.GraphResponse:
        scope = self._scope(request)
        v.check_names(list(request.entities), "entities")
        view = build_view(
            self._store.graphs(scope), list(request.entities), v.limit_of(request.limit, v.DEFAULT_GRAPH_LIMIT)
        )
        return pb.GraphResponse(
            nodes=[pb.Node(id=n.id, kind=n.kind, label=n.label, weight=n.weight) for n in view.nodes],
            edges=[pb.Edge(source=e.source, target=e.target, relation=e.relation, weight=e.weight) for e in view.edges],
            routing_json=view.routing_json,
        )

    async def Stats(self, request: pb.StatsRequest, context: RpcContext) -> pb.StatsResponse:
        return pb.StatsResponse(counts=self._store.counts(self._scope(request)))

    async def Export(self, request: pb.ExportRequest, context: RpcContext) -> pb.ExportResponse:
        data = self._store.export_json(self._scope(request))
        return pb.ExportResponse(graph_json=json.dumps(data, ensure_ascii=False))

    async def Import(self, request: pb.ImportRequest, context: RpcContext) -> pb.ImportResponse:
        scope = self._scope(request)
        kind = self._store.import_json(scope, v.parse_graph_json(request.graph_json))
        counts = self._store.graphs(scope).counts()
        nodes = counts["concepts"] + counts["collections"] + counts["entities"] + counts["facts"] + counts["problems"]
        edges = counts["routing_edges"] + counts["actions"] + counts["fact_links"] + counts["entity_edges"]
        edges += counts["solutions"] + counts["failure_patterns"]
        return pb.ImportResponse(nodes=nodes, edges=edges, format=kind)

    async def Info(self, request: pb.InfoRequest, context: RpcContext) -> pb.InfoResponse:
        return pb.InfoResponse(service="kg", version=__version__)

    async def RecordTurn(self, request: pb.RecordTurnRequest, context: RpcContext) -> pb.RecordTurnResponse:
        scope = self._scope(request)
        v.check_session(request.session_id)
        v.check_text(request.prompt, "prompt", required=False)
        v.check_text(request.answer, "answer", required=False)
        v.check_vector(request.prompt_vector, "prompt_vector")
        v.check_names([request.doc_id], "doc_id", max_chars=v.MAX_ID_CHARS)
        result = self._store.record_turn(
            scope,
            session_id=request.session_id,
            prompt=request.prompt,
            vector=request.prompt_vector,
            outcome=v.outcome_of(request.outcome),
            answer=request.answer,
            doc_id=request.doc_id,
        )
        return pb.RecordTurnResponse(problem=result["problem"], status=result["status"])

    async def RecordToolError(
        self, request: pb.RecordToolErrorRequest, context: RpcContext
    ) -> pb.RecordToolErrorResponse:
        scope = self._scope(request)
        v.check_session(request.session_id)
        v.check_text(request.command, "command", required=False)
        v.check_text(request.output, "output", required=False)
        v.check_vector(request.error_vector, "error_vector")
        if not request.command.strip() and not request.output.strip():
            raise v.InvalidKgRequest("command and output are both empty: send what failed and/or the error it printed")
        signature = self._store.record_tool_error(
            scope,
            session_id=request.session_id,
            command=request.command,
            output=request.output,
            vector=request.error_vector,
        )
        return pb.RecordToolErrorResponse(signature=signature)

    async def EpisodeLessons(self, request: pb.EpisodeLessonsRequest, context: RpcContext) -> pb.EpisodeLessonsResponse:
        scope = self._scope(request)
        if request.session_id:
            v.check_session(request.session_id)
        v.check_vector(request.query_vector, "query_vector")
        v.check_text(request.prompt, "prompt", required=False)
        found = self._store.episode_lessons(
            scope,
            session_id=request.session_id,
            vector=request.query_vector,
            prompt=request.prompt,
            limit=min(v.limit_of(request.limit, default=6), v.MAX_LESSONS),
        )
        return pb.EpisodeLessonsResponse(
            lessons=[
                pb.EpisodeLesson(
                    kind=x.kind,
                    text=x.text,
                    project=x.project,
                    problem_id=x.problem_id,
                    worked=x.worked,
                    failed=x.failed,
                    doc_id=x.doc_id,
                    similarity=round(x.similarity, 4),
                    why=x.why,
                )
                for x in found
            ]
        )

    async def ListProblems(self, request: pb.ListProblemsRequest, context: RpcContext) -> pb.ListProblemsResponse:
        scope = self._scope(request)
        limit = v.limit_of(request.limit, default=50)
        return _listed(*self._store.known_problems(scope), limit)

    async def MergeProblems(self, request: pb.MergeProblemsRequest, context: RpcContext) -> pb.MergeProblemsResponse:
        scope = self._scope(request)
        v.check_problem_id(request.keep, "keep")
        v.check_problem_id(request.merge, "merge")
        record = self._store.merge_problems(scope, keep=request.keep, merge=request.merge)
        return _merged(record, self._store.known_problems(scope)[0])

    async def UnmergeProblems(
        self, request: pb.UnmergeProblemsRequest, context: RpcContext
    ) -> pb.UnmergeProblemsResponse:
        scope = self._scope(request)
        v.check_merge_id(request.merge_id)
        record = self._store.unmerge_problems(scope, merge_id=request.merge_id)
        return _unmerged(record, self._store.known_problems(scope)[0])


async def create_server(settings: KgSettings, *, store: KgStore | None = None) -> RunningService[KgStore]:
    """Start the kg service; ``store`` defaults to the SQLite journal under ``settings.home``, once
    that home's kg schema is today's (``kernel.home_schema``: migrated, or refused)."""
    if store is None:
        for step in home_schema.ensure_current(settings.home, "kg"):
            log.warning("migrated the kg store in %s to schema %d: %s", settings.home, step.version + 1, step.summary)
    store = store or KgStore(
        Journal(settings.db_path, synchronous=settings.synchronous),
        snapshot_every=settings.snapshot_every,
        rules=settings.rules,
    )
    servicer = KnowledgeGraphServicer(store, settings.shard)
    return await start_service(
        settings,
        store,
        register=lambda server: pb_grpc.add_KnowledgeGraphServiceServicer_to_server(servicer, server),
        service_names=[SERVICE_NAME],
        errors=ERRORS,
        what="the kg service",
        health_check=lambda: sqlite_problem(store.journal.path, "kg store (kg.sqlite3)"),
    )


def log_started(settings: KgSettings, running: RunningService[KgStore]) -> None:
    log.info("kg service on port %d, data in %s", running.port, settings.db_path)


def main() -> None:
    run_service(
        KgSettings.from_env,
        create_server,
        log_started,
        env_name="MNEMEX_KG_ADDR",
        what="kg service",
        one_blas_thread=True,  # the known-problem match: one small matrix-vector product per prompt
    )


if __name__ == "__main__":
    main()
