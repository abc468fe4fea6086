from protos.mnemex.common.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Entity(_message.Message):
    __slots__ = ("name", "type")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ...) -> None: ...

class ExtractConceptsRequest(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ExtractConceptsResponse(_message.Message):
    __slots__ = ("concepts", "entities", "context_type")
    CONCEPTS_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TYPE_FIELD_NUMBER: _ClassVar[int]
    concepts: _containers.RepeatedScalarFieldContainer[str]
    entities: _containers.RepeatedCompositeFieldContainer[Entity]
    context_type: str
    def __init__(self, concepts: _Optional[_Iterable[str]] = ..., entities: _Optional[_Iterable[_Union[Entity, _Mapping]]] = ..., context_type: _Optional[str] = ...) -> None: ...

class RouteRequest(_message.Message):
    __slots__ = ("scope", "concepts")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CONCEPTS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    concepts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., concepts: _Optional[_Iterable[str]] = ...) -> None: ...

class RouteResponse(_message.Message):
    __slots__ = ("weights", "recommended", "confidence", "has_preference")
    class WeightsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    WEIGHTS_FIELD_NUMBER: _ClassVar[int]
    RECOMMENDED_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    HAS_PREFERENCE_FIELD_NUMBER: _ClassVar[int]
    weights: _containers.ScalarMap[str, float]
    recommended: _containers.RepeatedScalarFieldContainer[str]
    confidence: float
    has_preference: bool
    def __init__(self, weights: _Optional[_Mapping[str, float]] = ..., recommended: _Optional[_Iterable[str]] = ..., confidence: _Optional[float] = ..., has_preference: _Optional[bool] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ("scope", "text", "fact_limit", "lesson_limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FACT_LIMIT_FIELD_NUMBER: _ClassVar[int]
    LESSON_LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    text: str
    fact_limit: int
    lesson_limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., text: _Optional[str] = ..., fact_limit: _Optional[int] = ..., lesson_limit: _Optional[int] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ("extraction", "route", "facts", "solutions", "failures", "no_episodes")
    EXTRACTION_FIELD_NUMBER: _ClassVar[int]
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    SOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    NO_EPISODES_FIELD_NUMBER: _ClassVar[int]
    extraction: ExtractConceptsResponse
    route: RouteResponse
    facts: _containers.RepeatedCompositeFieldContainer[FactRef]
    solutions: _containers.RepeatedCompositeFieldContainer[Solution]
    failures: _containers.RepeatedCompositeFieldContainer[Solution]
    no_episodes: bool
    def __init__(self, extraction: _Optional[_Union[ExtractConceptsResponse, _Mapping]] = ..., route: _Optional[_Union[RouteResponse, _Mapping]] = ..., facts: _Optional[_Iterable[_Union[FactRef, _Mapping]]] = ..., solutions: _Optional[_Iterable[_Union[Solution, _Mapping]]] = ..., failures: _Optional[_Iterable[_Union[Solution, _Mapping]]] = ..., no_episodes: _Optional[bool] = ...) -> None: ...

class RecordOutcomeRequest(_message.Message):
    __slots__ = ("scope", "concepts", "collections", "doc_ids", "outcome", "context_type", "problem", "failure_reason")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CONCEPTS_FIELD_NUMBER: _ClassVar[int]
    COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    DOC_IDS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    FAILURE_REASON_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    concepts: _containers.RepeatedScalarFieldContainer[str]
    collections: _containers.RepeatedScalarFieldContainer[str]
    doc_ids: _containers.RepeatedScalarFieldContainer[str]
    outcome: _common_pb2.Outcome
    context_type: str
    problem: str
    failure_reason: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., concepts: _Optional[_Iterable[str]] = ..., collections: _Optional[_Iterable[str]] = ..., doc_ids: _Optional[_Iterable[str]] = ..., outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., context_type: _Optional[str] = ..., problem: _Optional[str] = ..., failure_reason: _Optional[str] = ...) -> None: ...

class RecordOutcomeResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RecordActionRequest(_message.Message):
    __slots__ = ("scope", "context_type", "action", "collection", "outcome", "doc_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    context_type: str
    action: str
    collection: str
    outcome: _common_pb2.Outcome
    doc_id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., context_type: _Optional[str] = ..., action: _Optional[str] = ..., collection: _Optional[str] = ..., outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., doc_id: _Optional[str] = ...) -> None: ...

class RecordActionResponse(_message.Message):
    __slots__ = ("success_rate", "total")
    SUCCESS_RATE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    success_rate: float
    total: int
    def __init__(self, success_rate: _Optional[float] = ..., total: _Optional[int] = ...) -> None: ...

class IndexFactRequest(_message.Message):
    __slots__ = ("scope", "fact_id", "text")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    FACT_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    fact_id: str
    text: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., fact_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class IndexFactResponse(_message.Message):
    __slots__ = ("entities",)
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    entities: _containers.RepeatedCompositeFieldContainer[Entity]
    def __init__(self, entities: _Optional[_Iterable[_Union[Entity, _Mapping]]] = ...) -> None: ...

class FactsForEntitiesRequest(_message.Message):
    __slots__ = ("scope", "entities", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    entities: _containers.RepeatedScalarFieldContainer[str]
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., entities: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ...) -> None: ...

class FactRef(_message.Message):
    __slots__ = ("fact_id", "entity", "weight")
    FACT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    fact_id: str
    entity: str
    weight: float
    def __init__(self, fact_id: _Optional[str] = ..., entity: _Optional[str] = ..., weight: _Optional[float] = ...) -> None: ...

class FactsForEntitiesResponse(_message.Message):
    __slots__ = ("facts",)
    FACTS_FIELD_NUMBER: _ClassVar[int]
    facts: _containers.RepeatedCompositeFieldContainer[FactRef]
    def __init__(self, facts: _Optional[_Iterable[_Union[FactRef, _Mapping]]] = ...) -> None: ...

class SolutionsForRequest(_message.Message):
    __slots__ = ("scope", "problem", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    problem: str
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., problem: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class Solution(_message.Message):
    __slots__ = ("doc_id", "success_rate", "uses", "signature", "worked", "failed")
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_RATE_FIELD_NUMBER: _ClassVar[int]
    USES_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    WORKED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    doc_id: str
    success_rate: float
    uses: int
    signature: str
    worked: int
    failed: int
    def __init__(self, doc_id: _Optional[str] = ..., success_rate: _Optional[float] = ..., uses: _Optional[int] = ..., signature: _Optional[str] = ..., worked: _Optional[int] = ..., failed: _Optional[int] = ...) -> None: ...

class SolutionsForResponse(_message.Message):
    __slots__ = ("solutions",)
    SOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    solutions: _containers.RepeatedCompositeFieldContainer[Solution]
    def __init__(self, solutions: _Optional[_Iterable[_Union[Solution, _Mapping]]] = ...) -> None: ...

class EffectivenessRequest(_message.Message):
    __slots__ = ("scope", "context_type", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TYPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    context_type: str
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., context_type: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ActionStat(_message.Message):
    __slots__ = ("context_type", "action", "collection", "worked", "partial", "failed", "unknown", "success_rate", "last")
    CONTEXT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    WORKED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_RATE_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    context_type: str
    action: str
    collection: str
    worked: int
    partial: int
    failed: int
    unknown: int
    success_rate: float
    last: float
    def __init__(self, context_type: _Optional[str] = ..., action: _Optional[str] = ..., collection: _Optional[str] = ..., worked: _Optional[int] = ..., partial: _Optional[int] = ..., failed: _Optional[int] = ..., unknown: _Optional[int] = ..., success_rate: _Optional[float] = ..., last: _Optional[float] = ...) -> None: ...

class EffectivenessResponse(_message.Message):
    __slots__ = ("actions",)
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[ActionStat]
    def __init__(self, actions: _Optional[_Iterable[_Union[ActionStat, _Mapping]]] = ...) -> None: ...

class NeighborsRequest(_message.Message):
    __slots__ = ("scope", "entity", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    entity: str
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., entity: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class Edge(_message.Message):
    __slots__ = ("source", "target", "relation", "weight")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    relation: str
    weight: float
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ..., relation: _Optional[str] = ..., weight: _Optional[float] = ...) -> None: ...

class NeighborsResponse(_message.Message):
    __slots__ = ("edges",)
    EDGES_FIELD_NUMBER: _ClassVar[int]
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    def __init__(self, edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ...) -> None: ...

class TraverseRequest(_message.Message):
    __slots__ = ("scope", "seeds", "max_depth", "decay", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    DECAY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    seeds: _containers.RepeatedScalarFieldContainer[str]
    max_depth: int
    decay: float
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., seeds: _Optional[_Iterable[str]] = ..., max_depth: _Optional[int] = ..., decay: _Optional[float] = ..., limit: _Optional[int] = ...) -> None: ...

class Activation(_message.Message):
    __slots__ = ("node", "activation", "kind")
    NODE_FIELD_NUMBER: _ClassVar[int]
    ACTIVATION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    node: str
    activation: float
    kind: str
    def __init__(self, node: _Optional[str] = ..., activation: _Optional[float] = ..., kind: _Optional[str] = ...) -> None: ...

class TraverseResponse(_message.Message):
    __slots__ = ("nodes",)
    NODES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[Activation]
    def __init__(self, nodes: _Optional[_Iterable[_Union[Activation, _Mapping]]] = ...) -> None: ...

class RemoveDocsRequest(_message.Message):
    __slots__ = ("scope", "doc_ids")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    DOC_IDS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    doc_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., doc_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class RemoveDocsResponse(_message.Message):
    __slots__ = ("references_removed",)
    REFERENCES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    references_removed: int
    def __init__(self, references_removed: _Optional[int] = ...) -> None: ...

class GraphRequest(_message.Message):
    __slots__ = ("scope", "entities", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    entities: _containers.RepeatedScalarFieldContainer[str]
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., entities: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ...) -> None: ...

class Node(_message.Message):
    __slots__ = ("id", "kind", "label", "weight")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    label: str
    weight: float
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., label: _Optional[str] = ..., weight: _Optional[float] = ...) -> None: ...

class GraphResponse(_message.Message):
    __slots__ = ("nodes", "edges", "routing_json")
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ROUTING_JSON_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[Node]
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    routing_json: str
    def __init__(self, nodes: _Optional[_Iterable[_Union[Node, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., routing_json: _Optional[str] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("counts",)
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.ScalarMap[str, int]
    def __init__(self, counts: _Optional[_Mapping[str, int]] = ...) -> None: ...

class ExportRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class ExportResponse(_message.Message):
    __slots__ = ("graph_json",)
    GRAPH_JSON_FIELD_NUMBER: _ClassVar[int]
    graph_json: str
    def __init__(self, graph_json: _Optional[str] = ...) -> None: ...

class ImportRequest(_message.Message):
    __slots__ = ("scope", "graph_json")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    GRAPH_JSON_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    graph_json: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., graph_json: _Optional[str] = ...) -> None: ...

class ImportResponse(_message.Message):
    __slots__ = ("nodes", "edges", "format")
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    nodes: int
    edges: int
    format: str
    def __init__(self, nodes: _Optional[int] = ..., edges: _Optional[int] = ..., format: _Optional[str] = ...) -> None: ...

class InfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InfoResponse(_message.Message):
    __slots__ = ("service", "version")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    service: str
    version: str
    def __init__(self, service: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class RecordTurnRequest(_message.Message):
    __slots__ = ("scope", "session_id", "prompt", "prompt_vector", "outcome", "answer", "doc_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_VECTOR_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    prompt: str
    prompt_vector: bytes
    outcome: _common_pb2.Outcome
    answer: str
    doc_id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., prompt: _Optional[str] = ..., prompt_vector: _Optional[bytes] = ..., outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., answer: _Optional[str] = ..., doc_id: _Optional[str] = ...) -> None: ...

class RecordTurnResponse(_message.Message):
    __slots__ = ("problem", "status")
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    problem: str
    status: str
    def __init__(self, problem: _Optional[str] = ..., status: _Optional[str] = ...) -> None: ...

class RecordToolErrorRequest(_message.Message):
    __slots__ = ("scope", "session_id", "command", "output", "error_vector")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ERROR_VECTOR_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    command: str
    output: str
    error_vector: bytes
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., command: _Optional[str] = ..., output: _Optional[str] = ..., error_vector: _Optional[bytes] = ...) -> None: ...

class RecordToolErrorResponse(_message.Message):
    __slots__ = ("signature",)
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    signature: str
    def __init__(self, signature: _Optional[str] = ...) -> None: ...

class EpisodeLessonsRequest(_message.Message):
    __slots__ = ("scope", "session_id", "query_vector", "limit", "prompt")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_VECTOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    query_vector: bytes
    limit: int
    prompt: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., query_vector: _Optional[bytes] = ..., limit: _Optional[int] = ..., prompt: _Optional[str] = ...) -> None: ...

class EpisodeLesson(_message.Message):
    __slots__ = ("kind", "text", "project", "problem_id", "worked", "failed", "doc_id", "similarity", "why")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_ID_FIELD_NUMBER: _ClassVar[int]
    WORKED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    kind: str
    text: str
    project: str
    problem_id: str
    worked: int
    failed: int
    doc_id: str
    similarity: float
    why: str
    def __init__(self, kind: _Optional[str] = ..., text: _Optional[str] = ..., project: _Optional[str] = ..., problem_id: _Optional[str] = ..., worked: _Optional[int] = ..., failed: _Optional[int] = ..., doc_id: _Optional[str] = ..., similarity: _Optional[float] = ..., why: _Optional[str] = ...) -> None: ...

class EpisodeLessonsResponse(_message.Message):
    __slots__ = ("lessons",)
    LESSONS_FIELD_NUMBER: _ClassVar[int]
    lessons: _containers.RepeatedCompositeFieldContainer[EpisodeLesson]
    def __init__(self, lessons: _Optional[_Iterable[_Union[EpisodeLesson, _Mapping]]] = ...) -> None: ...

class ListProblemsRequest(_message.Message):
    __slots__ = ("scope", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., limit: _Optional[int] = ...) -> None: ...

class KnownProblem(_message.Message):
    __slots__ = ("id", "statement", "fixes", "failures", "episodes", "last_seen")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    FIXES_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    id: str
    statement: str
    fixes: int
    failures: int
    episodes: int
    last_seen: float
    def __init__(self, id: _Optional[str] = ..., statement: _Optional[str] = ..., fixes: _Optional[int] = ..., failures: _Optional[int] = ..., episodes: _Optional[int] = ..., last_seen: _Optional[float] = ...) -> None: ...

class ProblemMerge(_message.Message):
    __slots__ = ("id", "keep", "merged", "merged_statement", "merged_at", "undone_at", "fixes", "failures")
    ID_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    MERGED_FIELD_NUMBER: _ClassVar[int]
    MERGED_STATEMENT_FIELD_NUMBER: _ClassVar[int]
    MERGED_AT_FIELD_NUMBER: _ClassVar[int]
    UNDONE_AT_FIELD_NUMBER: _ClassVar[int]
    FIXES_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    id: str
    keep: str
    merged: str
    merged_statement: str
    merged_at: float
    undone_at: float
    fixes: int
    failures: int
    def __init__(self, id: _Optional[str] = ..., keep: _Optional[str] = ..., merged: _Optional[str] = ..., merged_statement: _Optional[str] = ..., merged_at: _Optional[float] = ..., undone_at: _Optional[float] = ..., fixes: _Optional[int] = ..., failures: _Optional[int] = ...) -> None: ...

class ListProblemsResponse(_message.Message):
    __slots__ = ("problems", "merges", "total")
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    MERGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    problems: _containers.RepeatedCompositeFieldContainer[KnownProblem]
    merges: _containers.RepeatedCompositeFieldContainer[ProblemMerge]
    total: int
    def __init__(self, problems: _Optional[_Iterable[_Union[KnownProblem, _Mapping]]] = ..., merges: _Optional[_Iterable[_Union[ProblemMerge, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class MergeProblemsRequest(_message.Message):
    __slots__ = ("scope", "keep", "merge")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    MERGE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    keep: str
    merge: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., keep: _Optional[str] = ..., merge: _Optional[str] = ...) -> None: ...

class MergeProblemsResponse(_message.Message):
    __slots__ = ("merge", "problem")
    MERGE_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    merge: ProblemMerge
    problem: KnownProblem
    def __init__(self, merge: _Optional[_Union[ProblemMerge, _Mapping]] = ..., problem: _Optional[_Union[KnownProblem, _Mapping]] = ...) -> None: ...

class UnmergeProblemsRequest(_message.Message):
    __slots__ = ("scope", "merge_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    MERGE_ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    merge_id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., merge_id: _Optional[str] = ...) -> None: ...

class UnmergeProblemsResponse(_message.Message):
    __slots__ = ("merge", "kept", "restored")
    MERGE_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    RESTORED_FIELD_NUMBER: _ClassVar[int]
    merge: ProblemMerge
    kept: KnownProblem
    restored: KnownProblem
    def __init__(self, merge: _Optional[_Union[ProblemMerge, _Mapping]] = ..., kept: _Optional[_Union[KnownProblem, _Mapping]] = ..., restored: _Optional[_Union[KnownProblem, _Mapping]] = ...) -> None: ...
