from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNSPECIFIED: _ClassVar[Outcome]
    OUTCOME_WORKED: _ClassVar[Outcome]
    OUTCOME_PARTIAL: _ClassVar[Outcome]
    OUTCOME_UNKNOWN: _ClassVar[Outcome]
    OUTCOME_FAILED: _ClassVar[Outcome]
OUTCOME_UNSPECIFIED: Outcome
OUTCOME_WORKED: Outcome
OUTCOME_PARTIAL: Outcome
OUTCOME_UNKNOWN: Outcome
OUTCOME_FAILED: Outcome

class Scope(_message.Message):
    __slots__ = ("user", "project")
    USER_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FIELD_NUMBER: _ClassVar[int]
    user: str
    project: str
    def __init__(self, user: _Optional[str] = ..., project: _Optional[str] = ...) -> None: ...
