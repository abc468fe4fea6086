"""Input rules for the kg RPCs. Messages say what is wrong and how to fix it.

Plain module (no gRPC): the servicer maps ``InvalidKgRequest`` to
INVALID_ARGUMENT.
"""

from __future__ import annotations

import json
import re

from kernel.json_values import JSONObject, parse_value
from services.kg.keys import Outcome

MAX_TEXT_CHARS = 20_000
MAX_CONCEPTS = 64
MAX_NAME_CHARS = 200
MAX_COLLECTIONS = 16
MAX_DOC_IDS = 1024
MAX_ID_CHARS = 256
MAX_LIMIT = 1000
MAX_DEPTH = 5
MAX_IMPORT_BYTES = 8 * 1024 * 1024
DEFAULT_LIMIT = 10
DEFAULT_GRAPH_LIMIT = 200
DEFAULT_DEPTH = 2
DEFAULT_DECAY = 0.5
_SCOPE_RE = re.compile(r"^[A-Za-z0-9_.@-]{1,128}$")
_LABEL_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
# An action may be a command line with its flags ("pytest -x"): spaces and a few
# more characters, never the "|" that joins a Roampal-style action key.
_ACTION_RE = re.compile(r"^[A-Za-z0-9_.:@/+=, -]{1,80}$")
MAX_LESSONS = 10
_PROBLEM_ID_RE = re.compile(r"^p[0-9]{1,12}$")
_MERGE_ID_RE = re.compile(r"^m[0-9]{1,12}$")
OUTCOMES = {1: Outcome.WORKED, 2: Outcome.PARTIAL, 3: Outcome.UNKNOWN, 4: Outcome.FAILED}


class InvalidKgRequest(ValueError):
    pass


def check_scope(user: str, project: str) -> None:
    for name, value in (("scope.user", user), ("scope.project", project)):
        if not value:
            raise InvalidKgRequest(
                f"{name} is empty: every kg call needs the scope it works in, "
                "e.g. scope {user: 'alice', project: 'app-1a2b3c4d'}"
            )
        if not _SCOPE_RE.match(value):
            raise InvalidKgRequest(
                f"{name}={value[:40]!r} is not allowed: use 1-128 letters, digits, '_', '.', '@' or '-'"
            )


MAX_VECTOR_BYTES = 4 * 4096


def check_session(session_id: str) -> None:
    if not session_id.strip():
        raise InvalidKgRequest("session_id is empty: send the id of the session the turn or tool call belongs to")
    if len(session_id) > MAX_ID_CHARS:
        raise InvalidKgRequest(f"session_id is too long: {len(session_id)} characters > {MAX_ID_CHARS}")


def check_vector(data: bytes, field: str) -> None:
    if len(data) % 4 or len(data) > MAX_VECTOR_BYTES:
        raise InvalidKgRequest(
            f"{field} has {len(data)} bytes: send packed little-endian float32 (a multiple of 4 bytes, "
            f"at most {MAX_VECTOR_BYTES}), or nothing"
        )


def check_problem_id(value: str, field: str) -> None:
    if not value:
        raise InvalidKgRequest(f"{field} is empty: send a known problem's id such as 'p12' (ListProblems lists them)")
    if not _PROBLEM_ID_RE.match(value):
        raise InvalidKgRequest(
            f"{field}={value[:40]!r} is not a known problem's id: those are 'p' and a number, such as 'p12'"
        )


def check_merge_id(value: str) -> None:
    if not value:
        raise InvalidKgRequest("merge_id is empty: send the id MergeProblems answered, such as 'm3'")
    if not _MERGE_ID_RE.match(value):
        raise InvalidKgRequest(f"merge_id={value[:40]!r} is not a merge's id: those are 'm' and a number, such as 'm3'")


def check_text(text: str, field: str = "text", *, required: bool = True) -> None:
    if required and not text.strip():
        raise InvalidKgRequest(f"{field} is empty: send the text to work on")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidKgRequest(
            f"{field} is too long: {len(text)} characters > {MAX_TEXT_CHARS}; send the first "
            f"{MAX_TEXT_CHARS} characters or split the text"
        )


def check_names(values: list[str], field: str, *, limit: int = MAX_CONCEPTS, max_chars: int = MAX_NAME_CHARS) -> None:
    if len(values) > limit:
        raise InvalidKgRequest(f"too many {field}: {len(values)} > {limit}; send the {limit} most important")
    for i, value in enumerate(values):
        if len(value) > max_chars:
            raise InvalidKgRequest(f"{field}[{i}] is too long: {len(value)} characters > {max_chars}")


def check_collections(collections: list[str], *, required: bool = False) -> None:
    if required and not collections:
        raise InvalidKgRequest("collection is empty: name the collection the action worked on, e.g. 'patterns'")
    check_names(collections, "collections", limit=MAX_COLLECTIONS, max_chars=64)
    for value in collections:
        if value and not _LABEL_RE.match(value):
            raise InvalidKgRequest(
                f"collection {value[:40]!r} is not allowed: use letters, digits, '_', '.', ':' or '-'"
            )


def check_label(value: str, field: str) -> None:
    if not value:
        raise InvalidKgRequest(f"{field} is empty: send a short label such as 'coding' or 'search_memory'")
    if not _LABEL_RE.match(value):
        raise InvalidKgRequest(f"{field}={value[:40]!r} is not allowed: use 1-64 letters, digits, '_', '.', ':' or '-'")


def check_action(value: str) -> None:
    if not value.strip():
        raise InvalidKgRequest("action is empty: send a short name such as 'search_memory' or 'pytest -x'")
    if not _ACTION_RE.match(value):
        raise InvalidKgRequest(
            f"action={value[:40]!r} is not allowed: use 1-80 letters, digits, spaces or '_ . : @ / + = , -'"
        )


def lessons_of(value: int) -> int:
    if value > MAX_LESSONS:
        raise InvalidKgRequest(f"lesson_limit {value} is above {MAX_LESSONS}: a prompt needs the few best only")
    return value


def outcome_of(value: int) -> Outcome:
    if value not in OUTCOMES:
        raise InvalidKgRequest(
            "outcome is unspecified: send OUTCOME_WORKED, OUTCOME_PARTIAL, OUTCOME_UNKNOWN or OUTCOME_FAILED"
        )
    return OUTCOMES[value]


def limit_of(value: int, default: int = DEFAULT_LIMIT) -> int:
    if value > MAX_LIMIT:
        raise InvalidKgRequest(f"limit {value} is above {MAX_LIMIT}: ask for fewer, or page with entities")
    return value or default


def depth_of(value: int) -> int:
    if value > MAX_DEPTH:
        raise InvalidKgRequest(f"max_depth {value} is above {MAX_DEPTH}: activation has faded by then anyway")
    return value or DEFAULT_DEPTH


def decay_of(value: float) -> float:
    if value == 0:
        return DEFAULT_DECAY
    if not 0 < value <= 1:
        raise InvalidKgRequest(f"decay {value} must be in (0, 1]: it is the share of activation passed per hop")
    return value


def parse_graph_json(text: str) -> JSONObject:
    if not text.strip():
        raise InvalidKgRequest("graph_json is empty: send a mnemex export or Roampal's knowledge_graph.json")
    if len(text.encode()) > MAX_IMPORT_BYTES:
        raise InvalidKgRequest(f"graph_json is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MiB: split the import")
    try:
        data = parse_value(text)
    except json.JSONDecodeError as exc:
        raise InvalidKgRequest(
            f"graph_json is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from exc
    if not isinstance(data, dict):
        raise InvalidKgRequest("graph_json must be a JSON object, not a list or a scalar")
    return data
