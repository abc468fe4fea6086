"""Which scope a memory_bank fact belongs to: the project where it was stated, or the user.

Pure module. The rule (docs/MEMORY_HYGIENE.md, "Scope of a fact"):

- a fact belongs to the project where it was stated, unless it was stated as
  user-wide (``add_to_memory_bank(user_wide=true)``, ``StoreRequest.user_wide``);
- the choice is stored on the fact as ``fact_scope`` = ``project`` or ``user``;
  the fact's ``project`` field always names where it was stated;
- facts stored before scopes existed carry no ``fact_scope``: they were
  user-wide then and stay user-wide, so no stored fact changes meaning or is
  hidden by the upgrade (``consolidate_memories`` or a new fact can narrow it);
- supersession and consolidation compare two facts only when they share a
  scope: both user-wide, or both of the same project;
- a fact of another project is still found by a search (``search_memory``),
  but it is never injected into a prompt's context (``context_selection``), nor
  into the session-start seed (the gateway's ``top_facts``).
"""

from __future__ import annotations

from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.naming import MEMORY_BANK
from services.memory.domain.record import MemoryRecord

FACT_SCOPE = "fact_scope"
PROJECT_SCOPE = "project"
USER_SCOPE = "user"


def scope_value(user_wide: bool) -> str:
    return USER_SCOPE if user_wide else PROJECT_SCOPE


def scope_key(record: MemoryRecord) -> str:
    """ "" for a user-wide fact (or any memory outside memory_bank), else the project it belongs to."""
    if record.collection != MEMORY_BANK or record.extra.get(FACT_SCOPE) != PROJECT_SCOPE:
        return ""
    return record.project


def same_scope(a: MemoryRecord, b: MemoryRecord) -> bool:
    """Whether two facts may supersede or be consolidated with each other."""
    return scope_key(a) == scope_key(b)


def holds_in(record: MemoryRecord, project: str) -> bool:
    """Whether the fact applies in ``project``: user-wide, or stated there."""
    key = scope_key(record)
    return not key or key == project


def is_foreign_fact(memory: NormalizedMemory, project: str) -> bool:
    """A memory_bank fact that belongs to a project other than ``project``."""
    return (
        memory.collection == MEMORY_BANK
        and memory.metadata.get(FACT_SCOPE) == PROJECT_SCOPE
        and memory.project != project
    )
