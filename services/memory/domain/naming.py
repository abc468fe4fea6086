"""Collections, scopes and memory ids.

- Five collections per scope. ``memory_bank`` belongs to the user (shared by
  all of that user's projects); the other four belong to (user, project).
- Memory ids are ``<collection>_<15 digits>`` (older data: 32 hex). A promotion or demotion keeps
  the uid part and changes only the prefix, so an id the
  assistant saw before a move still finds the memory afterwards.
- Storage keeps each (owner scope, collection) in its own Chroma collection
  (``storage.chroma_store.chroma_name``).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from services.memory.domain.memory_errors import InvalidRequest

BOOKS = "books"
WORKING = "working"
HISTORY = "history"
PATTERNS = "patterns"
MEMORY_BANK = "memory_bank"
COLLECTIONS: tuple[str, ...] = (BOOKS, WORKING, HISTORY, PATTERNS, MEMORY_BANK)
# Collections whose score moves with outcomes (and that the lifecycle may delete).
SCORED_COLLECTIONS: tuple[str, ...] = (WORKING, HISTORY, PATTERNS)
USER_WIDE_COLLECTIONS: tuple[str, ...] = (MEMORY_BANK,)
DEFAULT_PROJECT = "default"
USER_WIDE_PROJECT = ""  # the project recorded for user-wide collections

_SCOPE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$")
# New uids are 15 random decimal digits (~50 bits): about 5 cl100k tokens each, so a
# scoring prompt listing five ids stays lean. 32-hex uids from older data stay valid.
_UID = re.compile(r"^(?:[0-9a-f]{32}|[0-9]{15})$")
_ID_CHARS = re.compile(r"^[A-Za-z0-9_.:-]{1,200}$")
# Longest prefix first so "memory_bank_" wins over any shorter match.
_PREFIXES = sorted(COLLECTIONS, key=len, reverse=True)


@dataclass(frozen=True)
class Scope:
    user: str
    project: str

    def owner_of(self, collection: str) -> Scope:
        """The scope that actually holds ``collection`` (memory_bank: the user alone)."""
        if collection in USER_WIDE_COLLECTIONS:
            return Scope(self.user, USER_WIDE_PROJECT)
        return self


def make_scope(user: str, project: str, default_user: str) -> Scope:
    user = user.strip() or default_user
    project = project.strip() or DEFAULT_PROJECT
    for what, value in (("scope.user", user), ("scope.project", project)):
        if not _SCOPE_PART.match(value):
            raise InvalidRequest(
                f"{what}={value[:80]!r} is not allowed: use 1-128 letters, digits or . _ @ + -, "
                "starting with a letter or digit (projects come from kernel.projects.resolve(cwd))"
            )
    return Scope(user, project)


def check_collection(name: str) -> str:
    if name not in COLLECTIONS:
        raise InvalidRequest(f"unknown collection {name!r}: use one of {', '.join(COLLECTIONS)}")
    return name


def new_uid() -> str:
    return f"{secrets.randbelow(10**15):015d}"


def memory_id(collection: str, uid: str) -> str:
    return f"{collection}_{uid}"


def split_id(memory_id_: str) -> tuple[str | None, str]:
    """(collection, uid) of an id; collection is None for ids without a known prefix."""
    for prefix in _PREFIXES:
        if memory_id_.startswith(prefix + "_") and len(memory_id_) > len(prefix) + 1:
            return prefix, memory_id_[len(prefix) + 1 :]
    return None, memory_id_


def check_id(memory_id_: str) -> str:
    value = memory_id_.strip()
    if not value:
        raise InvalidRequest("id is empty: pass a memory id such as 'patterns_<32 hex>' (shown as [id:...])")
    if not _ID_CHARS.match(value):
        raise InvalidRequest(
            f"id {value[:80]!r} is malformed: ids are at most 200 characters of letters, digits, '_', '.', ':' or '-'"
        )
    return value


def is_uid(value: str) -> bool:
    return bool(_UID.match(value))
