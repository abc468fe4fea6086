from protos.mnemex.common.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SortBy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SORT_BY_UNSPECIFIED: _ClassVar[SortBy]
    SORT_BY_RELEVANCE: _ClassVar[SortBy]
    SORT_BY_RECENCY: _ClassVar[SortBy]
    SORT_BY_SCORE: _ClassVar[SortBy]
SORT_BY_UNSPECIFIED: SortBy
SORT_BY_RELEVANCE: SortBy
SORT_BY_RECENCY: SortBy
SORT_BY_SCORE: SortBy

class Memory(_message.Message):
    __slots__ = ("id", "collection", "content", "created_at", "age", "score", "wilson_score", "uses", "success_count", "learned_score", "last_outcome", "outcome_history", "tags", "importance", "confidence", "embedding_similarity", "final_rank_score", "metadata_json", "project", "archived", "worked_count", "partial_count", "failed_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    AGE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    WILSON_SCORE_FIELD_NUMBER: _ClassVar[int]
    USES_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    LEARNED_SCORE_FIELD_NUMBER: _ClassVar[int]
    LAST_OUTCOME_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_HISTORY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    FINAL_RANK_SCORE_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    WORKED_COUNT_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    FAILED_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    collection: str
    content: str
    created_at: str
    age: str
    score: float
    wilson_score: float
    uses: int
    success_count: float
    learned_score: float
    last_outcome: str
    outcome_history: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    importance: float
    confidence: float
    embedding_similarity: float
    final_rank_score: float
    metadata_json: str
    project: str
    archived: bool
    worked_count: int
    partial_count: int
    failed_count: int
    def __init__(self, id: _Optional[str] = ..., collection: _Optional[str] = ..., content: _Optional[str] = ..., created_at: _Optional[str] = ..., age: _Optional[str] = ..., score: _Optional[float] = ..., wilson_score: _Optional[float] = ..., uses: _Optional[int] = ..., success_count: _Optional[float] = ..., learned_score: _Optional[float] = ..., last_outcome: _Optional[str] = ..., outcome_history: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., importance: _Optional[float] = ..., confidence: _Optional[float] = ..., embedding_similarity: _Optional[float] = ..., final_rank_score: _Optional[float] = ..., metadata_json: _Optional[str] = ..., project: _Optional[str] = ..., archived: _Optional[bool] = ..., worked_count: _Optional[int] = ..., partial_count: _Optional[int] = ..., failed_count: _Optional[int] = ...) -> None: ...

class StoreRequest(_message.Message):
    __slots__ = ("scope", "collection", "content", "vector", "tags", "importance", "confidence", "metadata_json", "initial_outcome", "allow_duplicate", "session_id", "user_wide")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    VECTOR_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    INITIAL_OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ALLOW_DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_WIDE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    collection: str
    content: str
    vector: bytes
    tags: _containers.RepeatedScalarFieldContainer[str]
    importance: float
    confidence: float
    metadata_json: str
    initial_outcome: _common_pb2.Outcome
    allow_duplicate: bool
    session_id: str
    user_wide: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., collection: _Optional[str] = ..., content: _Optional[str] = ..., vector: _Optional[bytes] = ..., tags: _Optional[_Iterable[str]] = ..., importance: _Optional[float] = ..., confidence: _Optional[float] = ..., metadata_json: _Optional[str] = ..., initial_outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., allow_duplicate: _Optional[bool] = ..., session_id: _Optional[str] = ..., user_wide: _Optional[bool] = ...) -> None: ...

