"""One project at a time: the caller a page acts for (``PageCallers``), which memory_bank facts belong to a
project's pages, and project names for people.

A fact belongs to the project where it was stated unless it was stated user-wide
(``gateway.capabilities.top_facts.holds_in``, the rule of services/memory/domain/fact_scope.py).
The memory service keeps every fact of a user in one user-wide collection. Its Browse and
Overview already leave other projects' facts out of a project's lists and counts; its scope
counts (ListScopes) and the kg do not, so ``Facts`` (every fact with the project it belongs to,
from Overview) is what the viewer uses to count each fact on its own project's row and to
take another project's facts out of the graph. A search hit carries its fact's scope (``shows_in``).

Project ids are ``<folder>-<hash>`` (``kernel.projects``) or a bound name. ``display_names``
shows the folder name alone, keeping the id where two projects share a folder name. Only
what is shown changes: links and forms carry the stored id.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from gateway.caller import Caller, CallerResolver
from gateway.capabilities.top_facts import holds_in
from gateway.gateway_errors import InvalidInput
from gateway.replies.memory_replies import Memory
from gateway.ui.graph_view import Elements
from kernel.json_values import object_at, str_at
from kernel.projects import InvalidProjectName, validate_name
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


class PageCallers:
    """The caller a page acts for: pinned to the project the page names (``?project=``), checked."""

    def __init__(self, callers: CallerResolver) -> None:
        self.callers = callers

    def default_project(self) -> str:
        return self.callers.resolve(None).project

    def caller(self, project: str) -> Caller:
        """The caller for ``?project=`` (checked), or for the default project when it is empty."""
        try:
            name = validate_name(project) if project else self.default_project()
        except InvalidProjectName as exc:
            raise InvalidInput(f"project: {exc}") from None
        return self.callers.pinned(name)


class ScopeRow(TypedDict):
    """A row of the projects table: the name shown, the project id ("" : user-wide) and its counts."""

    project: str
    name: str
    counts: dict[str, int]


_HASHED = re.compile(r"^(?P<folder>.+)-[0-9a-f]{8}$")


def folder_name(project: str) -> str:
    """``ledger-1a2b3c4d`` -> ``ledger``; a bound name (no hash) stays as it is."""
    found = _HASHED.match(project)
    return found.group("folder") if found else project


def display_names(projects: Iterable[str]) -> dict[str, str]:
    """Each project id -> the name shown: its folder name, or the id itself when that name is not unique."""
    ids = sorted(set(projects))
    folders = Counter(folder_name(p) for p in ids)
    return {p: folder_name(p) if folders[folder_name(p)] == 1 else p for p in ids}


def user_wide(memory: Mapping[str, object]) -> bool:
    """A memory_bank fact that holds in every project of its user (``memory``: a memory's JSON)."""
    return (
        str_at(memory, "collection") == "memory_bank" and object_at(memory, "metadata").get("fact_scope") != "project"
    )


@dataclass(frozen=True)
class Facts:
    """A user's memory_bank facts, reduced to what scoping needs: (id, project it belongs to or "", archived)."""

    rows: tuple[tuple[str, str, bool], ...] = ()

    def foreign_ids(self, project: str) -> frozenset[str]:
        """Facts that belong to another project than ``project``."""
        return frozenset(i for i, owner, _ in self.rows if owner and owner != project)

    def active_per_project(self) -> Counter[str]:
        """Active facts per owning project ("" : user-wide)."""
        return Counter(owner for _, owner, archived in self.rows if not archived)


def facts_of(overview: mem_pb.OverviewResponse) -> Facts:
    """The user's memory_bank facts in an Overview reply (archived ones too), each with its project."""
    return Facts(tuple((f.id, f.project, f.archived) for f in overview.facts))


def shows_in(memory: Memory, project: str) -> bool:
    """Whether ``memory`` shows in ``project``'s pages: anything but another project's fact (a search hit
    carries its fact's scope)."""
    return memory.collection != "memory_bank" or holds_in(memory, project)


def scoped_counts(scopes: Sequence[ScopeRow], facts: Facts) -> list[ScopeRow]:
    """The scope rows (``ViewerData.projects``) with memory_bank counted where each fact belongs:
    a project's own facts on its row, user-wide ones on the user-wide row; a project that holds
    only facts (stored in the user-wide scope) gets a row of its own."""
    per_project = facts.active_per_project()
    rows = [ScopeRow(**{**s, "counts": {**s["counts"], "memory_bank": per_project.get(s["name"], 0)}}) for s in scopes]
    listed = {s["name"] for s in scopes}
    for name in sorted(n for n in per_project if n not in listed):
        rows.append(ScopeRow(project=name or "(user-wide)", name=name, counts={"memory_bank": per_project[name]}))
    return rows


def without_memories(elements: Elements, ids: frozenset[str]) -> Elements:
    """The graph less the nodes of these memories (another project's facts) and the edges that touched them."""
    if not ids:
        return elements
    nodes = [n for n in elements["nodes"] if n["data"].get("memory") not in ids]
    live = {n["data"]["id"] for n in nodes}
    edges = [e for e in elements["edges"] if e["data"]["source"] in live and e["data"]["target"] in live]
    return Elements(nodes=nodes, edges=edges)
