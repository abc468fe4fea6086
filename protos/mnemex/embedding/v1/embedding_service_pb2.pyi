from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class EmbedRequest(_message.Message):
    __slots__ = ("texts",)
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    texts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, texts: _Optional[_Iterable[str]] = ...) -> None: ...

class EmbedResponse(_message.Message):
    __slots__ = ("vectors", "dimension", "count", "model_id")
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    vectors: bytes
    dimension: int
    count: int
    model_id: str
    def __init__(self, vectors: _Optional[bytes] = ..., dimension: _Optional[int] = ..., count: _Optional[int] = ..., model_id: _Optional[str] = ...) -> None: ...

class InfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InfoResponse(_message.Message):
    __slots__ = ("model_id", "dimension", "device", "backend", "max_seq_length", "max_batch", "max_text_chars", "version", "precision")
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    MAX_SEQ_LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_FIELD_NUMBER: _ClassVar[int]
    MAX_TEXT_CHARS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PRECISION_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    dimension: int
    device: str
    backend: str
    max_seq_length: int
    max_batch: int
    max_text_chars: int
    version: str
    precision: str
    def __init__(self, model_id: _Optional[str] = ..., dimension: _Optional[int] = ..., device: _Optional[str] = ..., backend: _Optional[str] = ..., max_seq_length: _Optional[int] = ..., max_batch: _Optional[int] = ..., max_text_chars: _Optional[int] = ..., version: _Optional[str] = ..., precision: _Optional[str] = ...) -> None: ...