class StoreResponse(_message.Message):
    __slots__ = ("memory", "deduplicated", "superseded_ids")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    DEDUPLICATED_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_IDS_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    deduplicated: bool
    superseded_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., deduplicated: _Optional[bool] = ..., superseded_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("scope", "query", "query_vector", "collections", "limit", "days_back", "id", "sort_by", "metadata_filters_json", "collection_weights", "boost_ids", "distinct_relevant")
    class CollectionWeightsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    QUERY_VECTOR_FIELD_NUMBER: _ClassVar[int]
    COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    DAYS_BACK_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    SORT_BY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FILTERS_JSON_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_WEIGHTS_FIELD_NUMBER: _ClassVar[int]
    BOOST_IDS_FIELD_NUMBER: _ClassVar[int]
    DISTINCT_RELEVANT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    query: str
    query_vector: bytes
    collections: _containers.RepeatedScalarFieldContainer[str]
    limit: int
    days_back: int
    id: str
    sort_by: SortBy
    metadata_filters_json: str
    collection_weights: _containers.ScalarMap[str, float]
    boost_ids: _containers.RepeatedScalarFieldContainer[str]
    distinct_relevant: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., query: _Optional[str] = ..., query_vector: _Optional[bytes] = ..., collections: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ..., days_back: _Optional[int] = ..., id: _Optional[str] = ..., sort_by: _Optional[_Union[SortBy, str]] = ..., metadata_filters_json: _Optional[str] = ..., collection_weights: _Optional[_Mapping[str, float]] = ..., boost_ids: _Optional[_Iterable[str]] = ..., distinct_relevant: _Optional[bool] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("memories", "duplicate_ids", "relevance_judged")
    class DuplicateIdsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: IdList
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[IdList, _Mapping]] = ...) -> None: ...
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_IDS_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_JUDGED_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    duplicate_ids: _containers.MessageMap[str, IdList]
    relevance_judged: bool
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., duplicate_ids: _Optional[_Mapping[str, IdList]] = ..., relevance_judged: _Optional[bool] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class ListRequest(_message.Message):
    __slots__ = ("scope", "collection", "limit", "offset", "include_archived", "sort_by")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    SORT_BY_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    collection: str
    limit: int
    offset: int
    include_archived: bool
    sort_by: SortBy
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., collection: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., include_archived: _Optional[bool] = ..., sort_by: _Optional[_Union[SortBy, str]] = ...) -> None: ...

class ListResponse(_message.Message):
    __slots__ = ("memories", "total")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    total: int
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class UpdateRequest(_message.Message):
    __slots__ = ("scope", "id", "content", "tags", "replace_tags", "importance", "confidence")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    REPLACE_TAGS_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    content: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    replace_tags: bool
    importance: float
    confidence: float
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., content: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., replace_tags: _Optional[bool] = ..., importance: _Optional[float] = ..., confidence: _Optional[float] = ...) -> None: ...

class UpdateResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class ArchiveRequest(_message.Message):
    __slots__ = ("scope", "id", "reason")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    reason: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ArchiveResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class IdList(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ScoreRequest(_message.Message):
    __slots__ = ("scope", "session_id", "outcome", "memory_scores", "related")
    class MemoryScoresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.Outcome
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.Outcome, str]] = ...) -> None: ...
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    MEMORY_SCORES_FIELD_NUMBER: _ClassVar[int]
    RELATED_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    outcome: _common_pb2.Outcome
    memory_scores: _containers.ScalarMap[str, _common_pb2.Outcome]
    related: IdList
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., memory_scores: _Optional[_Mapping[str, _common_pb2.Outcome]] = ..., related: _Optional[_Union[IdList, _Mapping]] = ...) -> None: ...

