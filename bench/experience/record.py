"""What a run leaves for the metrics: the texts it stored (to tell which line came from where) and what it saw."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.experience.block import normalise

SNIPPET_CHARS = 56


@dataclass(frozen=True)
class Entry:
    """A text the run put into memory: a user prompt, an assistant takeaway or a fact."""

    project: str
    session: str
    problem: str  # problem key, '' for chat and facts
    kind: str  # prompt | takeaway | fact | answer | output (a line of a tool's output)
    attribute: str = ""  # facts: which attribute


@dataclass
class Registry:
    snippets: dict[str, list[Entry]] = field(default_factory=dict)

    def add(self, text: str, entry: Entry) -> None:
        snippet = normalise(text)[:SNIPPET_CHARS]
        if len(snippet) >= 20:
            self.snippets.setdefault(snippet, []).append(entry)

    def find(self, line_text: str) -> list[Entry]:
        """The stored texts a block line shows (the line holds the text's beginning)."""
        text = normalise(line_text)
        found: list[Entry] = []
        for snippet, entries in self.snippets.items():
            if snippet in text:
                found.extend(entries)
        return found


@dataclass
class Seen:
    """One get-context reply as the run saw it."""

    kind: str  # chat | episode | recurrence | near_miss | request | probe | fact | closing
    project: str
    session: str
    problem: str
    block: str
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)  # memory id -> (session, project)
    first: bool = False  # the first prompt of its session


@dataclass
class Recurrence:
    problem: str
    project: str
    trap: bool
    attempts: int
    first_right: bool
    right: str  # key of the fix that works here
    failed_before: list[str]  # keys of fixes that failed for this problem in this project earlier
    has_takeaway: bool
    other_fixes: list[str]  # keys of this problem's fixes that are right only elsewhere (another project or problem)
    seen: Seen
    order: list[str] = field(default_factory=list)  # the fixes in the order the assistant planned them


@dataclass
class Run:
    label: str
    seed: int
    kg: bool
    registry: Registry = field(default_factory=Registry)
    seen: list[Seen] = field(default_factory=list)
    recurrences: list[Recurrence] = field(default_factory=list)
    probes: list[tuple[Seen, tuple[str, ...]]] = field(default_factory=list)  # (block, stale values)
    wrong_scope: list[bool] = field(default_factory=list)  # per other-project fact: did it archive the first one
    failure_route: str = ""
    kg_problems: dict[str, int] = field(default_factory=dict)  # project -> known problems the kg holds at the end
    turns: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