class ScoredMemory(_message.Message):
    __slots__ = ("id", "collection_before", "collection_after", "score_before", "score_after", "outcome", "transition", "new_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_BEFORE_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_AFTER_FIELD_NUMBER: _ClassVar[int]
    SCORE_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SCORE_AFTER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TRANSITION_FIELD_NUMBER: _ClassVar[int]
    NEW_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    collection_before: str
    collection_after: str
    score_before: float
    score_after: float
    outcome: _common_pb2.Outcome
    transition: str
    new_id: str
    def __init__(self, id: _Optional[str] = ..., collection_before: _Optional[str] = ..., collection_after: _Optional[str] = ..., score_before: _Optional[float] = ..., score_after: _Optional[float] = ..., outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., transition: _Optional[str] = ..., new_id: _Optional[str] = ...) -> None: ...

class ScoreResponse(_message.Message):
    __slots__ = ("scored", "exchange_id", "not_found", "collections", "prompt", "session_id")
    SCORED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_ID_FIELD_NUMBER: _ClassVar[int]
    NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    scored: _containers.RepeatedCompositeFieldContainer[ScoredMemory]
    exchange_id: str
    not_found: _containers.RepeatedScalarFieldContainer[str]
    collections: _containers.RepeatedScalarFieldContainer[str]
    prompt: str
    session_id: str
    def __init__(self, scored: _Optional[_Iterable[_Union[ScoredMemory, _Mapping]]] = ..., exchange_id: _Optional[str] = ..., not_found: _Optional[_Iterable[str]] = ..., collections: _Optional[_Iterable[str]] = ..., prompt: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class RecordExchangeRequest(_message.Message):
    __slots__ = ("scope", "session_id", "user_text", "assistant_text", "turn_key", "client")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_TEXT_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_TEXT_FIELD_NUMBER: _ClassVar[int]
    TURN_KEY_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    user_text: str
    assistant_text: str
    turn_key: str
    client: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., user_text: _Optional[str] = ..., assistant_text: _Optional[str] = ..., turn_key: _Optional[str] = ..., client: _Optional[str] = ...) -> None: ...

class RecordExchangeResponse(_message.Message):
    __slots__ = ("exchange_id", "already_recorded")
    EXCHANGE_ID_FIELD_NUMBER: _ClassVar[int]
    ALREADY_RECORDED_FIELD_NUMBER: _ClassVar[int]
    exchange_id: str
    already_recorded: bool
    def __init__(self, exchange_id: _Optional[str] = ..., already_recorded: _Optional[bool] = ...) -> None: ...

class BackfillItem(_message.Message):
    __slots__ = ("scope", "id", "session_id", "created_at", "user_text", "assistant_text", "content", "metadata_json")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    USER_TEXT_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_TEXT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    session_id: str
    created_at: str
    user_text: str
    assistant_text: str
    content: str
    metadata_json: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ..., session_id: _Optional[str] = ..., created_at: _Optional[str] = ..., user_text: _Optional[str] = ..., assistant_text: _Optional[str] = ..., content: _Optional[str] = ..., metadata_json: _Optional[str] = ...) -> None: ...

class BackfillRequest(_message.Message):
    __slots__ = ("exchanges", "observations", "dry_run")
    EXCHANGES_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    exchanges: _containers.RepeatedCompositeFieldContainer[BackfillItem]
    observations: _containers.RepeatedCompositeFieldContainer[BackfillItem]
    dry_run: bool
    def __init__(self, exchanges: _Optional[_Iterable[_Union[BackfillItem, _Mapping]]] = ..., observations: _Optional[_Iterable[_Union[BackfillItem, _Mapping]]] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class BackfillResponse(_message.Message):
    __slots__ = ("stored_ids", "existing_ids", "empty_ids")
    STORED_IDS_FIELD_NUMBER: _ClassVar[int]
    EXISTING_IDS_FIELD_NUMBER: _ClassVar[int]
    EMPTY_IDS_FIELD_NUMBER: _ClassVar[int]
    stored_ids: _containers.RepeatedScalarFieldContainer[str]
    existing_ids: _containers.RepeatedScalarFieldContainer[str]
    empty_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, stored_ids: _Optional[_Iterable[str]] = ..., existing_ids: _Optional[_Iterable[str]] = ..., empty_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetScoringStateRequest(_message.Message):
    __slots__ = ("scope", "session_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ...) -> None: ...

class GetScoringStateResponse(_message.Message):
    __slots__ = ("scoring_required", "injected_ids", "exchange_id")
    SCORING_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    INJECTED_IDS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_ID_FIELD_NUMBER: _ClassVar[int]
    scoring_required: bool
    injected_ids: _containers.RepeatedScalarFieldContainer[str]
    exchange_id: str
    def __init__(self, scoring_required: _Optional[bool] = ..., injected_ids: _Optional[_Iterable[str]] = ..., exchange_id: _Optional[str] = ...) -> None: ...

class RecordInjectionRequest(_message.Message):
    __slots__ = ("scope", "session_id", "ids", "prompt", "client")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    prompt: str
    client: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ..., prompt: _Optional[str] = ..., client: _Optional[str] = ...) -> None: ...

class RecordInjectionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PrepareContextRequest(_message.Message):
    __slots__ = ("scope", "session_id", "search", "prompt", "lesson_ids", "client", "preview")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    LESSON_IDS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    search: SearchRequest
    prompt: str
    lesson_ids: _containers.RepeatedScalarFieldContainer[str]
    client: str
    preview: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., search: _Optional[_Union[SearchRequest, _Mapping]] = ..., prompt: _Optional[str] = ..., lesson_ids: _Optional[_Iterable[str]] = ..., client: _Optional[str] = ..., preview: _Optional[bool] = ...) -> None: ...

class PrepareContextResponse(_message.Message):
    __slots__ = ("memories", "scoring_required", "injected_ids", "exchange_id", "lessons", "choices")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    SCORING_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    INJECTED_IDS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_ID_FIELD_NUMBER: _ClassVar[int]
    LESSONS_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    scoring_required: bool
    injected_ids: _containers.RepeatedScalarFieldContainer[str]
    exchange_id: str
    lessons: _containers.RepeatedCompositeFieldContainer[Memory]
    choices: _containers.RepeatedCompositeFieldContainer[ContextChoice]
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., scoring_required: _Optional[bool] = ..., injected_ids: _Optional[_Iterable[str]] = ..., exchange_id: _Optional[str] = ..., lessons: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., choices: _Optional[_Iterable[_Union[ContextChoice, _Mapping]]] = ...) -> None: ...

class ContextChoice(_message.Message):
    __slots__ = ("id", "kept", "reason", "merged_ids", "relevance", "parts")
    ID_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MERGED_IDS_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    kept: bool
    reason: str
    merged_ids: _containers.RepeatedScalarFieldContainer[str]
    relevance: float
    parts: RankParts
    def __init__(self, id: _Optional[str] = ..., kept: _Optional[bool] = ..., reason: _Optional[str] = ..., merged_ids: _Optional[_Iterable[str]] = ..., relevance: _Optional[float] = ..., parts: _Optional[_Union[RankParts, _Mapping]] = ...) -> None: ...

class RankParts(_message.Message):
    __slots__ = ("dense", "lexical", "session_context", "relevance", "kg_weight", "kg_linked", "learned", "final")
    DENSE_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_FIELD_NUMBER: _ClassVar[int]
    SESSION_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    KG_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    KG_LINKED_FIELD_NUMBER: _ClassVar[int]
    LEARNED_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    dense: float
    lexical: float
    session_context: float
    relevance: float
    kg_weight: float
    kg_linked: bool
    learned: float
    final: float
    def __init__(self, dense: _Optional[float] = ..., lexical: _Optional[float] = ..., session_context: _Optional[float] = ..., relevance: _Optional[float] = ..., kg_weight: _Optional[float] = ..., kg_linked: _Optional[bool] = ..., learned: _Optional[float] = ..., final: _Optional[float] = ...) -> None: ...

class IngestBookRequest(_message.Message):
    __slots__ = ("scope", "title", "source", "data", "filename", "skip_if_unchanged")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    SKIP_IF_UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    title: str
    source: str
    data: bytes
    filename: str
    skip_if_unchanged: bool
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., title: _Optional[str] = ..., source: _Optional[str] = ..., data: _Optional[bytes] = ..., filename: _Optional[str] = ..., skip_if_unchanged: _Optional[bool] = ...) -> None: ...

class IngestBookResponse(_message.Message):
    __slots__ = ("title", "chunks", "skipped_unchanged", "ids")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    title: str
    chunks: int
    skipped_unchanged: bool
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, title: _Optional[str] = ..., chunks: _Optional[int] = ..., skipped_unchanged: _Optional[bool] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...

class IngestBookStreamRequest(_message.Message):
    __slots__ = ("book",)
    BOOK_FIELD_NUMBER: _ClassVar[int]
    book: IngestBookRequest
    def __init__(self, book: _Optional[_Union[IngestBookRequest, _Mapping]] = ...) -> None: ...

class IngestBookProgress(_message.Message):
    __slots__ = ("chunks_total", "chunks_done")
    CHUNKS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_DONE_FIELD_NUMBER: _ClassVar[int]
    chunks_total: int
    chunks_done: int
    def __init__(self, chunks_total: _Optional[int] = ..., chunks_done: _Optional[int] = ...) -> None: ...

class IngestBookStreamResponse(_message.Message):
    __slots__ = ("progress", "result")
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    progress: IngestBookProgress
    result: IngestBookResponse
    def __init__(self, progress: _Optional[_Union[IngestBookProgress, _Mapping]] = ..., result: _Optional[_Union[IngestBookResponse, _Mapping]] = ...) -> None: ...

class ListBooksRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class Book(_message.Message):
    __slots__ = ("title", "source", "chunks", "created_at", "content_hash")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    title: str
    source: str
    chunks: int
    created_at: str
    content_hash: str
    def __init__(self, title: _Optional[str] = ..., source: _Optional[str] = ..., chunks: _Optional[int] = ..., created_at: _Optional[str] = ..., content_hash: _Optional[str] = ...) -> None: ...

class ListBooksResponse(_message.Message):
    __slots__ = ("books",)
    BOOKS_FIELD_NUMBER: _ClassVar[int]
    books: _containers.RepeatedCompositeFieldContainer[Book]
    def __init__(self, books: _Optional[_Iterable[_Union[Book, _Mapping]]] = ...) -> None: ...

class RemoveBookRequest(_message.Message):
    __slots__ = ("scope", "title")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    title: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., title: _Optional[str] = ...) -> None: ...

class RemoveBookResponse(_message.Message):
    __slots__ = ("removed_chunks", "removed_ids")
    REMOVED_CHUNKS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_IDS_FIELD_NUMBER: _ClassVar[int]
    removed_chunks: int
    removed_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, removed_chunks: _Optional[int] = ..., removed_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("counts", "score_histogram", "events", "data_bytes", "events_by_day_json")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ScoreHistogramEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class EventsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    SCORE_HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DATA_BYTES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_BY_DAY_JSON_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.ScalarMap[str, int]
    score_histogram: _containers.ScalarMap[str, int]
    events: _containers.ScalarMap[str, int]
    data_bytes: int
    events_by_day_json: str
    def __init__(self, counts: _Optional[_Mapping[str, int]] = ..., score_histogram: _Optional[_Mapping[str, int]] = ..., events: _Optional[_Mapping[str, int]] = ..., data_bytes: _Optional[int] = ..., events_by_day_json: _Optional[str] = ...) -> None: ...

class RunMaintenanceRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class RunMaintenanceResponse(_message.Message):
    __slots__ = ("promoted", "demoted", "deleted", "expired", "exchanges_pruned", "observations_compacted")
    PROMOTED_FIELD_NUMBER: _ClassVar[int]
    DEMOTED_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGES_PRUNED_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_COMPACTED_FIELD_NUMBER: _ClassVar[int]
    promoted: int
    demoted: int
    deleted: int
    expired: int
    exchanges_pruned: int
    observations_compacted: int
    def __init__(self, promoted: _Optional[int] = ..., demoted: _Optional[int] = ..., deleted: _Optional[int] = ..., expired: _Optional[int] = ..., exchanges_pruned: _Optional[int] = ..., observations_compacted: _Optional[int] = ...) -> None: ...

class ListScopesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ScopeInfo(_message.Message):
    __slots__ = ("scope", "counts")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    counts: _containers.ScalarMap[str, int]
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., counts: _Optional[_Mapping[str, int]] = ...) -> None: ...

class ListScopesResponse(_message.Message):
    __slots__ = ("scopes",)
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    scopes: _containers.RepeatedCompositeFieldContainer[ScopeInfo]
    def __init__(self, scopes: _Optional[_Iterable[_Union[ScopeInfo, _Mapping]]] = ...) -> None: ...

class ExportRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class ExportResponse(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class ImportRequest(_message.Message):
    __slots__ = ("record_json",)
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record_json: str
    def __init__(self, record_json: _Optional[str] = ...) -> None: ...

class ImportResponse(_message.Message):
    __slots__ = ("imported", "skipped_existing", "invalid")
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_EXISTING_FIELD_NUMBER: _ClassVar[int]
    INVALID_FIELD_NUMBER: _ClassVar[int]
    imported: int
    skipped_existing: int
    invalid: int
    def __init__(self, imported: _Optional[int] = ..., skipped_existing: _Optional[int] = ..., invalid: _Optional[int] = ...) -> None: ...

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

class GetRulesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LifecycleRules(_message.Message):
    __slots__ = ("promote_working_min_score", "promote_working_min_uses", "promote_history_min_score", "promote_history_min_uses", "promote_history_min_successes", "demote_patterns_below", "delete_below", "working_ttl_hours", "history_ttl_days")
    PROMOTE_WORKING_MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    PROMOTE_WORKING_MIN_USES_FIELD_NUMBER: _ClassVar[int]
    PROMOTE_HISTORY_MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    PROMOTE_HISTORY_MIN_USES_FIELD_NUMBER: _ClassVar[int]
    PROMOTE_HISTORY_MIN_SUCCESSES_FIELD_NUMBER: _ClassVar[int]
    DEMOTE_PATTERNS_BELOW_FIELD_NUMBER: _ClassVar[int]
    DELETE_BELOW_FIELD_NUMBER: _ClassVar[int]
    WORKING_TTL_HOURS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_TTL_DAYS_FIELD_NUMBER: _ClassVar[int]
    promote_working_min_score: float
    promote_working_min_uses: int
    promote_history_min_score: float
    promote_history_min_uses: int
    promote_history_min_successes: float
    demote_patterns_below: float
    delete_below: float
    working_ttl_hours: float
    history_ttl_days: float
    def __init__(self, promote_working_min_score: _Optional[float] = ..., promote_working_min_uses: _Optional[int] = ..., promote_history_min_score: _Optional[float] = ..., promote_history_min_uses: _Optional[int] = ..., promote_history_min_successes: _Optional[float] = ..., demote_patterns_below: _Optional[float] = ..., delete_below: _Optional[float] = ..., working_ttl_hours: _Optional[float] = ..., history_ttl_days: _Optional[float] = ...) -> None: ...

class OutcomeRule(_message.Message):
    __slots__ = ("outcome", "score_delta", "success_credit", "initial_score", "history_mark")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SCORE_DELTA_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_CREDIT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    HISTORY_MARK_FIELD_NUMBER: _ClassVar[int]
    outcome: _common_pb2.Outcome
    score_delta: float
    success_credit: float
    initial_score: float
    history_mark: str
    def __init__(self, outcome: _Optional[_Union[_common_pb2.Outcome, str]] = ..., score_delta: _Optional[float] = ..., success_credit: _Optional[float] = ..., initial_score: _Optional[float] = ..., history_mark: _Optional[str] = ...) -> None: ...

class GetRulesResponse(_message.Message):
    __slots__ = ("lifecycle", "outcomes", "default_initial_score", "age_half_weight_days", "fixed_quality_wilson_share", "fixed_quality_wilson_after_uses", "failures_to_delete_from_top", "failures_to_demote_from_top")
    LIFECYCLE_FIELD_NUMBER: _ClassVar[int]
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INITIAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    AGE_HALF_WEIGHT_DAYS_FIELD_NUMBER: _ClassVar[int]
    FIXED_QUALITY_WILSON_SHARE_FIELD_NUMBER: _ClassVar[int]
    FIXED_QUALITY_WILSON_AFTER_USES_FIELD_NUMBER: _ClassVar[int]
    FAILURES_TO_DELETE_FROM_TOP_FIELD_NUMBER: _ClassVar[int]
    FAILURES_TO_DEMOTE_FROM_TOP_FIELD_NUMBER: _ClassVar[int]
    lifecycle: LifecycleRules
    outcomes: _containers.RepeatedCompositeFieldContainer[OutcomeRule]
    default_initial_score: float
    age_half_weight_days: float
    fixed_quality_wilson_share: float
    fixed_quality_wilson_after_uses: int
    failures_to_delete_from_top: int
    failures_to_demote_from_top: int
    def __init__(self, lifecycle: _Optional[_Union[LifecycleRules, _Mapping]] = ..., outcomes: _Optional[_Iterable[_Union[OutcomeRule, _Mapping]]] = ..., default_initial_score: _Optional[float] = ..., age_half_weight_days: _Optional[float] = ..., fixed_quality_wilson_share: _Optional[float] = ..., fixed_quality_wilson_after_uses: _Optional[int] = ..., failures_to_delete_from_top: _Optional[int] = ..., failures_to_demote_from_top: _Optional[int] = ...) -> None: ...

class BrowseRequest(_message.Message):
    __slots__ = ("scope", "collections", "tag", "sort", "limit", "offset", "archived", "kind", "session_id", "ids")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    collections: _containers.RepeatedScalarFieldContainer[str]
    tag: str
    sort: str
    limit: int
    offset: int
    archived: str
    kind: str
    session_id: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., collections: _Optional[_Iterable[str]] = ..., tag: _Optional[str] = ..., sort: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., archived: _Optional[str] = ..., kind: _Optional[str] = ..., session_id: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...

class BrowseResponse(_message.Message):
    __slots__ = ("memories", "total", "tags")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    total: int
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., total: _Optional[int] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class RestoreRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class RestoreResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ("scope", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., limit: _Optional[int] = ...) -> None: ...

class SessionSummary(_message.Message):
    __slots__ = ("session_id", "last_activity", "turns", "first_prompt", "clients")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PROMPT_FIELD_NUMBER: _ClassVar[int]
    CLIENTS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    last_activity: str
    turns: int
    first_prompt: str
    clients: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, session_id: _Optional[str] = ..., last_activity: _Optional[str] = ..., turns: _Optional[int] = ..., first_prompt: _Optional[str] = ..., clients: _Optional[_Iterable[str]] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ("sessions",)
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[SessionSummary]
    def __init__(self, sessions: _Optional[_Iterable[_Union[SessionSummary, _Mapping]]] = ...) -> None: ...

class ListTurnsRequest(_message.Message):
    __slots__ = ("scope", "session_id", "memory_id", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    session_id: str
    memory_id: str
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., session_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class OutcomeEntry(_message.Message):
    __slots__ = ("at", "memory_id", "outcome", "score_before", "score_after", "collection_before", "collection_after", "transition", "new_id", "session_id", "turn_id")
    AT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SCORE_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SCORE_AFTER_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_BEFORE_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_AFTER_FIELD_NUMBER: _ClassVar[int]
    TRANSITION_FIELD_NUMBER: _ClassVar[int]
    NEW_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    at: str
    memory_id: str
    outcome: str
    score_before: float
    score_after: float
    collection_before: str
    collection_after: str
    transition: str
    new_id: str
    session_id: str
    turn_id: int
    def __init__(self, at: _Optional[str] = ..., memory_id: _Optional[str] = ..., outcome: _Optional[str] = ..., score_before: _Optional[float] = ..., score_after: _Optional[float] = ..., collection_before: _Optional[str] = ..., collection_after: _Optional[str] = ..., transition: _Optional[str] = ..., new_id: _Optional[str] = ..., session_id: _Optional[str] = ..., turn_id: _Optional[int] = ...) -> None: ...

class TurnRecord(_message.Message):
    __slots__ = ("id", "session_id", "prompt", "injected_ids", "completed", "scored", "exchange_id", "started_at", "outcome", "outcomes", "choices_json", "client")
    ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    INJECTED_IDS_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_ID_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    CHOICES_JSON_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    id: int
    session_id: str
    prompt: str
    injected_ids: _containers.RepeatedScalarFieldContainer[str]
    completed: bool
    scored: bool
    exchange_id: str
    started_at: str
    outcome: str
    outcomes: _containers.RepeatedCompositeFieldContainer[OutcomeEntry]
    choices_json: str
    client: str
    def __init__(self, id: _Optional[int] = ..., session_id: _Optional[str] = ..., prompt: _Optional[str] = ..., injected_ids: _Optional[_Iterable[str]] = ..., completed: _Optional[bool] = ..., scored: _Optional[bool] = ..., exchange_id: _Optional[str] = ..., started_at: _Optional[str] = ..., outcome: _Optional[str] = ..., outcomes: _Optional[_Iterable[_Union[OutcomeEntry, _Mapping]]] = ..., choices_json: _Optional[str] = ..., client: _Optional[str] = ...) -> None: ...

class ListTurnsResponse(_message.Message):
    __slots__ = ("turns", "written_by")
    TURNS_FIELD_NUMBER: _ClassVar[int]
    WRITTEN_BY_FIELD_NUMBER: _ClassVar[int]
    turns: _containers.RepeatedCompositeFieldContainer[TurnRecord]
    written_by: str
    def __init__(self, turns: _Optional[_Iterable[_Union[TurnRecord, _Mapping]]] = ..., written_by: _Optional[str] = ...) -> None: ...

class OutcomeLogRequest(_message.Message):
    __slots__ = ("scope", "memory_id", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    memory_id: str
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., memory_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class OutcomeLogResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[OutcomeEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[OutcomeEntry, _Mapping]]] = ...) -> None: ...

class FindConsolidationCandidatesRequest(_message.Message):
    __slots__ = ("scope", "kinds", "limit")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    kinds: _containers.RepeatedScalarFieldContainer[str]
    limit: int
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., kinds: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ...) -> None: ...

class ConsolidationCluster(_message.Message):
    __slots__ = ("kind", "reason", "similarity", "memories")
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    kind: str
    reason: str
    similarity: float
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, kind: _Optional[str] = ..., reason: _Optional[str] = ..., similarity: _Optional[float] = ..., memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class FindConsolidationCandidatesResponse(_message.Message):
    __slots__ = ("clusters", "scanned")
    CLUSTERS_FIELD_NUMBER: _ClassVar[int]
    SCANNED_FIELD_NUMBER: _ClassVar[int]
    clusters: _containers.RepeatedCompositeFieldContainer[ConsolidationCluster]
    scanned: int
    def __init__(self, clusters: _Optional[_Iterable[_Union[ConsolidationCluster, _Mapping]]] = ..., scanned: _Optional[int] = ...) -> None: ...

class ConsolidateRequest(_message.Message):
    __slots__ = ("scope", "source_ids", "content", "collection", "tags", "importance", "confidence", "reason")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_IDS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    source_ids: _containers.RepeatedScalarFieldContainer[str]
    content: str
    collection: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    importance: float
    confidence: float
    reason: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., source_ids: _Optional[_Iterable[str]] = ..., content: _Optional[str] = ..., collection: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., importance: _Optional[float] = ..., confidence: _Optional[float] = ..., reason: _Optional[str] = ...) -> None: ...

class ConsolidateResponse(_message.Message):
    __slots__ = ("merged", "archived")
    MERGED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    merged: Memory
    archived: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, merged: _Optional[_Union[Memory, _Mapping]] = ..., archived: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class UndoConsolidationRequest(_message.Message):
    __slots__ = ("scope", "id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    id: str
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class UndoConsolidationResponse(_message.Message):
    __slots__ = ("restored", "merged")
    RESTORED_FIELD_NUMBER: _ClassVar[int]
    MERGED_FIELD_NUMBER: _ClassVar[int]
    restored: _containers.RepeatedCompositeFieldContainer[Memory]
    merged: Memory
    def __init__(self, restored: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., merged: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class OverviewRequest(_message.Message):
    __slots__ = ("scope",)
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    scope: _common_pb2.Scope
    def __init__(self, scope: _Optional[_Union[_common_pb2.Scope, _Mapping]] = ...) -> None: ...

class OverviewResponse(_message.Message):
    __slots__ = ("counts", "score_histogram", "events", "events_by_day_json", "facts")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ScoreHistogramEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class EventsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    SCORE_HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_BY_DAY_JSON_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.ScalarMap[str, int]
    score_histogram: _containers.ScalarMap[str, int]
    events: _containers.ScalarMap[str, int]
    events_by_day_json: str
    facts: _containers.RepeatedCompositeFieldContainer[FactOwner]
    def __init__(self, counts: _Optional[_Mapping[str, int]] = ..., score_histogram: _Optional[_Mapping[str, int]] = ..., events: _Optional[_Mapping[str, int]] = ..., events_by_day_json: _Optional[str] = ..., facts: _Optional[_Iterable[_Union[FactOwner, _Mapping]]] = ...) -> None: ...

class FactOwner(_message.Message):
    __slots__ = ("id", "project", "archived")
    ID_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    id: str
    project: str
    archived: bool
    def __init__(self, id: _Optional[str] = ..., project: _Optional[str] = ..., archived: _Optional[bool] = ...) -> None: ...
